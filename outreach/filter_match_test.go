package outreach_test

import (
	"encoding/json"
	"slices"
	"sort"
	"testing"
	"time"

	"outreachd/outreach"
)

// sampleAt is the time every sample of these tests is stamped with, so times are known.
var sampleAt = time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)

// sampleBodies is the body of every kind's sample, as the outbox stores it, in catalogue order.
func sampleBodies(t testing.TB) map[outreach.EventKind][]byte {
	t.Helper()
	out := map[outreach.EventKind][]byte{}
	for _, k := range outreach.AllEventKinds() {
		body, err := json.Marshal(outreach.SampleEvent(k, "org_sample", sampleAt))
		if err != nil {
			t.Fatal(err)
		}
		out[k] = body
	}
	return out
}

func mustDecode(t testing.TB, body []byte) *outreach.Envelope {
	t.Helper()
	env, err := outreach.DecodeEnvelope(body)
	if err != nil {
		t.Fatalf("DecodeEnvelope(%s): %v", body, err)
	}
	return env
}

// leaves lists every scalar of a decoded JSON value with its filter path (arrays add no segment).
func leaves(prefix string, v any, out map[string][]any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			leaves(p, e, out)
		}
	case []any:
		for _, e := range x {
			leaves(prefix, e, out)
		}
	default:
		out[prefix] = append(out[prefix], x)
	}
}

func jsonText(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFilterMatchesEverySampleField: for every kind, every value of its sample can be filtered
// on with that kind selected (so the catalogue check and the samples agree), and the tests
// that must hold for it hold and their negations do not.
func TestFilterMatchesEverySampleField(t *testing.T) {
	for k, body := range sampleBodies(t) {
		env := mustDecode(t, body)
		if env.Kind() != k {
			t.Fatalf("Kind() = %q, want %q", env.Kind(), k)
		}
		var decoded any
		if err := json.Unmarshal(body, &decoded); err != nil {
			t.Fatal(err)
		}
		fields := map[string][]any{}
		leaves("", decoded, fields)
		for path, values := range fields {
			for _, v := range values {
				lit := jsonText(t, v)
				must := []string{`{"` + path + `":` + lit + `}`, `{"` + path + `":{"$exists":true}}`,
					`{"` + path + `":{"$in":[` + lit + `]}}`, `{"$or":[{"` + path + `":{"$exists":false}},{"` + path + `":{"$eq":` + lit + `}}]}`}
				mustNot := []string{`{"` + path + `":{"$neq":` + lit + `}}`, `{"` + path + `":{"$nin":[` + lit + `]}}`,
					`{"` + path + `":{"$exists":false}}`, `{"$not":{"` + path + `":` + lit + `}}`}
				switch x := v.(type) {
				case float64:
					must = append(must, `{"`+path+`":{"$gte":`+lit+`,"$lte":`+lit+`}}`)
					mustNot = append(mustNot, `{"`+path+`":{"$gt":`+lit+`}}`)
					if slices.Equal(values, []any{v}) {
						mustNot = append(mustNot, `{"`+path+`":{"$lt":`+lit+`}}`)
					}
				case string:
					if _, err := time.Parse(time.RFC3339Nano, x); err == nil && slices.Equal(values, []any{v}) {
						must = append(must, `{"`+path+`":{"$gte":`+lit+`,"$lte":`+lit+`}}`)
						mustNot = append(mustNot, `{"`+path+`":{"$gt":`+lit+`}}`, `{"`+path+`":{"$lt":`+lit+`}}`)
					}
				}
				for _, raw := range append(must, mustNot...) {
					f, err := outreach.ParseFilter([]byte(raw), []outreach.EventKind{k})
					if err != nil {
						t.Errorf("%s: %s refused: %v", k, raw, err)
						continue
					}
					if want := slices.Contains(must, raw); f.Match(env) != want {
						t.Errorf("%s: %s matched %t, want %t", k, raw, !want, want)
					}
				}
			}
		}
	}
}

// TestFilterMatchSamples: filters an integrator would write, against the sample of every kind:
// exactly the listed kinds match.
func TestFilterMatchSamples(t *testing.T) {
	conversations := []outreach.EventKind{"reply_received", "reply_positive", "reply_negative", "needs_human"}
	tests := []struct {
		name, raw string
		want      []outreach.EventKind // nil: every kind
	}{
		{"empty filter", `{}`, nil},
		{"kind", `{"event":"call_booked"}`, []outreach.EventKind{"call_booked"}},
		{"positive replies", `{"data.message.sentiment":"positive"}`, []outreach.EventKind{"reply_positive"}},
		{"nested objects as paths", `{"data":{"message":{"sentiment":"positive"}}}`, []outreach.EventKind{"reply_positive"}},
		{"$neq holds on a missing field", `{"data.message.sentiment":{"$neq":"negative"}}`, without(outreach.AllEventKinds(), "reply_negative")},
		{"no campaign", `{"data.campaign":{"$exists":false}}`, []outreach.EventKind{"post_published", "post_scheduled", "account_rate_limited",
			"account_disconnected", "account_reconnected", "sales_nav_unavailable", "sales_nav_restored", "report_generated",
			"market_analysis_generated", "daily_digest"}},
		{"array of objects, any element", `{"data.message.recent_conversation.from_me":false}`, conversations},
		{"$nin on an array: no element", `{"data.message":{"$exists":true},"data.message.recent_conversation.from_me":{"$nin":[false]}}`, []outreach.EventKind{"message_sent"}},
		{"numbers", `{"data.report.stats.bookings":{"$gte":3.0}}`, []outreach.EventKind{"report_generated"}},
		{"integer map", `{"data.campaign.stats.prospects_by_status.pending":120}`, []outreach.EventKind{"campaign_started"}},
		{"range in one object", `{"data.prospect":{"company":"Acme Analytics","follower_count":{"$gt":2000,"$lt":2140.5}}}`, withBlock(t, "prospect")},
		{"time after", `{"data.account.cooldown_until":{"$gt":"2026-11-26T05:59:59.999Z"}}`, []outreach.EventKind{"account_rate_limited"}},
		{"time with an offset", `{"data.account.cooldown_until":{"$lte":"2026-11-26T07:00:00+01:00"}}`, []outreach.EventKind{"account_rate_limited"}},
		{"date", `{"timestamp":{"$gte":"2026-11-25","$lt":"2026-11-26"}}`, nil},
		{"date before", `{"timestamp":{"$lt":"2026-11-25"}}`, []outreach.EventKind{}},
		{"$or of kinds and fields", `{"$or":[{"event":"call_booked"},{"data.booking.failure_reason":{"$exists":true}}]}`,
			[]outreach.EventKind{"call_booked", "auto_booking_failed"}},
		{"$and with $not", `{"$and":[{"data.campaign":{"$exists":true}},{"$not":{"data.campaign.stats.replies":{"$lt":8}}}]}`,
			without(withBlock(t, "campaign"), "campaign_started")},
		{"$not inside a field", `{"data.message.sentiment":{"$not":{"$in":["negative","neutral"]}}}`,
			without(outreach.AllEventKinds(), "reply_received", "reply_negative", "needs_human")},
		{"$or inside a field, relative paths", `{"data.prospect":{"$or":[{"location":"Paris"},{"follower_count":{"$lt":100}}]}}`, []outreach.EventKind{}},
		{"reply_received selects its kind, not its subkinds", `{"event":{"$in":["reply_received","needs_human"]},"data.test":true}`,
			[]outreach.EventKind{"reply_received", "needs_human"}},
		{"booleans", `{"data.test":false}`, []outreach.EventKind{}},
		{"case matters", `{"data.prospect.company":"acme analytics"}`, []outreach.EventKind{}},
	}
	bodies := sampleBodies(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := outreach.ParseFilter([]byte(tc.raw), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = outreach.AllEventKinds()
			}
			var got []outreach.EventKind
			for _, k := range outreach.AllEventKinds() {
				if f.Match(mustDecode(t, bodies[k])) {
					got = append(got, k)
				}
			}
			if !sameKinds(got, want) {
				t.Errorf("%s matched %v, want %v", tc.raw, got, want)
			}
		})
	}
}

// withBlock lists the kinds whose sample carries block.
func withBlock(t *testing.T, block string) []outreach.EventKind {
	t.Helper()
	var out []outreach.EventKind
	for _, k := range outreach.AllEventKinds() {
		if slices.Contains(k.Blocks(), block) || slices.Contains(k.OptionalBlocks(), block) {
			out = append(out, k)
		}
	}
	return out
}

func without(kinds []outreach.EventKind, drop ...outreach.EventKind) []outreach.EventKind {
	return slices.DeleteFunc(slices.Clone(kinds), func(k outreach.EventKind) bool { return slices.Contains(drop, k) })
}

func sameKinds(a, b []outreach.EventKind) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Slice(a, func(i, j int) bool { return a[i] < a[j] })
	sort.Slice(b, func(i, j int) bool { return b[i] < b[j] })
	return slices.Equal(a, b)
}

// TestFilterSemantics: the corners of the language on hand-made envelopes (CompileFilter, so
// fields need not be in the catalogue).
func TestFilterSemantics(t *testing.T) {
	tests := []struct {
		name, filter, body string
		want               bool
	}{
		{"1 == 1.0", `{"n":1}`, `{"n":1.0}`, true},
		{"1e2 == 100", `{"n":{"$in":[7,1e2]}}`, `{"n":100}`, true},
		{"-0 == 0", `{"n":-0}`, `{"n":0}`, true},
		{"no coercion", `{"n":"1"}`, `{"n":1}`, false},
		{"numbers order", `{"n":{"$gt":0.5,"$lte":1}}`, `{"n":1}`, true},
		{"a number is not a time", `{"n":{"$gt":"2026-01-01"}}`, `{"n":20270101}`, false},
		{"null equals null", `{"x":null}`, `{"x":null}`, true},
		{"null is not missing", `{"x":null}`, `{}`, false},
		{"$exists on null", `{"x":{"$exists":true}}`, `{"x":null}`, true},
		{"$exists false on null", `{"x":{"$exists":false}}`, `{"x":null}`, false},
		{"$exists false on missing", `{"x":{"$exists":false}}`, `{"y":1}`, true},
		{"$neq null on missing", `{"x":{"$neq":null}}`, `{}`, true},
		{"$gt on missing", `{"x":{"$gt":1}}`, `{}`, false},
		{"$nin on missing", `{"x":{"$nin":[1]}}`, `{}`, true},
		{"contains", `{"tags":"a"}`, `{"tags":["b","a"]}`, true},
		{"empty array contains nothing", `{"tags":"a"}`, `{"tags":[]}`, false},
		{"$exists on an empty array", `{"tags":{"$exists":true}}`, `{"tags":[]}`, true},
		{"$in on an array: any element", `{"tags":{"$in":["c","a"]}}`, `{"tags":["a","b"]}`, true},
		{"$nin on an array: no element", `{"tags":{"$nin":["c","a"]}}`, `{"tags":["a","b"]}`, false},
		{"$neq on an array: no element", `{"tags":{"$neq":"c"}}`, `{"tags":["a","b"]}`, true},
		{"nested arrays", `{"tags":"a"}`, `{"tags":[["b"],["a"]]}`, true},
		{"$gt on an array: any element", `{"n":{"$gt":5}}`, `{"n":[1,9]}`, true},
		{"each test on its own element", `{"turns":{"from_me":false,"text":"hi"}}`, `{"turns":[{"from_me":false,"text":"yo"},{"from_me":true,"text":"hi"}]}`, true},
		{"through an array of objects", `{"turns.text":"yo"}`, `{"turns":[{"text":"hi"},{"x":1},3,{"text":"yo"}]}`, true},
		{"$exists through an array", `{"turns.x":{"$exists":true}}`, `{"turns":[{"text":"hi"},{"x":null}]}`, true},
		{"below a scalar", `{"a.b":1}`, `{"a":1}`, false},
		{"below a missing object", `{"a.b.c":{"$exists":false}}`, `{"a":{}}`, true},
		{"strings are exact", `{"s":"Acme"}`, `{"s":"acme"}`, false},
		{"escapes are decoded", `{"s":"a&b <c> \"d\" é 😀"}`, `{"s":"a\u0026b \u003cc\u003e \"d\" \u00e9 \ud83d\ude00"}`, true},
		{"invalid UTF-8 reads as U+FFFD", `{"s":"\ufffd"}`, "{\"s\":\"\xff\"}", true},
		{"a lone surrogate reads as U+FFFD", `{"s":"\ufffdA"}`, `{"s":"\ud800\u0041"}`, true},
		{"escaped names", `{"st.x":1}`, `{"s\u0074":{"\u0078":1}}`, true},
		{"last duplicate wins", `{"s":"b"}`, `{"s":"a","s":"b"}`, true},
		{"times by instant", `{"t":{"$gt":"2026-01-01"}}`, `{"t":"2026-01-01T00:00:00.001Z"}`, true},
		{"times: equal is not greater", `{"t":{"$gt":"2026-01-01T00:00:00Z"}}`, `{"t":"2026-01-01T00:00:00.000Z"}`, false},
		{"times: offsets", `{"t":{"$lt":"2026-01-01T01:00:00+02:00"}}`, `{"t":"2025-12-31T23:30:00Z"}`, false},
		{"times: offsets, before", `{"t":{"$lt":"2026-01-01T01:00:00+02:00"}}`, `{"t":"2025-12-31T22:30:00Z"}`, true},
		{"a string that is not a time", `{"t":{"$lt":"2026-01-01"}}`, `{"t":"2025-12-31/2026-01-07"}`, false},
		{"a date field", `{"day":{"$gte":"2026-11-24T00:00:00Z"}}`, `{"day":"2026-11-24"}`, true},
		{"$or", `{"$or":[{"a":1},{"b":2}]}`, `{"b":2}`, true},
		{"$and", `{"$and":[{"a":1},{"b":2}]}`, `{"b":2}`, false},
		{"$not", `{"$not":{"a":1,"b":2}}`, `{"a":1}`, true},
		{"logic inside a field", `{"p":{"$or":[{"a":1},{"b":{"$in":[2,3]}}],"$not":{"c":true}}}`, `{"p":{"b":3,"c":false}}`, true},
		{"operators inside $or inside a field", `{"p":{"$or":[{"$eq":1},{"$gt":5}]}}`, `{"p":7}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := outreach.CompileFilter([]byte(tc.filter))
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Match(mustDecode(t, []byte(tc.body))); got != tc.want {
				t.Errorf("%s on %s: %t, want %t", tc.filter, tc.body, got, tc.want)
			}
			if got, err := f.MatchBody([]byte(tc.body)); err != nil || got != tc.want {
				t.Errorf("MatchBody: %t, %v", got, err)
			}
		})
	}
}

// TestFilterMatchNil: no filter and the empty filter match anything, even no envelope; another
// filter matches no missing envelope.
func TestFilterMatchNil(t *testing.T) {
	var none *outreach.Filter
	empty, err := outreach.ParseFilter([]byte(` { } `), nil)
	if err != nil {
		t.Fatal(err)
	}
	some, err := outreach.ParseFilter([]byte(`{"data.test":true}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !none.Match(nil) || !empty.Match(nil) || some.Match(nil) {
		t.Fatalf("nil envelope: none %t, empty %t, some %t", none.Match(nil), empty.Match(nil), some.Match(nil))
	}
	if ok, err := empty.MatchBody([]byte("not JSON")); !ok || err != nil {
		t.Fatalf("the empty filter decoded the body: %t %v", ok, err)
	}
	if string(empty.Raw()) != "{}" || none.Raw() != nil {
		t.Fatalf("Raw: %q, %q", empty.Raw(), none.Raw())
	}
}

// TestMatchingCount: the preview counts what a destination with this selection and filter would
// have received.
func TestMatchingCount(t *testing.T) {
	var envs []*outreach.Envelope
	for _, k := range outreach.AllEventKinds() {
		envs = append(envs, mustDecode(t, sampleBodies(t)[k]))
	}
	envs = append(envs, nil)
	positive, err := outreach.ParseFilter([]byte(`{"data.message.sentiment":"positive"}`), replyKinds)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		filter *outreach.Filter
		kinds  []outreach.EventKind
		want   int
	}{
		{"all, no filter", nil, nil, len(outreach.AllEventKinds())},
		{"all, by name", nil, []outreach.EventKind{outreach.EventsAll}, len(outreach.AllEventKinds())},
		{"reply_received and its subkinds", nil, replyKinds, 3},
		{"filtered", positive, replyKinds, 1},
		{"filtered, not selected", positive, []outreach.EventKind{outreach.EventCallBooked}, 0},
	}
	for _, tc := range tests {
		if got := outreach.MatchingCount(tc.filter, tc.kinds, envs); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestDecodeEnvelope refuses what is not a JSON object.
func TestDecodeEnvelope(t *testing.T) {
	for _, body := range []string{``, `[]`, `"x"`, `{"event":"a"} {}`, `{"event":}`, `{"a":01}`, "{\"a\":\"\x01\"}", `{"a":"\x"}`, `{"a":1e999}`} {
		if _, err := outreach.DecodeEnvelope([]byte(body)); err == nil {
			t.Errorf("DecodeEnvelope(%q) accepted", body)
		}
	}
	env := mustDecode(t, []byte(` {"event":"call_booked","data":{}} `))
	if env.Kind() != outreach.EventCallBooked {
		t.Fatalf("Kind() = %q", env.Kind())
	}
}
