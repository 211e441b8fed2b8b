package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"outreachd/api"
	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// These tests hold docs/openapi.yaml to the server: every mounted route is documented, and
// real answers of the built binary (successes and every documented error class) match the
// documented status codes, headers and schemas. Response objects are checked closed (see
// testenv.LoadOpenAPI), so an undocumented field fails too.

// oaChecker sends requests and checks every answer against the document, remembering which
// operations were exercised.
type oaChecker struct {
	t    *testing.T
	spec *testenv.OpenAPI
	mu   sync.Mutex
	hits map[string][]int // "METHOD template" -> statuses seen
}

func newOAChecker(t *testing.T, spec *testenv.OpenAPI) *oaChecker {
	return &oaChecker{t: t, spec: spec, hits: map[string][]int{}}
}

// do sends the request, requires one of the wanted statuses and checks the answer.
func (c *oaChecker) do(t *testing.T, cl testenv.Client, method, path string, body any, want []int, headers ...string) testenv.Response {
	t.Helper()
	r := cl.Do(t, method, path, body, headers...)
	if !slices.Contains(want, r.Status) {
		t.Errorf("%s %s: status %d, want one of %v; body %s", method, path, r.Status, want, r.Body)
	}
	c.spec.Check(t, method, path, r)
	if op, ok := c.spec.Find(method, path); ok {
		c.mu.Lock()
		c.hits[op.Method+" "+op.Template] = append(c.hits[op.Method+" "+op.Template], r.Status)
		c.mu.Unlock()
	}
	return r
}

func oaStatus(s ...int) []int { return s }

func oaList(v any) []map[string]any {
	var out []map[string]any
	for _, e := range v.([]any) {
		out = append(out, e.(map[string]any))
	}
	return out
}

// TestOpenAPIRoutesDocumented fails when a mounted route is missing from the document, when the
// document describes a served endpoint that is not mounted, or marks a mounted one as planned.
func TestOpenAPIRoutesDocumented(t *testing.T) {
	t.Parallel()
	spec := testenv.LoadOpenAPI(t)
	srv, err := api.NewServer(nil, api.Deps{}, api.Config{PublicURL: "https://outreach.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	routes, err := srv.Routes()
	if err != nil {
		t.Fatal(err)
	}
	if len(routes) < 30 {
		t.Fatalf("only %d routes found; the walk is broken: %v", len(routes), routes)
	}
	mounted := map[string]bool{}
	for _, r := range routes {
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			if r.Method == "" {
				t.Fatalf("route %s takes every method; document it or give it methods", r.Path)
			}
			mounted[r.Method+" "+r.Path] = true
			found := false
			for _, op := range spec.Operations() {
				if op.Method == r.Method && op.Template == r.Path {
					found = true
					if op.Status == "planned" {
						t.Errorf("%s %s is mounted but marked x-outreachd-status: planned", r.Method, r.Path)
					}
				}
			}
			if !found {
				t.Errorf("%s %s is mounted but missing from docs/openapi.yaml", r.Method, r.Path)
			}
		})
	}
	for _, op := range spec.Operations() {
		if !strings.HasPrefix(op.Template, "/api/") || op.Status == "planned" {
			continue // operational routes are mounted by Handler itself and checked by calling them
		}
		if !mounted[op.Method+" "+op.Template] {
			t.Errorf("docs/openapi.yaml describes %s %s, which is not mounted (mark it x-outreachd-status: planned?)", op.Method, op.Template)
		}
	}
}

// TestOpenAPICheckerFails shows the check can fail: wrong shapes, extra fields, nulls where none
// are allowed, undocumented statuses and missing headers are all reported.
func TestOpenAPICheckerFails(t *testing.T) {
	t.Parallel()
	spec := testenv.LoadOpenAPI(t)
	person := `"linkedin_url":null,"public_identifier":null,"role":null,"company":null,"industry":null,"location":null,"headline":null,"company_website":null,"company_linkedin_url":null,"company_size":null,"follower_count":null`
	prospect := `"id":"p","campaign_id":"c","linkedin_id":"l","name":"n","status":"pending","current_step":0,"source":"api","created_at":"2026-11-22T06:31:44.123Z","outcome":null`
	rate := http.Header{"Content-Type": {"application/json"}, "X-Ratelimit-Limit": {"120"}, "X-Ratelimit-Remaining": {"119"}, "X-Ratelimit-Reset": {"1790000000"}}
	ok := `{"data":{` + prospect + `,` + person + `}}`
	if err := spec.CheckResponse("GET", "/api/v1/prospects/p", 200, rate, []byte(ok)); err != nil {
		t.Fatalf("a valid prospect was refused: %v", err)
	}
	cases := []struct {
		name, method, path string
		status             int
		header             http.Header
		body, want         string
	}{
		{"person key omitted", "GET", "/api/v1/prospects/p", 200, rate, `{"data":{` + prospect + `,` + strings.Replace(person, `"industry":null,`, "", 1) + `}}`, "missing property 'industry'"},
		{"undocumented field", "GET", "/api/v1/prospects/p", 200, rate, `{"data":{` + prospect + `,` + person + `,"secret":1}}`, "/data/secret"},
		{"null where a string is required", "GET", "/api/v1/prospects/p", 200, rate, strings.Replace(ok, `"name":"n"`, `"name":null`, 1), "/data/name"},
		{"timestamp without milliseconds", "GET", "/api/v1/prospects/p", 200, rate, strings.Replace(ok, `44.123Z`, `44Z`, 1), "does not match pattern"},
		{"undocumented status", "GET", "/api/v1/prospects/p", 409, rate, `{"error":{"code":"campaign_closed","message":"x"}}`, "status 409 is not documented"},
		{"coded error where plain is documented", "GET", "/api/v1/analytics/daily", 400, rate, `{"error":{"code":"invalid_request","message":"x"}}`, "got object, want string"},
		{"wrong error code", "GET", "/api/v1/prospects/p", 404, rate, `{"error":{"code":"invalid_request","message":"x"}}`, "value must be 'not_found'"},
		{"rate-limit headers missing", "GET", "/api/v1/prospects/p", 200, http.Header{"Content-Type": {"application/json"}}, ok, "header X-RateLimit-Limit is missing"},
		{"429 without Retry-After", "GET", "/api/v1/me", 429, rate, `{"error":"slow down"}`, "header Retry-After is missing"},
		{"unknown path", "GET", "/api/v1/nowhere", 200, rate, `{}`, "no operation"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := spec.CheckResponse(tc.method, tc.path, tc.status, tc.header, []byte(tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestOpenAPIWebhookEvents checks a sample of every event kind against the webhooks section.
func TestOpenAPIWebhookEvents(t *testing.T) {
	t.Parallel()
	spec := testenv.LoadOpenAPI(t)
	at := time.Date(2026, 11, 22, 6, 31, 44, 123e6, time.UTC)
	for _, k := range outreach.AllEventKinds() {
		t.Run(string(k), func(t *testing.T) {
			raw, err := json.Marshal(outreach.SampleEvent(k, "org_x", at))
			if err != nil {
				t.Fatal(err)
			}
			if err := spec.ValidateJSON("#/webhooks/event/post/requestBody/content/application~1json/schema", raw); err != nil {
				t.Fatalf("%v\n%s", err, raw)
			}
		})
	}
	t.Run("missing required block", func(t *testing.T) {
		raw := `{"event":"call_booked","timestamp":"2026-11-22T06:31:44.123Z","org_id":"o","data":{"prospect":{},"campaign":{"id":"c","name":"n"}}}`
		if spec.ValidateJSON("#/components/schemas/Event", []byte(raw)) == nil {
			t.Fatal("call_booked without booking accepted")
		}
	})
}

// oaReceiver is a webhook destination that records what it is sent.
type oaReceiver struct {
	mu   sync.Mutex
	got  []capturedEvent
	srv  *httptest.Server
	fail bool
}

type capturedEvent struct {
	header http.Header
	body   []byte
}

func newOAReceiver(t *testing.T) *oaReceiver {
	rc := &oaReceiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, capturedEvent{header: r.Header.Clone(), body: b})
		fail := rc.fail
		rc.mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *oaReceiver) events() []capturedEvent {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]capturedEvent(nil), rc.got...)
}

// TestOpenAPIResponses drives the built binary through every documented operation, with
// successes and the error classes 400, 401, 403, 404, 409 and 422, and checks each answer. It
// ends by requiring that every served operation was exercised.
func TestOpenAPIResponses(t *testing.T) {
	t.Parallel()
	spec := testenv.LoadOpenAPI(t)
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	o := testenv.NewOrg(t, srv, "--rate-limit-per-minute", "5000")
	w, r := o.Write, o.Read
	anon := testenv.Client{Base: srv.URL}
	badKey := testenv.Client{Base: srv.URL, Key: "osk_not_a_key"}
	c := newOAChecker(t, spec)
	rc := newOAReceiver(t)
	s := oaStatus

	// Operations of the process itself.
	c.do(t, anon, "GET", "/healthz", nil, s(200))
	c.do(t, anon, "GET", "/readyz", nil, s(200))
	c.do(t, anon, "GET", "/metrics", nil, s(200))
	c.do(t, anon, "GET", "/openapi.yaml", nil, s(200))
	c.do(t, anon, "GET", "/docs", nil, s(200))
	c.do(t, anon, "POST", "/mcp", `{}`, s(401))
	c.do(t, badKey, "POST", "/mcp", `{}`, s(401))
	c.do(t, r, "POST", "/mcp?toolsets=nope", `{}`, s(400))
	c.do(t, r, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"spec","version":"1"}}}`,
		s(200), "Accept", "application/json, text/event-stream")
	c.do(t, anon, "GET", "/.well-known/oauth-protected-resource", nil, s(200))

	// Keys.
	c.do(t, r, "GET", "/api/v1/me", nil, s(200))
	c.do(t, anon, "GET", "/api/v1/me", nil, s(401))
	c.do(t, badKey, "GET", "/api/v1/me", nil, s(401))

	// A destination first, so the events of what follows are delivered to rc.
	d := c.do(t, w, "POST", "/api/v1/destinations", map[string]any{"url": rc.srv.URL + "/hook", "secret": "generate", "name": "spec"}, s(201))
	dst, _ := d.JSON["data"].(map[string]any)["id"].(string)
	secret, _ := d.JSON["data"].(map[string]any)["secret"].(string)
	c.do(t, w, "POST", "/api/v1/destinations", map[string]any{"url": rc.srv.URL, "events": []string{"no_such_kind"}}, s(400))
	c.do(t, r, "POST", "/api/v1/destinations", map[string]any{"url": rc.srv.URL}, s(403))
	c.do(t, r, "GET", "/api/v1/destinations", nil, s(200))
	c.do(t, r, "GET", "/api/v1/destinations/"+dst, nil, s(200))
	c.do(t, r, "GET", "/api/v1/destinations/dst_01j0000000000000000000000", nil, s(404))
	c.do(t, w, "PATCH", "/api/v1/destinations/"+dst, map[string]any{"name": "spec renamed", "events": "all"}, s(200))
	c.do(t, w, "PATCH", "/api/v1/destinations/"+dst, map[string]any{"kind": "slack"}, s(400))
	c.do(t, w, "POST", "/api/v1/destinations/"+dst+"/test", map[string]any{"event": "call_booked"}, s(200))
	c.do(t, w, "POST", "/api/v1/destinations/"+dst+"/test", nil, s(200))
	c.do(t, w, "POST", "/api/v1/destinations/"+dst+"/test", map[string]any{"event": "nope"}, s(400))
	c.do(t, r, "GET", "/api/v1/destinations/"+dst+"/attempts", nil, s(200))
	c.do(t, r, "GET", "/api/v1/destinations/"+dst+"/attempts?limit=500", nil, s(400))

	// Campaigns.
	create := map[string]any{
		"name": "Spec campaign", "outreach_type": "outbound", "source_type": "search_url", "daily_limit": 30,
		"schedule": map[string]any{"timezone": "Europe/Berlin", "workingDays": []any{"mon", 3, "Friday"}, "startTime": "08:00", "endTime": "18:00"},
		"sequence": []any{
			map[string]any{"type": "connect", "text": "Hi"},
			map[string]any{"type": "message", "delay_days": 2, "text": "Hello again", "attachments": []any{
				map[string]any{"url": "https://files.example.com/deck.pdf", "name": "deck.pdf"},
				map[string]any{"url": "javascript:alert(1)"},
			}},
		},
		"meta":          map[string]any{"hard_filters": map[string]any{"roles": map[string]any{"include": []string{"cto", "founder"}}, "company_size": map[string]any{"min": 10}}},
		"source_config": map[string]any{"url": "https://www.linkedin.com/search/results/people/?keywords=cto"},
	}
	cr := c.do(t, w, "POST", "/api/v1/campaigns", create, s(200))
	cmp, _ := cr.JSON["item"].(map[string]any)["id"].(string)
	c.do(t, w, "POST", "/api/v1/campaigns", map[string]any{"name": "Plain"}, s(200))
	c.do(t, w, "POST", "/api/v1/campaigns", map[string]any{"outreach_type": "outbound"}, s(400))
	c.do(t, w, "POST", "/api/v1/campaigns", `{"name": "x", "unknown": 1}`, s(400))
	c.do(t, w, "POST", "/api/v1/campaigns", map[string]any{"name": "x", "meta": map[string]any{"hard_filters": map[string]any{"company_size": map[string]any{"min": 500, "max": 50}}}}, s(422))
	c.do(t, r, "POST", "/api/v1/campaigns", map[string]any{"name": "x"}, s(403))
	c.do(t, r, "GET", "/api/v1/campaigns", nil, s(200))
	c.do(t, r, "GET", "/api/v1/campaigns?limit=1&offset=1", nil, s(200))
	c.do(t, r, "GET", "/api/v1/campaigns?limit=0", nil, s(400))
	c.do(t, r, "GET", "/api/v1/campaigns/"+cmp, nil, s(200))
	c.do(t, r, "GET", "/api/v1/campaigns/cmp_01j0000000000000000000000", nil, s(404))
	c.do(t, w, "POST", "/api/v1/campaigns/"+cmp+"/duplicate", nil, s(200))
	c.do(t, w, "POST", "/api/v1/campaigns/cmp_01j0000000000000000000000/duplicate", nil, s(404))
	c.do(t, r, "POST", "/api/v1/campaigns/"+cmp+"/duplicate", nil, s(403))
	c.do(t, w, "PATCH", "/api/v1/campaigns/"+cmp, map[string]any{"daily_limit": 25, "sequence": []any{map[string]any{"type": "message", "text": "Hi", "attachments": []any{map[string]any{"url": "ftp://x"}}}}}, s(200))
	c.do(t, w, "PATCH", "/api/v1/campaigns/"+cmp, map[string]any{"daily_limit": 0}, s(400))
	c.do(t, w, "PATCH", "/api/v1/campaigns/"+cmp, map[string]any{"meta": map[string]any{"hard_filters": map[string]any{"company_size": map[string]any{"min": 9, "max": 1}}}}, s(422))
	c.do(t, w, "PATCH", "/api/v1/campaigns/cmp_01j0000000000000000000000", map[string]any{"daily_limit": 5}, s(404))
	c.do(t, r, "PATCH", "/api/v1/campaigns/"+cmp, map[string]any{"daily_limit": 5}, s(403))
	launched, _ := c.do(t, w, "POST", "/api/v1/campaigns", map[string]any{"name": "Launched"}, s(200)).JSON["item"].(map[string]any)["id"].(string)
	testenv.Admin(t, srv.DBURL, "campaign", "set-status", "--campaign", launched, "--status", "active")
	c.do(t, w, "PATCH", "/api/v1/campaigns/"+launched, map[string]any{"daily_limit": 5}, s(409))

	// Organization default filters.
	c.do(t, r, "GET", "/api/v1/settings/default-filters", nil, s(200))
	c.do(t, w, "PUT", "/api/v1/settings/default-filters", map[string]any{"hard_filters": map[string]any{"companies": map[string]any{"exclude": []string{"Rival Ltd"}}}}, s(200))
	c.do(t, w, "PUT", "/api/v1/settings/default-filters", map[string]any{"hard_filters": map[string]any{"company_size": map[string]any{"min": 9, "max": 1}}}, s(422))
	c.do(t, w, "PUT", "/api/v1/settings/default-filters", map[string]any{}, s(400))
	c.do(t, r, "PUT", "/api/v1/settings/default-filters", map[string]any{"hard_filters": nil}, s(403))
	c.do(t, w, "PUT", "/api/v1/settings/default-filters", map[string]any{"hard_filters": nil}, s(200))

	// The event catalogue and the resources event links point at.
	c.do(t, r, "GET", "/api/v1/event-types", nil, s(200))
	acc := testenv.Admin(t, srv.DBURL, "account", "connect", "--org", o.ID, "--name", "Spec Seat")["account_id"].(string)
	c.do(t, r, "GET", "/api/v1/accounts/"+acc, nil, s(200))
	c.do(t, r, "GET", "/api/v1/accounts/acc_01j0000000000000000000000", nil, s(404))
	cpExec(t, srv.DBURL, `INSERT INTO chats (id, org_id, account_id, provider_chat_id, attendee_name) VALUES ('chat_spec', $1, $2, 'chat_spec', 'Spec Person')`, o.ID, acc)
	c.do(t, r, "GET", "/api/v1/conversations/chat_spec", nil, s(200))
	c.do(t, r, "GET", "/api/v1/conversations/chat_nope", nil, s(404))
	c.do(t, w, "POST", "/api/v1/conversations/chat_spec/reply", map[string]any{"text": "Thanks, speak soon."}, s(200))
	c.do(t, w, "POST", "/api/v1/conversations/chat_spec/reply", map[string]any{"text": "  "}, s(400))
	c.do(t, w, "POST", "/api/v1/conversations/chat_nope/reply", map[string]any{"text": "hi"}, s(404))
	c.do(t, r, "POST", "/api/v1/conversations/chat_spec/reply", map[string]any{"text": "hi"}, s(403))
	c.do(t, r, "GET", "/api/v1/reports/daily_digest/2026-11-24", nil, s(200))
	c.do(t, r, "GET", "/api/v1/reports/weekly_summary/2026-11-16", nil, s(200))
	c.do(t, r, "GET", "/api/v1/reports/daily_digest/yesterday", nil, s(400))
	c.do(t, r, "GET", "/api/v1/reports/horoscope/2026-11-24", nil, s(404))

	// Do-not-contact list.
	c.do(t, w, "POST", "/api/v1/blacklist", map[string]any{"entries": []any{
		map[string]any{"value": "https://www.linkedin.com/in/blocked-bob", "type": "account"},
		map[string]any{"value": "Evil Corp", "type": "company"},
		map[string]any{"value": "x", "type": "planet"},
		map[string]any{"value": "https://www.linkedin.com/in/blocked-bob", "type": "account"},
	}}, s(200))
	c.do(t, w, "POST", "/api/v1/blacklist", map[string]any{"entries": []any{}}, s(400))
	c.do(t, r, "POST", "/api/v1/blacklist", map[string]any{"entries": []any{map[string]any{"value": "Acme", "type": "company"}}}, s(403))
	c.do(t, r, "GET", "/api/v1/blacklist", nil, s(200))
	c.do(t, r, "GET", "/api/v1/blacklist?type=company&limit=10", nil, s(200))
	c.do(t, r, "GET", "/api/v1/blacklist?type=planet", nil, s(400))
	c.do(t, r, "GET", "/api/v1/blacklist?q=BOB", nil, s(200))
	c.do(t, w, "POST", "/api/v1/blacklist", map[string]any{"entries": []any{map[string]any{"value": "Initech", "type": "company"}}}, s(200))
	c.do(t, r, "DELETE", "/api/v1/blacklist?type=company&value=Initech", nil, s(403))
	c.do(t, w, "DELETE", "/api/v1/blacklist?type=company&value=INITECH%20Inc.", nil, s(200))
	c.do(t, w, "DELETE", "/api/v1/blacklist?type=company&value=Initech", nil, s(404))
	c.do(t, w, "DELETE", "/api/v1/blacklist?type=planet&value=x", nil, s(400))

	// Leads: accepted, every immediate rejection, a re-send.
	leads := []any{
		map[string]any{"linkedin_url": "https://www.linkedin.com/in/ann-spec", "first_name": "Ann", "last_name": "Spec", "title": "CTO", "company": "Acme", "data": map[string]any{"crm_id": 7}},
		map[string]any{"linkedin_url": "https://example.com/not-linkedin"},
		map[string]any{"linkedin_url": "ann-spec"},
		map[string]any{"linkedin_url": "blocked-bob"},
		map[string]any{"linkedin_url": "evil-eve", "company": "Evil Corp"},
		map[string]any{"linkedin_url": "intern-ian", "title": "Intern"},
		map[string]any{"linkedin_url": "cara-spec", "title": "Founder", "source": "my-list"},
	}
	push := c.do(t, w, "POST", "/api/v1/campaigns/"+cmp+"/leads", map[string]any{"leads": leads}, s(202), "Idempotency-Key", "spec-batch-1")
	c.do(t, w, "POST", "/api/v1/campaigns/"+cmp+"/leads", map[string]any{"leads": leads[:1]}, s(202), "Idempotency-Key", "spec-batch-1")
	c.do(t, w, "POST", "/api/v1/campaigns/"+cmp+"/leads", map[string]any{"leads": []any{}}, s(400))
	c.do(t, w, "POST", "/api/v1/campaigns/"+cmp+"/leads", map[string]any{"leads": []any{map[string]any{"name": "no url"}}}, s(400))
	c.do(t, w, "POST", "/api/v1/campaigns/cmp_01j0000000000000000000000/leads", map[string]any{"leads": leads[:1]}, s(404))
	c.do(t, r, "POST", "/api/v1/campaigns/"+cmp+"/leads", map[string]any{"leads": leads[:1]}, s(403))
	var leadID, rejectedID string
	for _, a := range oaList(push.JSON["accepted"]) {
		if a["linkedin_id"] == "ann-spec" {
			leadID, _ = a["lead_id"].(string)
		}
	}
	for _, rj := range oaList(push.JSON["rejected"]) {
		if rj["reason"] == "hard_filter" {
			rejectedID, _ = rj["lead_id"].(string)
		}
	}
	if leadID == "" || rejectedID == "" {
		t.Fatalf("push answer lacks the accepted or hard-filtered lead: %s", push.Body)
	}
	c.do(t, r, "GET", "/api/v1/campaigns/"+cmp+"/leads", nil, s(200))
	c.do(t, r, "GET", "/api/v1/campaigns/"+cmp+"/leads?source=all&batch_id=spec-batch-1&limit=2&offset=1", nil, s(200))
	c.do(t, r, "GET", "/api/v1/campaigns/"+cmp+"/leads?limit=201", nil, s(400))
	c.do(t, r, "GET", "/api/v1/campaigns/cmp_01j0000000000000000000000/leads", nil, s(404))
	c.do(t, r, "GET", "/api/v1/leads/"+leadID, nil, s(200))
	c.do(t, r, "GET", "/api/v1/leads/"+rejectedID, nil, s(200))
	c.do(t, r, "GET", "/api/v1/leads/prs_01j0000000000000000000000", nil, s(404))

	// Prospects and outcomes.
	c.do(t, r, "GET", "/api/v1/prospects", nil, s(200))
	c.do(t, r, "GET", "/api/v1/prospects?campaign_id="+cmp+"&status=pending&limit=1", nil, s(200))
	c.do(t, r, "GET", "/api/v1/prospects?limit=0", nil, s(400))
	c.do(t, r, "GET", "/api/v1/prospects?offset=-1", nil, s(400))
	c.do(t, r, "GET", "/api/v1/prospects/"+leadID, nil, s(200))
	c.do(t, r, "GET", "/api/v1/prospects/prs_01j0000000000000000000000", nil, s(404))
	c.do(t, w, "PATCH", "/api/v1/prospects/"+leadID, map[string]any{"outcome": "booked"}, s(200))
	c.do(t, w, "PATCH", "/api/v1/prospects/"+leadID, map[string]any{"outcome": "booked"}, s(200))
	c.do(t, w, "PATCH", "/api/v1/prospects/"+leadID, map[string]any{"outcome": "interested"}, s(200))
	c.do(t, w, "PATCH", "/api/v1/prospects/"+leadID, map[string]any{"outcome": "won"}, s(400))
	c.do(t, w, "PATCH", "/api/v1/prospects/prs_01j0000000000000000000000", map[string]any{"outcome": "lost"}, s(404))
	c.do(t, r, "PATCH", "/api/v1/prospects/"+leadID, map[string]any{"outcome": "lost"}, s(403))

	// Reporting.
	c.do(t, r, "GET", "/api/v1/analytics", nil, s(200))
	c.do(t, r, "GET", "/api/v1/analytics/daily", nil, s(200))
	c.do(t, r, "GET", "/api/v1/analytics/daily?from=2026-06-20&to=2026-07-10&campaign_id="+cmp, nil, s(200))
	c.do(t, r, "GET", "/api/v1/analytics/daily?from=2026-01-01&to=2026-12-31", nil, s(400))
	c.do(t, r, "GET", "/api/v1/analytics/daily?from=yesterday", nil, s(400))
	c.do(t, anon, "GET", "/api/v1/analytics/daily", nil, s(401))
	c.do(t, r, "GET", "/api/v1/needs-human", nil, s(200))
	c.do(t, r, "GET", "/api/v1/needs-human?campaign_id="+cmp+"&limit=200", nil, s(200))
	c.do(t, r, "GET", "/api/v1/needs-human?limit=500", nil, s(400))
	oaExec(t, srv.DBURL, `INSERT INTO needs_human (id, org_id, chat_id, message, ai_draft, reason, waiting_since)
		VALUES ('nhu_oa_approve', $1, 'cht_oa', 'Email me?', 'Sure, which address?', 'wants_email', now()),
		       ('nhu_oa_dismiss', $1, 'cht_oa', 'Are you a bot?', '', 'ai_callout', now())`, o.ID)
	c.do(t, r, "POST", "/api/v1/needs-human/nhu_oa_approve/approve", nil, s(403))
	c.do(t, w, "POST", "/api/v1/needs-human/nhu_oa_approve/approve", map[string]any{"text": ""}, s(400))
	c.do(t, w, "POST", "/api/v1/needs-human/nhu_unknown/approve", nil, s(404))
	c.do(t, w, "POST", "/api/v1/needs-human/nhu_oa_approve/approve", map[string]any{"text": "Happy to: which address?"}, s(200))
	c.do(t, w, "POST", "/api/v1/needs-human/nhu_oa_approve/approve", nil, s(409))
	c.do(t, w, "POST", "/api/v1/needs-human/nhu_oa_dismiss/dismiss", nil, s(200))
	c.do(t, w, "POST", "/api/v1/needs-human/nhu_oa_dismiss/dismiss", nil, s(409))
	c.do(t, w, "POST", "/api/v1/needs-human/nhu_unknown/dismiss", nil, s(404))
	c.do(t, r, "POST", "/api/v1/needs-human/nhu_oa_dismiss/dismiss", nil, s(403))
	c.do(t, w, "POST", "/api/v1/needs-human/nhu_oa_dismiss/dismiss", map[string]any{"text": "x"}, s(400))
	c.do(t, r, "GET", "/api/v1/stalled-leads", nil, s(200))
	c.do(t, r, "GET", "/api/v1/stalled-leads?days=10&campaign_id="+cmp, nil, s(200))
	c.do(t, r, "GET", "/api/v1/stalled-leads?days=0", nil, s(400))
	// The seat was connected by the operator CLI; the serving process's simulator learns of it
	// when its engine syncs the seats (every tick). Until then the inbox answers 502 for it.
	testenv.EventuallyTrue(t, 20*time.Second, "the serving process's provider knows the CLI's seat", func() bool {
		return r.Do(t, "GET", "/api/v1/inbox", nil).Status != http.StatusBadGateway
	})
	c.do(t, r, "GET", "/api/v1/inbox", nil, s(200, 503))
	c.do(t, r, "GET", "/api/v1/inbox?scope=all&limit=100", nil, s(200, 503))
	c.do(t, r, "GET", "/api/v1/inbox?scope=everyone", nil, s(400))
	c.do(t, r, "GET", "/api/v1/inbox?limit=101", nil, s(400))

	// Stop and block.
	targets := map[string]any{"linkedin_urls": []any{"https://www.linkedin.com/in/cara-spec", "nobody-known", "not a profile!", 42}}
	c.do(t, w, "POST", "/api/v1/inbox/stop", targets, s(200))
	c.do(t, w, "POST", "/api/v1/inbox/stop", map[string]any{"linkedin_url": "cara-spec"}, s(200))
	c.do(t, w, "POST", "/api/v1/inbox/stop", map[string]any{}, s(400))
	c.do(t, r, "POST", "/api/v1/inbox/stop", targets, s(403))
	c.do(t, w, "POST", "/api/v1/inbox/block", map[string]any{"linkedin_urls": []any{"cara-spec", "?"}, "reason": "asked us to stop"}, s(200))
	c.do(t, w, "POST", "/api/v1/inbox/block", map[string]any{"linkedin_urls": []any{"a-one"}, "linkedin_url": "a-two"}, s(400))
	c.do(t, r, "POST", "/api/v1/inbox/block", map[string]any{"linkedin_url": "a-two"}, s(403))

	// Who is stopped or blocked, and undoing both.
	c.do(t, w, "POST", "/api/v1/inbox/stop", map[string]any{"linkedin_url": "ann-spec"}, s(200))
	c.do(t, r, "GET", "/api/v1/inbox/stopped", nil, s(200))
	c.do(t, r, "GET", "/api/v1/inbox/stopped?q=ann&limit=5", nil, s(200))
	c.do(t, r, "GET", "/api/v1/inbox/stopped?limit=0", nil, s(400))
	c.do(t, w, "POST", "/api/v1/inbox/resume", map[string]any{"linkedin_urls": []any{"ann-spec", "nobody-known", 7}}, s(200))
	c.do(t, w, "POST", "/api/v1/inbox/resume", map[string]any{}, s(400))
	c.do(t, r, "POST", "/api/v1/inbox/resume", map[string]any{"linkedin_url": "ann-spec"}, s(403))
	c.do(t, r, "GET", "/api/v1/inbox/blocked", nil, s(200))
	c.do(t, r, "GET", "/api/v1/inbox/blocked?q="+strings.Repeat("x", 201), nil, s(400))
	c.do(t, w, "POST", "/api/v1/inbox/unblock", map[string]any{"linkedin_urls": []any{"cara-spec", "nobody-known"}}, s(200))
	c.do(t, w, "POST", "/api/v1/inbox/unblock", `{"linkedin_url": `, s(400))
	c.do(t, r, "POST", "/api/v1/inbox/unblock", map[string]any{"linkedin_url": "cara-spec"}, s(403))

	// Conversions (plain errors).
	conv := map[string]any{"event_type": "signup", "linkedin_id": "https://www.linkedin.com/in/ann-spec", "prospect_email": "Ann@Example.com", "meta": map[string]any{"plan": "pro"}}
	c.do(t, w, "POST", "/api/webhooks/conversions", conv, s(200))
	c.do(t, w, "POST", "/api/webhooks/conversions", conv, s(200))
	c.do(t, w, "POST", "/api/webhooks/conversions", map[string]any{"linkedin_id": "x"}, s(400))
	c.do(t, w, "POST", "/api/webhooks/conversions", `{"event_type": "signup",`, s(400))
	c.do(t, anon, "POST", "/api/webhooks/conversions", conv, s(401))
	c.do(t, r, "POST", "/api/webhooks/conversions", conv, s(403))

	// Intake URL: read, create, rotate and revoke through the API, then one made by the CLI.
	iu := "/api/v1/campaigns/" + cmp + "/intake-url"
	c.do(t, r, "GET", iu, nil, s(200))
	c.do(t, r, "POST", iu, nil, s(403))
	c.do(t, w, "POST", iu, nil, s(201))
	c.do(t, w, "POST", iu, nil, s(201))
	c.do(t, r, "GET", iu, nil, s(200))
	c.do(t, r, "DELETE", iu, nil, s(403))
	c.do(t, w, "DELETE", iu, nil, s(200))
	c.do(t, r, "GET", "/api/v1/campaigns/cmp_01j0000000000000000000000/intake-url", nil, s(404))
	tok := testenv.Admin(t, srv.DBURL, "intake-token", "create", "--campaign", cmp)
	u, _ := tok["url"].(string)
	intake := u[strings.Index(u, "/api/webhooks/leads/"):]
	c.do(t, anon, "POST", intake, `[{"LinkedIn URL": "https://www.linkedin.com/in/ida-intake", "Job Title": "CTO", "favourite": "tea"}, {"name": "no profile"}, 7]`, s(202))
	c.do(t, anon, "POST", intake, `{"linkedin": "ivy-intake"}`, s(202), "Idempotency-Key", "intake-1")
	c.do(t, anon, "POST", intake, `not json`, s(400))
	c.do(t, anon, "POST", "/api/webhooks/leads/itk_unknown", `{"linkedin": "x-person"}`, s(404))

	// A closed campaign takes no leads: 409 on a push and on its intake URL.
	closed := c.do(t, w, "POST", "/api/v1/campaigns", map[string]any{"name": "Closed"}, s(200))
	closedID, _ := closed.JSON["item"].(map[string]any)["id"].(string)
	ctok := testenv.Admin(t, srv.DBURL, "intake-token", "create", "--campaign", closedID)["url"].(string)
	testenv.Admin(t, srv.DBURL, "campaign", "set-status", "--campaign", closedID, "--status", "archived")
	c.do(t, w, "POST", "/api/v1/campaigns/"+closedID+"/leads", map[string]any{"leads": leads[:1]}, s(409))
	c.do(t, anon, "POST", ctok[strings.Index(ctok, "/api/webhooks/leads/"):], `{"linkedin": "late-lou"}`, s(409, 404))

	// Deliveries: wait for the events above to reach rc, then read, resend and recover.
	var delivered []map[string]any
	testenv.EventuallyTrue(t, 20*time.Second, "a succeeded delivery", func() bool {
		dl := w.Do(t, "GET", "/api/v1/deliveries?status=succeeded", nil)
		if dl.Status == 200 {
			delivered = oaList(dl.JSON["data"])
		}
		return len(delivered) > 0
	})
	c.do(t, r, "GET", "/api/v1/deliveries", nil, s(200))
	c.do(t, r, "GET", "/api/v1/deliveries?destination_id="+dst+"&status=succeeded&from=2020-01-01&to="+time.Now().UTC().Format(time.RFC3339), nil, s(200))
	c.do(t, r, "GET", "/api/v1/deliveries?status=lost", nil, s(400))
	c.do(t, r, "GET", "/api/v1/deliveries?destination_id=dst_01j0000000000000000000000", nil, s(404))
	c.do(t, w, "POST", "/api/v1/deliveries/"+delivered[0]["id"].(string)+"/resend", nil, s(202))
	c.do(t, w, "POST", "/api/v1/deliveries/dlv_01j0000000000000000000000/resend", nil, s(404))
	c.do(t, r, "POST", "/api/v1/deliveries/"+delivered[0]["id"].(string)+"/resend", nil, s(403))
	c.do(t, w, "POST", "/api/v1/deliveries/recover", map[string]any{"from": "2020-01-01", "to": time.Now().UTC().Format(time.DateOnly), "destination_id": dst}, s(200))
	c.do(t, w, "POST", "/api/v1/deliveries/recover", map[string]any{"from": "2020-01-01"}, s(400))
	c.do(t, r, "POST", "/api/v1/deliveries/recover", map[string]any{"from": "2020-01-01", "to": "2020-01-02"}, s(403))

	// Every captured delivery matches the webhooks section, headers included.
	checkDeliveries(t, spec, rc.events(), secret)

	c.do(t, r, "DELETE", "/api/v1/destinations/"+dst, nil, s(403))
	c.do(t, w, "DELETE", "/api/v1/destinations/"+dst, nil, s(200))
	c.do(t, w, "DELETE", "/api/v1/destinations/"+dst, nil, s(404))

	// Every served operation was exercised, and at least once successfully. The OAuth endpoints
	// are held to the document by the oauth package's tests, which run the consent flow they need.
	for _, op := range spec.Operations() {
		if op.Status == "planned" {
			continue
		}
		if strings.HasPrefix(op.Template, "/oauth/") || op.Template == "/.well-known/oauth-authorization-server" {
			continue
		}
		got := c.hits[op.Method+" "+op.Template]
		if !slices.ContainsFunc(got, func(st int) bool { return st < 300 }) {
			t.Errorf("%s %s was not exercised successfully (statuses %v)", op.Method, op.Template, got)
		}
	}
}

// checkDeliveries validates each captured webhook body against the Event schema and its headers
// against the webhook's header parameters: required ones present, signatures well-formed.
func checkDeliveries(t *testing.T, spec *testenv.OpenAPI, got []capturedEvent, secret string) {
	t.Helper()
	if len(got) == 0 {
		t.Fatal("the receiver got no event")
	}
	kinds := map[string]bool{}
	for i, ev := range got {
		if err := spec.ValidateJSON("#/webhooks/event/post/requestBody/content/application~1json/schema", ev.body); err != nil {
			t.Errorf("delivery %d: %v\n%s", i, err, ev.body)
			continue
		}
		var env struct {
			Event string `json:"event"`
		}
		_ = json.Unmarshal(ev.body, &env)
		kinds[env.Event] = true
		if ev.header.Get("X-Service-Event") != env.Event {
			t.Errorf("delivery %d: X-Service-Event %q, body event %q", i, ev.header.Get("X-Service-Event"), env.Event)
		}
		if err := spec.CheckWebhookHeaders("event", ev.header); err != nil {
			t.Errorf("delivery %d: %v", i, err)
		}
		if secret != "" && (ev.header.Get("X-Service-Signature") == "" || ev.header.Get("webhook-signature") == "") {
			t.Errorf("delivery %d: signature headers missing although the destination has a secret", i)
		}
	}
	t.Logf("validated %d deliveries of kinds %v", len(got), kinds)
	if !kinds["prospect_added"] || !kinds["call_booked"] {
		t.Errorf("expected prospect_added and call_booked among the deliveries, got %v", kinds)
	}
}

// TestOpenAPIRateLimited spends a small organization budget and checks the 429s of a keyed
// endpoint, the plain-error endpoints and the intake URL against the document.
func TestOpenAPIRateLimited(t *testing.T) {
	t.Parallel()
	spec := testenv.LoadOpenAPI(t)
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "INTAKE_RATE_LIMIT_PER_MINUTE=2")
	o := testenv.NewOrg(t, srv, "--rate-limit-per-minute", "2")
	c := newOAChecker(t, spec)
	cr := c.do(t, o.Write, "POST", "/api/v1/campaigns", map[string]any{"name": "Budget"}, oaStatus(200))
	cmp, _ := cr.JSON["item"].(map[string]any)["id"].(string)
	u := testenv.Admin(t, srv.DBURL, "intake-token", "create", "--campaign", cmp)["url"].(string)
	intake := u[strings.Index(u, "/api/webhooks/leads/"):]
	anon := testenv.Client{Base: srv.URL}

	cases := []struct {
		name, method, path string
		cl                 testenv.Client
		body               any
	}{
		{"keyed", "GET", "/api/v1/me", o.Read, nil},
		{"daily analytics", "GET", "/api/v1/analytics/daily", o.Read, nil},
		{"conversions", "POST", "/api/webhooks/conversions", o.Write, map[string]any{"event_type": "x"}},
		{"intake", "POST", intake, anon, `{"linkedin": "rate-rita"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The window is a calendar minute; a few tries make the test immune to a rollover.
			for range 6 {
				res := c.do(t, tc.cl, tc.method, tc.path, tc.body, oaStatus(200, 202, 429))
				if res.Status == 429 {
					if res.Header.Get("Retry-After") == "" {
						t.Fatal("429 without Retry-After")
					}
					return
				}
			}
			t.Fatal("budget of 2 per minute never answered 429")
		})
	}
}

// oaExec runs one statement on the test server's database.
func oaExec(t *testing.T, dbURL, sql string, args ...any) {
	t.Helper()
	db, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
