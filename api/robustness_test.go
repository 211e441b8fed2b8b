package api_test

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"outreachd/internal/testenv"
)

// TestHostileInputNeverAnswers5xx throws malformed, mistyped, oversized and random input at every
// endpoint that takes a body or query parameters, through the built binary, and requires a 4xx
// (or a 2xx where the input happens to be acceptable) — never a 5xx. The bodies are generated
// from a fixed seed so a failure is reproducible.
func TestHostileInputNeverAnswers5xx(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "INBOX_RATE_LIMIT_PER_MINUTE=1000000", "INTAKE_RATE_LIMIT_PER_MINUTE=1000000")
	org := testenv.NewOrg(t, srv, "--rate-limit-per-minute", "1000000")
	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "Robustness"})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	cid := r.JSON["item"].(map[string]any)["id"].(string)
	token := testenv.Admin(t, srv.DBURL, "intake-token", "create", "--campaign", cid)["token"].(string)

	posts := []string{
		"/api/v1/campaigns", "/api/v1/campaigns/" + cid + "/leads", "/api/v1/campaigns/" + cid + "/duplicate",
		"/api/v1/blacklist", "/api/v1/inbox/stop", "/api/v1/inbox/block", "/api/v1/destinations",
		"/api/v1/deliveries/recover", "/api/webhooks/conversions", "/api/webhooks/leads/" + token,
	}
	patches := []string{"/api/v1/prospects/prs_nope"}
	gets := []string{"/api/v1/prospects", "/api/v1/campaigns/" + cid + "/leads", "/api/v1/blacklist",
		"/api/v1/analytics/daily", "/api/v1/needs-human", "/api/v1/stalled-leads", "/api/v1/inbox",
		"/api/v1/deliveries", "/api/v1/campaigns"}

	fixed := []string{
		``, ` `, `null`, `0`, `-1`, `1e999`, `"x"`, `[]`, `{}`, `[{}]`, `{"a":`, `{"a":1}{"b":2}`, "\x00\xff\xfe",
		`{"name": 123}`, `{"name": ["a"]}`, `{"name": null}`, `{"name": "` + strings.Repeat("x", 5000) + `"}`,
		`{"name": "a\u0000b"}`, `{"leads": "x"}`, `{"leads": [1, 2]}`, `{"leads": [{"linkedin_url": 5}]}`,
		`{"leads": [{"linkedin_url": "https://www.linkedin.com/in/ok", "data": {"a": {"b": 1}}}]}`,
		`{"entries": [{"value": null, "type": 7}]}`, `{"linkedin_urls": [null, 1, {}, "x"]}`,
		`{"linkedin_url": "` + strings.Repeat("y", 3000) + `"}`, `{"outcome": "booked", "outcome": 1}`,
		`{"url": "javascript:alert(1)", "events": "all"}`, `{"from": "yesterday", "to": 5}`,
		`{"event_type": ""}`, `{"event_type": "x", "meta": ` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
		`{"meta": {"hard_filters": {"company_size": {"min": "a"}}}}`, `{"schedule": {"startTime": "25:99"}}`,
		`{"sequence": [{"type": "message", "delay_days": -1}]}`, strings.Repeat(`{"a":`, 10000),
		// U+0000 where each endpoint reads text (PostgreSQL refuses it in text and jsonb).
		`{"leads": [{"linkedin_url": "https://www.linkedin.com/in/nul-one", "company": "a\u0000b"}]}`,
		`{"leads": [{"linkedin_url": "https://www.linkedin.com/in/nul-two", "data": {"k\u0000": "v"}}]}`,
		`{"event_type": "a\u0000b"}`, `{"event_type": "ok", "meta": {"x": "a\u0000b"}}`,
		`{"linkedin_url": "zz-q", "reason": "a\u0000b"}`, `{"url": "nul-intake", "company": "a\u0000b"}`,
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 40; i++ {
		fixed = append(fixed, randomJSONish(rng, 4))
	}
	statuses := map[int]int{}
	check := func(method, path string, body any) {
		t.Helper()
		resp := org.Write.Do(t, method, path, body)
		statuses[resp.Status]++
		if resp.Status >= 500 {
			t.Errorf("%s %s with %.80q: %d %s", method, path, fmt.Sprint(body), resp.Status, resp.Body)
		}
	}
	for _, p := range posts {
		for _, b := range fixed {
			check("POST", p, b)
		}
	}
	for _, p := range patches {
		for _, b := range fixed {
			check("PATCH", p, b)
		}
	}
	params := []string{"limit", "offset", "from", "to", "days", "scope", "status", "type", "campaign_id", "batch_id", "source", "account_id", "destination_id"}
	values := []string{"-1", "0", "99999999999999999999", "abc", "", "2026-02-30", "1e3", "%00", "\x00", "a\xffb", "'; drop table x;--", strings.Repeat("z", 3000)}
	for _, p := range gets {
		for _, name := range params {
			for _, v := range values {
				check("GET", p+"?"+name+"="+url.QueryEscape(v), nil)
			}
		}
	}
	// Ids in the path that no id can be: a NUL character, bytes that are not UTF-8.
	for _, id := range []string{"%00", "%FF", "a%00b"} {
		check("GET", "/api/v1/prospects/"+id, nil)
		check("GET", "/api/v1/leads/"+id, nil)
		check("GET", "/api/v1/campaigns/"+id+"/leads", nil)
		check("PATCH", "/api/v1/prospects/"+id, map[string]any{"outcome": "booked"})
		check("POST", "/api/v1/campaigns/"+id+"/leads", map[string]any{"leads": []any{map[string]any{"linkedin_url": "https://www.linkedin.com/in/ok"}}})
		check("GET", "/api/v1/destinations/"+id, nil)
	}
	// The input must have reached the handlers: mostly 400s, some accepted, no auth or rate failures.
	total := 0
	for _, n := range statuses {
		total += n
	}
	if statuses[400] < total/3 || statuses[200]+statuses[202] == 0 || statuses[401]+statuses[403]+statuses[429] > 0 {
		t.Errorf("answers by status %v: the hostile input did not exercise the handlers as intended", statuses)
	}
}

// randomJSONish produces JSON-like text: mostly valid JSON of random shape with the field names
// the API knows, sometimes cut short, so decoders see both wrong types and broken syntax.
func randomJSONish(rng *rand.Rand, depth int) string {
	names := []string{"name", "leads", "linkedin_url", "entries", "value", "type", "outcome", "url", "events",
		"secret", "meta", "hard_filters", "schedule", "sequence", "daily_limit", "from", "to", "event_type", "linkedin_urls", "reason", "data"}
	var gen func(d int) string
	gen = func(d int) string {
		switch k := rng.IntN(8); {
		case d == 0 || k == 0:
			return []string{`null`, `true`, `-0`, `1.5e308`, `"` + names[rng.IntN(len(names))] + `"`, `""`, `"\ud800"`, `12345678901234567890`}[rng.IntN(8)]
		case k < 4:
			n := rng.IntN(4)
			parts := make([]string, n)
			for i := range parts {
				parts[i] = fmt.Sprintf("%q: %s", names[rng.IntN(len(names))], gen(d-1))
			}
			return "{" + strings.Join(parts, ",") + "}"
		default:
			n := rng.IntN(4)
			parts := make([]string, n)
			for i := range parts {
				parts[i] = gen(d - 1)
			}
			return "[" + strings.Join(parts, ",") + "]"
		}
	}
	s := gen(depth)
	if rng.IntN(5) == 0 && len(s) > 1 {
		s = s[:rng.IntN(len(s))]
	}
	return s
}
