package outreach_test

import (
	"encoding/json"
	"testing"

	"outreachd/outreach"
)

func typicalCase(b *testing.B) (*outreach.Filter, []byte) {
	b.Helper()
	ev := outreach.SampleEvent(outreach.EventReplyPositive, "org_bench", sampleAt)
	body, err := json.Marshal(ev)
	if err != nil {
		b.Fatal(err)
	}
	// What a CRM sync writes: one campaign's replies that are not negative, from people with some reach.
	raw := []byte(`{"data.campaign.id":"` + ev.Data.Campaign.ID + `","data.message.sentiment":{"$in":["positive","neutral"]},"data.prospect.follower_count":{"$gte":500}}`)
	f, err := outreach.ParseFilter(raw, []outreach.EventKind{outreach.EventReplyReceived})
	if err != nil {
		b.Fatal(err)
	}
	if ok, err := f.MatchBody(body); !ok || err != nil {
		b.Fatalf("the typical filter does not match the typical event: %t %v", ok, err)
	}
	return f, body
}

// BenchmarkFilterMatch: the cost the fan-out adds per (event, filtered destination): Match on
// an envelope decoded once per event ("envelope"), the decoding itself ("decode"), and both for
// a lone filter ("body").
func BenchmarkFilterMatch(b *testing.B) {
	f, body := typicalCase(b)
	env := mustDecode(b, body)
	b.Run("envelope", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !f.Match(env) {
				b.Fatal("no match")
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := outreach.DecodeEnvelope(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("body", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ok, err := f.MatchBody(body); !ok || err != nil {
				b.Fatal(ok, err)
			}
		}
	})
}

// BenchmarkParseFilter: compiling a filter, with the catalogue check (a client's filter) and
// without it (a saved one): why the fan-out compiles once per destination and keeps it.
func BenchmarkParseFilter(b *testing.B) {
	f, _ := typicalCase(b)
	raw := f.Raw()
	b.Run("checked", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := outreach.ParseFilter(raw, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("saved", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := outreach.CompileFilter(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
