package outreach_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"outreachd/outreach"
)

var replyKinds = []outreach.EventKind{outreach.EventReplyReceived}

const operatorList = "$eq, $neq, $in, $nin, $exists, $gt, $gte, $lt, $lte, $and, $or, $not"

// TestParseFilterRefuses: every refusal is an InvalidInputError (a 400) whose message names the
// place in the filter and the problem, the whole sentence checked.
func TestParseFilterRefuses(t *testing.T) {
	tests := []struct {
		name, raw string
		kinds     []outreach.EventKind
		want      string
	}{
		{"not JSON", `{"data.test":`, nil, "filter: malformed JSON at byte 13: unexpected end of JSON input"},
		{"a bad character", "{\"data.test\":\n  tru}", nil, "filter: malformed JSON at byte 20: invalid character '}' in literal true (expecting 'e')"},
		{"array", `[{"event":"reply_received"}]`, nil, "filter: must be a JSON object, got an array"},
		{"null", `null`, nil, "filter: must be a JSON object, got null"},
		{"string", `"reply_received"`, nil, "filter: must be a JSON object, got a string"},
		{"number out of range", `{"data.prospect.follower_count": 1e400}`, nil, "filter: the number 1e400 at byte 33 is out of range"},
		{"unknown operator at the top", `{"$regex":"x"}`, nil, "filter.$regex: unknown operator $regex (the operators are " + operatorList + ")"},
		{"unknown operator in a field", `{"data.campaign.id":{"$exist":true}}`, nil,
			"filter.data.campaign.id.$exist: unknown operator $exist (the operators are " + operatorList + ")"},
		{"operator in a path", `{"data.$in":["x"]}`, nil, `filter.data.$in: "$in" is neither a field name nor an operator (the operators are ` + operatorList + ")"},
		{"comparison without a field", `{"$gt":1}`, nil, `filter: $gt needs a field: write {"<field path>": {"$gt": ...}}`},
		{"empty segment", `{"data..id":"x"}`, nil, "filter.data..id: a field path has no empty segments (a path is names joined by dots)"},
		{"trailing dot", `{"data.campaign.":"x"}`, nil, "filter.data.campaign.: a field path has no empty segments (a path is names joined by dots)"},
		{"duplicate name", `{"data.test":true,"data.test":false}`, nil, "filter.data.test: appears twice"},
		{"empty object", `{"data":{"campaign":{}}}`, nil, `filter.data.campaign: an empty object tests nothing (to test that the field is there, write {"$exists": true})`},
		{"array literal", `{"data.campaign.id":["a","b"]}`, nil, `filter.data.campaign.id: an array is not a value to compare; {"$in": [...]} matches any of several values`},
		{"$in not an array", `{"data.campaign.id":{"$in":"cmp_1"}}`, nil, `filter.data.campaign.id: $in needs a non-empty array of values, got the string "cmp_1"`},
		{"$nin empty", `{"data.campaign.id":{"$nin":[]}}`, nil, "filter.data.campaign.id: $nin needs a non-empty array of values, got an empty array"},
		{"$in of objects", `{"data.campaign.id":{"$in":["a",{"b":1}]}}`, nil, "filter.data.campaign.id.$in[1]: $in values are strings, numbers, booleans or null, got an object"},
		{"$exists not a boolean", `{"data.campaign":{"$exists":"yes"}}`, nil, `filter.data.campaign: $exists needs true or false, got the string "yes"`},
		{"$eq an object", `{"data.campaign.id":{"$eq":{"x":1}}}`, nil, "filter.data.campaign.id: $eq needs a string, number, boolean or null, got an object"},
		{"$and not an array", `{"$and":{"data.test":true}}`, nil, "filter.$and: $and needs a non-empty array of objects, got an object"},
		{"$or empty", `{"$or":[]}`, nil, "filter.$or: $or needs a non-empty array of objects, got an empty array"},
		{"$or of a string", `{"$or":[{"data.test":true},{"data.test":false},"x"]}`, nil, `filter.$or[2]: $or needs non-empty objects, got the string "x"`},
		{"$or of an empty object", `{"$or":[{}]}`, nil, "filter.$or[0]: $or needs non-empty objects, got an empty object"},
		{"$not an array", `{"$not":[{"data.test":true}]}`, nil, "filter: $not needs a non-empty object, got an array"},
		{"$not in a field empty", `{"data.campaign.id":{"$not":{}}}`, nil, "filter.data.campaign.id: $not needs a non-empty object, got an empty object"},
		{"$gt a boolean", `{"data":{"campaign":{"id":{"$gt":true}}}}`, nil,
			"filter.data.campaign.id: $gt needs a number or a time (an RFC 3339 timestamp or a YYYY-MM-DD date), got true"},
		{"$lt a plain string", `{"data.prospect.name":{"$lt":"M"}}`, nil,
			`filter.data.prospect.name: $lt compares numbers or times, and "M" is neither (a time is an RFC 3339 timestamp such as 2026-01-31T09:00:00Z, or a date such as 2026-01-31)`},
		// The catalogue check.
		{"$gt a number on a string field", `{"data.prospect.name":{"$gt":5}}`, nil,
			"filter.data.prospect.name: $gt compares the number 5 with data.prospect.name, which is a string"},
		{"$gte a time on a number field", `{"$or":[{"event":"reply_received"},{"data.prospect.follower_count":{"$gte":"2026-01-01"}}]}`, nil,
			`filter.$or[1].data.prospect.follower_count: $gte compares the time "2026-01-01" with data.prospect.follower_count, which is an integer`},
		{"number literal on a string field", `{"data.campaign.id":1}`, nil, "filter.data.campaign.id: the number 1 is compared with data.campaign.id, which is a string"},
		{"string on an integer map", `{"data.campaign.stats.prospects_by_status.pending":"40"}`, nil,
			`filter.data.campaign.stats.prospects_by_status.pending: the string "40" is compared with data.campaign.stats.prospects_by_status.pending, which is an integer`},
		{"null on a non-null field", `{"data.campaign.id":{"$neq":null}}`, nil, "filter.data.campaign.id: $neq compares null with data.campaign.id, which is a string"},
		{"$in element of the wrong type", `{"data.test":{"$in":[true,"false"]}}`, nil, `filter.data.test: $in compares the string "false" with data.test, which is a boolean`},
		{"literal on an array of objects", `{"data.message.recent_conversation":"hi"}`, nil,
			`filter.data.message.recent_conversation: the string "hi" is compared with data.message.recent_conversation, which is an array of objects or null`},
		{"inside arrays", `{"data.message.recent_conversation":{"from_me":"yes"}}`, nil,
			`filter.data.message.recent_conversation.from_me: the string "yes" is compared with data.message.recent_conversation.from_me, which is a boolean`},
		{"unknown field, every kind", `{"data.campaign.idd":"cmp_1"}`, nil,
			"filter.data.campaign.idd: data.campaign.idd is not a field of any event kind (GET /event-types lists the fields of each)"},
		{"unknown top-level field", `{"id":{"$exists":true}}`, []outreach.EventKind{outreach.EventsAll},
			"filter.id: id is not a field of any event kind (GET /event-types lists the fields of each)"},
		{"field of other kinds", `{"$not":{"data.post.url":{"$exists":true}}}`, replyKinds,
			"filter.$not.data.post.url: data.post.url is not a field of reply_received, reply_positive or reply_negative events (GET /event-types lists the fields of each)"},
		{"field of other kinds, one kind", `{"data.booking.provider":"calendly"}`, []outreach.EventKind{outreach.EventCampaignStarted},
			"filter.data.booking.provider: data.booking.provider is not a field of campaign_started events (GET /event-types lists the fields of each)"},
		{"below a scalar", `{"data.campaign.id.x":"y"}`, nil,
			"filter.data.campaign.id.x: data.campaign.id.x is not a field of any event kind (GET /event-types lists the fields of each)"},
		{"unknown event kind", `{"event":{"$nin":["reply_received","reply_recieved"]}}`, nil, `filter.event: unknown event kind "reply_recieved"`},
		{"no known kind selected", `{"data.test":true}`, []outreach.EventKind{"nope"}, "filter: cannot be checked: the destination selects no known event kind"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := outreach.ParseFilter([]byte(tc.raw), tc.kinds)
			if err == nil {
				t.Fatalf("ParseFilter(%s) accepted: %s", tc.raw, f)
			}
			ie, ok := errors.AsType[*outreach.InvalidInputError](err)
			if !ok || !errors.Is(err, outreach.ErrInvalid) {
				t.Fatalf("error %v (%T) is not an InvalidInputError", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("message\n got %s\nwant %s", err, tc.want)
			}
			if !strings.HasPrefix(tc.want, ie.Field+": ") || ie.Message != ie.Field+": "+ie.Problem {
				t.Errorf("field %q and problem %q do not make the message %q", ie.Field, ie.Problem, ie.Message)
			}
		})
	}
}

// nested wraps inner in levels-1 objects of $not, so the filter has exactly levels levels.
func nested(levels int, inner string) string {
	return strings.Repeat(`{"$not":`, levels-1) + inner + strings.Repeat("}", levels-1)
}

// TestParseFilterDepth: the filter object is level 1 and every object or array inside a level
// is one deeper; 8 levels are accepted and 9 refused, whatever builds the levels.
func TestParseFilterDepth(t *testing.T) {
	tests := []struct {
		name         string
		levels       int
		raw, refused string // raw has exactly levels levels; refused names the place at level 9
	}{
		{"$not", 8, nested(8, `{"data.test":true}`), ""},
		{"$not", 9, nested(9, `{"data.test":true}`), "filter" + strings.Repeat(".$not", 8)},
		{"$in counts", 8, nested(6, `{"data.test":{"$in":[true]}}`), ""},
		{"$in counts", 9, nested(7, `{"data.test":{"$in":[true]}}`), "filter" + strings.Repeat(".$not", 6) + ".data.test.$in"},
		{"$or counts", 8, nested(6, `{"$or":[{"data.test":true}]}`), ""},
		{"$or counts", 9, nested(7, `{"$or":[{"data.test":true}]}`), "filter" + strings.Repeat(".$not", 6) + ".$or[0]"},
		{"nested fields", 8, `{"data":{"campaign":{"stats":{"prospects_by_status":{"pending":{"$not":{"$not":{"$gte":1}}}}}}}}`, ""},
		{"nested fields", 9, `{"data":{"campaign":{"stats":{"prospects_by_status":{"pending":{"$not":{"$not":{"$not":{"$gte":1}}}}}}}}}`,
			"filter.data.campaign.stats.prospects_by_status.pending.$not.$not.$not"},
		{"dotted paths add no level", 1, `{"data.campaign.stats.prospects_by_status.pending":1}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := jsonDepth(t, tc.raw); got != tc.levels {
				t.Fatalf("the test filter has %d levels, not %d: %s", got, tc.levels, tc.raw)
			}
			_, err := outreach.ParseFilter([]byte(tc.raw), nil)
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("%d levels refused: %v", tc.levels, err)
			case tc.refused != "" && (err == nil || err.Error() != tc.refused+": nested deeper than 8 levels"):
				t.Fatalf("%d levels: got %v, want %s: nested deeper than 8 levels", tc.levels, err, tc.refused)
			}
		})
	}
}

// jsonDepth counts levels the way the filter rules do, independently of them.
func jsonDepth(t *testing.T, raw string) int {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatal(err)
	}
	var depth func(v any) int
	depth = func(v any) int {
		deepest := 0
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				deepest = max(deepest, depth(e))
			}
		case []any:
			for _, e := range x {
				deepest = max(deepest, depth(e))
			}
		default:
			return 0
		}
		return deepest + 1
	}
	return depth(v)
}

// TestParseFilterSize: 8192 bytes of compacted JSON are accepted and 8193 refused; whitespace
// between tokens does not count.
func TestParseFilterSize(t *testing.T) {
	sized := func(n int) string {
		head, tail := `{"data.prospect.name":{"$nin":["`, `"]}}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	if f, err := outreach.ParseFilter([]byte(sized(8192)), nil); err != nil || len(f.Raw()) != 8192 {
		t.Fatalf("8192 bytes: %v", err)
	}
	if f, err := outreach.ParseFilter([]byte(strings.ReplaceAll(sized(8192), ":", " : \n\t")), nil); err != nil || len(f.Raw()) != 8192 {
		t.Fatalf("8192 bytes with whitespace: %v", err)
	}
	_, err := outreach.ParseFilter([]byte(sized(8193)), nil)
	if want := "filter: 8193 bytes of JSON, more than the 8192 (8 KB) a filter may have"; err == nil || err.Error() != want {
		t.Fatalf("8193 bytes: got %v, want %s", err, want)
	}
}

// TestFilterRaw: a filter reads back as given, compacted, its names in their order; it
// marshals as that JSON, and what it reads back as parses to the same filter.
func TestFilterRaw(t *testing.T) {
	raw := "{ \"data.prospect\": {\"company\": \"Acme & Co <x>\", \"follower_count\": {\"$gte\": 1.0e3}},\n \"$or\": [ {\"event\": \"reply_positive\"}, {\"event\": \"call_booked\"} ] }"
	want := `{"data.prospect":{"company":"Acme & Co <x>","follower_count":{"$gte":1.0e3}},"$or":[{"event":"reply_positive"},{"event":"call_booked"}]}`
	f, err := outreach.ParseFilter([]byte(raw), nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Raw()) != want {
		t.Fatalf("Raw\n got %s\nwant %s", f.Raw(), want)
	}
	view, err := json.Marshal(struct {
		Filter *outreach.Filter `json:"filter"`
		None   *outreach.Filter `json:"none"`
	}{f, nil})
	if err != nil {
		t.Fatal(err)
	}
	if got := `{"filter":{"data.prospect":{"company":"Acme \u0026 Co \u003cx\u003e","follower_count":{"$gte":1.0e3}},"$or":[{"event":"reply_positive"},{"event":"call_booked"}]},"none":null}`; string(view) != got {
		t.Fatalf("marshalled %s, want %s", view, got)
	}
	again, err := outreach.ParseFilter(f.Raw(), nil)
	if err != nil || string(again.Raw()) != want {
		t.Fatalf("re-parsing Raw: %v, %s", err, again)
	}
}

// TestCompileFilter: a saved filter compiles without the catalogue check (a field the catalogue
// no longer has), but not without the structural rules.
func TestCompileFilter(t *testing.T) {
	if _, err := outreach.CompileFilter([]byte(`{"data.gone":{"$gt":5}}`)); err != nil {
		t.Fatalf("a saved filter naming a field the catalogue lacks: %v", err)
	}
	if _, err := outreach.ParseFilter([]byte(`{"data.gone":{"$gt":5}}`), nil); err == nil {
		t.Fatal("ParseFilter skipped the catalogue check")
	}
	for _, raw := range []string{`{"data.gone":{"$gt":"x"}}`, nested(9, `{"a":1}`), `{"a":{"$foo":1}}`, `[]`} {
		if _, err := outreach.CompileFilter([]byte(raw)); !errors.Is(err, outreach.ErrInvalid) {
			t.Errorf("CompileFilter(%s): %v, want a refusal", raw, err)
		}
	}
}

// TestFilterDocs: the example filter of docs/api.md ("Filters") is accepted and matches the
// sample it is written for, and the refusal it quotes is the one outreachd gives.
func TestFilterDocs(t *testing.T) {
	guide, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(guide), "\n### Filters\n")
	if !ok {
		t.Fatal(`docs/api.md has no "### Filters"`)
	}
	section, _, _ = strings.Cut(section, "\n### ")
	_, example, _ := strings.Cut(section, "```json\n")
	example, _, _ = strings.Cut(example, "```")
	f, err := outreach.ParseFilter([]byte(example), replyKinds)
	if err != nil {
		t.Fatalf("the example filter is refused: %v", err)
	}
	ev := outreach.SampleEvent(outreach.EventReplyPositive, "org_docs", sampleAt)
	ev.Data.Campaign.ID = "cmp_06h12gxsaxwqhavcpbza7hk5e4"
	body, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := f.MatchBody(body); !ok || err != nil {
		t.Fatalf("the example filter does not match a positive reply of its campaign: %t %v", ok, err)
	}
	_, err = outreach.ParseFilter([]byte(`{"$or":[{"event":"reply_received"},{"data.prospect.name":{"$gt":5}}]}`), nil)
	if err == nil || !strings.Contains(strings.Join(strings.Fields(section), " "), "(`"+err.Error()+"`)") {
		t.Fatalf("the refusal docs/api.md quotes is not %v", err)
	}
}
