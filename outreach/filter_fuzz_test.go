package outreach_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"outreachd/outreach"
)

// filterSeeds are filters of every shape the tests use, for both fuzz targets.
var filterSeeds = []string{
	`{}`, `{"event":"call_booked"}`, `{"data":{"message":{"sentiment":"positive"}}}`,
	`{"data.message.sentiment":{"$neq":"negative"}}`, `{"data.campaign":{"$exists":false}}`,
	`{"data.message.recent_conversation.from_me":false}`, `{"data.report.stats.bookings":{"$gte":3.0}}`,
	`{"data.prospect":{"company":"Acme Analytics","follower_count":{"$gt":2000,"$lt":2140.5}}}`,
	`{"timestamp":{"$gte":"2026-11-25","$lt":"2026-11-26T00:00:00+01:00"}}`,
	`{"$or":[{"event":"call_booked"},{"data.booking.failure_reason":{"$exists":true}}]}`,
	`{"$and":[{"data.campaign":{"$exists":true}},{"$not":{"data.campaign.stats.replies":{"$lt":8}}}]}`,
	`{"data.message.sentiment":{"$not":{"$in":["negative","neutral"]}}}`,
	`{"data.prospect":{"$or":[{"location":"Paris"},{"follower_count":{"$lt":100}}]}}`,
	`{"p":{"$or":[{"$eq":1},{"$gt":5}]}}`, `{"tags":{"$nin":["c","a"]}}`, `{"x":null}`, `{"s":"a&b \u00e9"}`,
	`{"data.campaign.stats.prospects_by_status.pending":120}`, `{"$regex":"x"}`, `{"data..id":1}`, `[1]`,
	`{"a":{"$in":[]}}`, `{"$not":{"$not":{"$not":{"$not":{"$not":{"$not":{"$not":{"data.test":true}}}}}}}}`,
}

// selections are the event selections the fuzzed filters are checked against.
var selections = [][]outreach.EventKind{nil, {outreach.EventReplyReceived}, {outreach.EventCampaignStarted, outreach.EventPostPublished}}

// FuzzParseFilter: any bytes are either refused with an InvalidInputError naming a place in the
// filter, or give a filter that compiles again from its Raw to the same filter (same Raw, same
// verdict on every sample), within the limits, and that CompileFilter accepts too.
func FuzzParseFilter(f *testing.F) {
	for _, s := range filterSeeds {
		f.Add([]byte(s), uint8(0))
	}
	var envs []*outreach.Envelope
	for _, body := range sampleBodies(f) {
		envs = append(envs, mustDecode(f, body))
	}
	f.Fuzz(func(t *testing.T, raw []byte, sel uint8) {
		kinds := selections[int(sel)%len(selections)]
		flt, err := outreach.ParseFilter(raw, kinds)
		if err != nil {
			ie, ok := errors.AsType[*outreach.InvalidInputError](err)
			if !ok || !errors.Is(err, outreach.ErrInvalid) || !strings.HasPrefix(ie.Field, "filter") || ie.Message != ie.Field+": "+ie.Problem {
				t.Fatalf("refusal %v (%T) is not an InvalidInputError naming its place", err, err)
			}
			return
		}
		if len(flt.Raw()) > outreach.MaxFilterBytes || !json.Valid(flt.Raw()) {
			t.Fatalf("accepted filter of %d bytes: %s", len(flt.Raw()), flt.Raw())
		}
		again, err := outreach.ParseFilter(flt.Raw(), kinds)
		if err != nil {
			t.Fatalf("Raw %s does not parse again: %v", flt.Raw(), err)
		}
		saved, err := outreach.CompileFilter(flt.Raw())
		if err != nil {
			t.Fatalf("CompileFilter refused what ParseFilter accepted: %v", err)
		}
		if string(again.Raw()) != string(flt.Raw()) || string(saved.Raw()) != string(flt.Raw()) {
			t.Fatalf("Raw changed: %s, %s, %s", flt.Raw(), again.Raw(), saved.Raw())
		}
		for _, env := range envs {
			if m := flt.Match(env); m != again.Match(env) || m != saved.Match(env) {
				t.Fatalf("%s: the filter parsed again decides %s differently", flt.Raw(), env.Kind())
			}
		}
	})
}

// FuzzFilterMatch: DecodeEnvelope accepts exactly the bodies that are JSON objects, and a
// compiled filter decides every envelope as refMatch, a direct reading of the rules over the
// same decoded values, does.
func FuzzFilterMatch(f *testing.F) {
	bodies := sampleBodies(f)
	for i, s := range filterSeeds {
		k := outreach.AllEventKinds()[i%len(outreach.AllEventKinds())]
		f.Add([]byte(s), bodies[k])
	}
	for _, pair := range [][2]string{
		{`{"tags":"a"}`, `{"tags":[["b"],["a"]]}`}, {`{"turns.x":{"$exists":true}}`, `{"turns":[{"text":"hi"},{"x":null}]}`},
		{`{"s":"\ufffd"}`, "{\"s\":\"\xff\"}"}, {`{"s":"b"}`, `{"s":"a","s":"b"}`}, {`{"n":1}`, `{"n":1.0e0}`},
		{`{"t":{"$lt":"2026-01-01T01:00:00+02:00"}}`, `{"t":"2025-12-31T22:30:00Z"}`}, {`{"s":"😀"}`, `{"s":"\ud83d\ude00\ud800"}`},
	} {
		f.Add([]byte(pair[0]), []byte(pair[1]))
	}
	f.Fuzz(func(t *testing.T, filterRaw, body []byte) {
		var ref any
		jerr := json.Unmarshal(body, &ref)
		_, isObject := ref.(map[string]any)
		env, err := outreach.DecodeEnvelope(body)
		if (err == nil) != (jerr == nil && isObject) {
			t.Fatalf("DecodeEnvelope(%q): %v; encoding/json: %v, an object: %t", body, err, jerr, isObject)
		}
		flt, ferr := outreach.CompileFilter(filterRaw)
		if err != nil || ferr != nil {
			return
		}
		var refFilter map[string]any
		if err := json.Unmarshal(flt.Raw(), &refFilter); err != nil {
			t.Fatal(err)
		}
		if got, want := flt.Match(env), refMatch(refFilter, nil, ref); got != want {
			t.Fatalf("%s on %s: %t, the reference says %t", flt.Raw(), body, got, want)
		}
	})
}

// refMatch is the filter rules read directly, over encoding/json's values: every member of obj
// holds for the values at path at.
func refMatch(obj map[string]any, at []string, env any) bool {
	for k, v := range obj {
		if !refMember(k, v, at, env) {
			return false
		}
	}
	return true
}

func refMember(k string, arg any, at []string, env any) bool {
	vals := refValues(env, at)
	switch k {
	case "$and", "$or":
		for _, e := range arg.([]any) {
			if refMatch(e.(map[string]any), at, env) == (k == "$or") {
				return k == "$or"
			}
		}
		return k == "$and"
	case "$not":
		return !refMatch(arg.(map[string]any), at, env)
	case "$exists":
		return refExists(env, at) == arg.(bool)
	case "$eq", "$neq":
		return slices.ContainsFunc(vals, func(v any) bool { return refEqual(v, arg) }) == (k == "$eq")
	case "$in", "$nin":
		in := slices.ContainsFunc(vals, func(v any) bool {
			return slices.ContainsFunc(arg.([]any), func(c any) bool { return refEqual(v, c) })
		})
		return in == (k == "$in")
	case "$gt", "$gte", "$lt", "$lte":
		return slices.ContainsFunc(vals, func(v any) bool { return refOrder(k, v, arg) })
	}
	path := append(slices.Clone(at), strings.Split(k, ".")...)
	if m, ok := arg.(map[string]any); ok {
		return refMatch(m, path, env)
	}
	return refMember("$eq", arg, path, env)
}

// refValues is every value at path that is not an array; an array stands for its elements.
func refValues(v any, path []string) []any {
	if a, ok := v.([]any); ok {
		var out []any
		for _, e := range a {
			out = append(out, refValues(e, path)...)
		}
		return out
	}
	if len(path) == 0 {
		return []any{v}
	}
	if m, ok := v.(map[string]any); ok {
		if c, ok := m[path[0]]; ok {
			return refValues(c, path[1:])
		}
	}
	return nil
}

func refExists(v any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		c, ok := x[path[0]]
		return ok && refExists(c, path[1:])
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return refExists(e, path) })
	}
	return false
}

func refEqual(v, lit any) bool {
	if _, ok := v.(map[string]any); ok {
		return false
	}
	return v == lit
}

func refOrder(op string, v, arg any) bool {
	var c int
	switch a := arg.(type) {
	case float64:
		x, ok := v.(float64)
		if !ok {
			return false
		}
		c = map[bool]int{true: -1, false: 0}[x < a] + map[bool]int{true: 1, false: 0}[x > a]
	case string:
		s, ok := v.(string)
		if !ok {
			return false
		}
		x, err1 := refTime(s)
		y, err2 := refTime(a)
		if err1 != nil || err2 != nil {
			return false
		}
		c = x.Compare(y)
	}
	switch op {
	case "$gt":
		return c > 0
	case "$gte":
		return c >= 0
	case "$lt":
		return c < 0
	}
	return c <= 0
}

func refTime(s string) (time.Time, error) {
	if len(s) == len(time.DateOnly) {
		return time.Parse(time.DateOnly, s)
	}
	return time.Parse(time.RFC3339Nano, s)
}
