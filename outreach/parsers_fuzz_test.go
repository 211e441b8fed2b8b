package outreach

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzParseHardFilters: any bytes either parse into filters that validate, survive a JSON
// round trip unchanged in meaning, and evaluate without panicking — or are refused with
// ErrInvalidFilters (the API's 422), never anything else.
func FuzzParseHardFilters(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `{"locations":{"include":["Berlin"],"exclude":["Paris"]}}`,
		`{"company_size":{"min":11,"max":200}}`, `{"company_size":{"min":500,"max":10}}`,
		`{"roles":{"include":["cto"],"exclude":["CTO"]}}`, `{"nope":1}`, `[`, `{"follower_count":{"min":-1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		hf, err := ParseHardFilters(raw)
		if err != nil {
			if !errors.Is(err, ErrInvalidFilters) {
				t.Fatalf("error %v does not wrap ErrInvalidFilters", err)
			}
			return
		}
		if err := hf.Validate(); err != nil {
			t.Fatalf("parsed filters do not validate: %v", err)
		}
		again, err := json.Marshal(hf)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseHardFilters(again); err != nil {
			t.Fatalf("re-parsing %s: %v", again, err)
		}
		loc, size, n := "Berlin, Germany", "51-200", 10
		for _, final := range []bool{false, true} {
			v := hf.Evaluate(Facts{Location: &loc, CompanySize: &size, FollowerCount: &n}, final)
			if v.Verdict != VerdictAccepted && v.Verdict != VerdictRejected && v.Verdict != VerdictPending {
				t.Fatalf("verdict %q", v.Verdict)
			}
			if v.Verdict == VerdictPending && final {
				t.Fatal("a final evaluation left the verdict pending")
			}
		}
	})
}

// FuzzParseSchedule and sequences: refusals wrap ErrInvalid (the API's 400); accepted input
// never panics and a parsed schedule re-parses to itself.
func FuzzParseCampaignParts(f *testing.F) {
	for _, s := range []string{`{"timezone":"Europe/Berlin","workingDays":[1,2,3],"startTime":"08:00","endTime":"17:00"}`,
		`{"timezone":"Mars/Olympus"}`, `{"startTime":"25:00"}`, `[{"type":"connect","text":"Hi"},{"type":"message","delay_days":2,"text":"x"}]`,
		`[{"type":"message","attachments":[{"url":"javascript:x","name":"a.exe"}]}]`, `null`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sch, err := ParseSchedule(raw)
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("schedule error %v does not wrap ErrInvalid", err)
		}
		if err == nil {
			again, _ := json.Marshal(sch)
			if _, err := ParseSchedule(again); err != nil {
				t.Fatalf("re-parsing schedule %s: %v", again, err)
			}
		}
		for _, typ := range []string{"outbound", "inbound"} {
			if _, _, err := ParseSequence(raw, typ); err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("sequence error %v does not wrap ErrInvalid", err)
			}
		}
	})
}
