package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// leadEnv is one server with one organization, a generous rate budget (these tests make many
// calls per minute) and a direct database handle for checks a client cannot make.
type leadEnv struct {
	srv *testenv.Server
	org testenv.Org
}

func newLeadEnv(t *testing.T) leadEnv {
	t.Helper()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000")
	return leadEnv{srv: srv, org: testenv.NewOrg(t, srv)}
}

func (e leadEnv) sql(t *testing.T, query string, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), e.srv.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func (e leadEnv) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), e.srv.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func (e leadEnv) events(t *testing.T, kind outreach.EventKind) []outreach.Event {
	t.Helper()
	st, err := storage.Open(context.Background(), e.srv.DBURL, storage.Config{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.OutboxEvents(context.Background(), e.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []outreach.Event
	for _, ev := range evs {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// campaign creates a draft through the API with the given hard filters (nil for none).
func (e leadEnv) campaign(t *testing.T, filters map[string]any) string {
	t.Helper()
	body := map[string]any{"name": "Leads " + t.Name()}
	if filters != nil {
		body["meta"] = map[string]any{"hard_filters": filters}
	}
	r := e.org.Write.Do(t, "POST", "/api/v1/campaigns", body)
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	return r.JSON["item"].(map[string]any)["id"].(string)
}

func (e leadEnv) push(t *testing.T, campaignID string, leads []map[string]any, headers ...string) testenv.Response {
	t.Helper()
	return e.org.Write.Do(t, "POST", "/api/v1/campaigns/"+campaignID+"/leads", map[string]any{"leads": leads}, headers...)
}

func wantStatus(t *testing.T, r testenv.Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
}

func wantCode(t *testing.T, r testenv.Response, status int, code string) string {
	t.Helper()
	wantStatus(t, r, status)
	e, _ := r.JSON["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if e["code"] != code || msg == "" {
		t.Fatalf("error body %s, want code %s with a message", r.Body, code)
	}
	return msg
}

func list(v any) []map[string]any {
	var out []map[string]any
	for _, x := range v.([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

func lead(url string, kv ...any) map[string]any {
	m := map[string]any{"linkedin_url": url}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func reasons(r testenv.Response) []string {
	var out []string
	for _, rj := range list(r.JSON["rejected"]) {
		out = append(out, rj["reason"].(string))
	}
	return out
}

func TestPushLeadsRules(t *testing.T) {
	t.Parallel()
	e := newLeadEnv(t)
	camp := e.campaign(t, map[string]any{"roles": map[string]any{"exclude": []string{"intern"}}})
	other := e.campaign(t, nil)
	wantStatus(t, e.push(t, other, []map[string]any{lead("busy-bee")}), 202)
	wantStatus(t, e.org.Write.Do(t, "POST", "/api/v1/blacklist", map[string]any{"entries": []map[string]any{
		{"value": "https://www.linkedin.com/in/blocked-bob", "type": "account"},
		{"value": "Initech LLC", "type": "company"},
		{"value": "https://linkedin.com/company/globex", "type": "company"},
	}}), 200)

	t.Run("profile variants are one person", func(t *testing.T) {
		r := e.push(t, camp, []map[string]any{
			lead("https://www.linkedin.com/in/jane-doe", "first_name", "Jane", "last_name", "Doe"),
			lead("jane-doe"), lead("https://www.linkedin.com/in/jane-doe/"), lead("linkedin.com/in/jane-doe?utm_source=x"),
			lead("HTTPS://WWW.LINKEDIN.COM/IN/JANE-DOE"), lead("https://de.linkedin.com/in/jane-doe"),
		}, "Idempotency-Key", "batch-jane-1")
		wantStatus(t, r, 202)
		acc := list(r.JSON["accepted"])
		if len(acc) != 1 || acc[0]["created"] != true || acc[0]["name"] != "Jane Doe" || acc[0]["linkedin_id"] != "jane-doe" {
			t.Fatalf("accepted = %v", acc)
		}
		if got := reasons(r); strings.Join(got, ",") != strings.Repeat("duplicate_in_request,", 4)+"duplicate_in_request" {
			t.Fatalf("rejected reasons = %v", got)
		}
		if r.JSON["batch_id"] != "batch-jane-1" || r.JSON["campaign_id"] != camp {
			t.Fatalf("batch_id/campaign_id = %v %v", r.JSON["batch_id"], r.JSON["campaign_id"])
		}
		counts := r.JSON["counts"].(map[string]any)
		if counts["received"] != 6.0 || counts["accepted"] != 1.0 || counts["rejected"] != 5.0 || counts["duplicates"] != 0.0 {
			t.Fatalf("counts = %v", counts)
		}

		again := e.push(t, camp, []map[string]any{lead("https://uk.linkedin.com/in/Jane-Doe/")})
		wantStatus(t, again, 202)
		a := list(again.JSON["accepted"])
		if len(a) != 1 || a[0]["lead_id"] != acc[0]["lead_id"] || a[0]["created"] != false {
			t.Fatalf("re-send accepted = %v", a)
		}
		if c := again.JSON["counts"].(map[string]any); c["duplicates"] != 1.0 || c["accepted"] != 1.0 {
			t.Fatalf("re-send counts = %v", c)
		}
		if !strings.HasPrefix(again.JSON["batch_id"].(string), "bat_") {
			t.Fatalf("generated batch_id = %v", again.JSON["batch_id"])
		}
		ls := e.org.Read.Do(t, "GET", "/api/v1/campaigns/"+camp+"/leads?batch_id=batch-jane-1", nil)
		wantStatus(t, ls, 200)
		if d := list(ls.JSON["data"]); len(d) != 1 || d[0]["lead_id"] != acc[0]["lead_id"] || d[0]["batch_id"] != "batch-jane-1" || d[0]["source"] != "api" {
			t.Fatalf("list by batch = %s", ls.Body)
		}
	})

	t.Run("immediate rejections", func(t *testing.T) {
		cases := []struct {
			name   string
			lead   map[string]any
			reason string
		}{
			{"company page as profile", lead("https://www.linkedin.com/company/acme"), "invalid_linkedin_url"},
			{"not linkedin", lead("https://example.com/in/someone"), "invalid_linkedin_url"},
			{"empty", lead(""), "invalid_linkedin_url"},
			{"blacklisted profile", lead("https://www.linkedin.com/in/Blocked-Bob?x=1"), "blacklisted"},
			{"blacklisted company name", lead("initech-ian", "company", "initech, llc"), "blacklisted"},
			{"blacklisted company page", lead("globex-gina", "company", "https://www.linkedin.com/company/globex/"), "blacklisted"},
			{"in another campaign", lead("https://www.linkedin.com/in/busy-bee/"), "already_in_another_campaign"},
			{"hard filter", lead("ivan-intern", "title", "Sales Intern"), "hard_filter"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				before := e.count(t, `SELECT count(*) FROM prospects WHERE campaign_id = $1`, camp)
				r := e.push(t, camp, []map[string]any{tc.lead})
				wantStatus(t, r, 202)
				rej := list(r.JSON["rejected"])
				if len(rej) != 1 || rej[0]["reason"] != tc.reason || rej[0]["message"] == "" || rej[0]["input"] != tc.lead["linkedin_url"] {
					t.Fatalf("rejected = %s", r.Body)
				}
				after := e.count(t, `SELECT count(*) FROM prospects WHERE campaign_id = $1`, camp)
				if tc.reason != "hard_filter" {
					if _, has := rej[0]["lead_id"]; has || after != before {
						t.Fatalf("a %s rejection saved a lead or carries lead_id: %s", tc.reason, r.Body)
					}
					return
				}
				id, _ := rej[0]["lead_id"].(string)
				if id == "" || after != before+1 || !strings.Contains(rej[0]["message"].(string), "intern") {
					t.Fatalf("hard_filter rejection = %s", r.Body)
				}
				g := e.org.Read.Do(t, "GET", "/api/v1/leads/"+id, nil)
				wantStatus(t, g, 200)
				d := g.JSON["data"].(map[string]any)
				if d["filter_verdict"] != "rejected" || d["filter_unknown_only"] != false || !strings.Contains(fmt.Sprint(d["filter_reason"]), "intern") {
					t.Fatalf("GET hard-filtered lead = %s", g.Body)
				}
			})
		}
	})

	t.Run("bad requests write nothing", func(t *testing.T) {
		many := make([]map[string]any, 101)
		for i := range many {
			many[i] = lead(fmt.Sprintf("person-%03d", i))
		}
		data := map[string]any{}
		for i := range 21 {
			data[fmt.Sprintf("k%d", i)] = i
		}
		cases := []struct {
			name    string
			body    any
			headers []string
			want    string // part of the message
		}{
			{"no leads", map[string]any{"leads": []any{}}, nil, "leads"},
			{"leads missing", map[string]any{}, nil, "leads"},
			{"101 leads", map[string]any{"leads": many}, nil, "101"},
			{"21 data pairs", map[string]any{"leads": []any{lead("data-dan", "data", data)}}, nil, "data"},
			{"nested data", map[string]any{"leads": []any{lead("data-dan", "data", map[string]any{"a": map[string]any{}})}}, nil, "nested"},
			{"malformed JSON", `{"leads": [`, nil, "JSON"},
			{"leads not an array", `{"leads": {"linkedin_url": "x-person"}}`, nil, "leads"},
			{"wrong type", `{"leads": [{"linkedin_url": 42}]}`, nil, "linkedin_url"},
			{"unknown top field", `{"leads": [{"linkedin_url": "good-guy"}], "mode": "x"}`, nil, "mode"},
			{"missing linkedin_url", `{"leads": [{"linkedin_url": "good-guy"}, {"name": "No Url"}]}`, nil, "leads[1].linkedin_url"},
			{"over-long company", map[string]any{"leads": []any{lead("good-guy", "company", strings.Repeat("x", 501))}}, nil, "company"},
			{"over-long Idempotency-Key", map[string]any{"leads": []any{lead("good-guy")}}, []string{"Idempotency-Key", strings.Repeat("k", 201)}, "Idempotency-Key"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				before := e.count(t, `SELECT count(*) FROM prospects WHERE org_id = $1`, e.org.ID)
				r := e.org.Write.Do(t, "POST", "/api/v1/campaigns/"+camp+"/leads", tc.body, tc.headers...)
				msg := wantCode(t, r, 400, "invalid_request")
				if !strings.Contains(msg, tc.want) {
					t.Fatalf("message %q does not name %q", msg, tc.want)
				}
				if after := e.count(t, `SELECT count(*) FROM prospects WHERE org_id = $1`, e.org.ID); after != before {
					t.Fatalf("a 400 wrote %d rows", after-before)
				}
			})
		}
	})

	t.Run("scope and organization", func(t *testing.T) {
		wantCode(t, e.org.Read.Do(t, "POST", "/api/v1/campaigns/"+camp+"/leads", map[string]any{"leads": []any{lead("read-only")}}), 403, "insufficient_scope")
		stranger := testenv.NewOrg(t, e.srv)
		wantCode(t, stranger.Write.Do(t, "POST", "/api/v1/campaigns/"+camp+"/leads", map[string]any{"leads": []any{lead("cross-org")}}), 404, "not_found")
		wantCode(t, stranger.Read.Do(t, "GET", "/api/v1/campaigns/"+camp+"/leads", nil), 404, "not_found")
		id := list(e.push(t, camp, []map[string]any{lead("visible-vic")}).JSON["accepted"])[0]["lead_id"].(string)
		wantStatus(t, e.org.Read.Do(t, "GET", "/api/v1/leads/"+id, nil), 200)
		wantCode(t, stranger.Read.Do(t, "GET", "/api/v1/leads/"+id, nil), 404, "not_found")
		wantCode(t, e.org.Read.Do(t, "GET", "/api/v1/leads/prs_nope", nil), 404, "not_found")
	})
}

func TestPushLeadsClosedCampaign(t *testing.T) {
	t.Parallel()
	e := newLeadEnv(t)
	completed := e.campaign(t, nil)
	testenv.Admin(t, e.srv.DBURL, "campaign", "set-status", "--campaign", completed, "--status", "active")
	testenv.Admin(t, e.srv.DBURL, "campaign", "set-status", "--campaign", completed, "--status", "completed")
	archived := e.campaign(t, nil)
	testenv.Admin(t, e.srv.DBURL, "campaign", "set-status", "--campaign", archived, "--status", "archived")
	for name, id := range map[string]string{"completed": completed, "archived": archived} {
		t.Run(name, func(t *testing.T) {
			wantCode(t, e.push(t, id, []map[string]any{lead("late-larry")}), 409, "campaign_closed")
			if n := e.count(t, `SELECT count(*) FROM prospects WHERE campaign_id = $1`, id); n != 0 {
				t.Fatalf("%d rows written", n)
			}
		})
	}
}

func TestListLeads(t *testing.T) {
	t.Parallel()
	e := newLeadEnv(t)
	camp := e.campaign(t, nil)
	wantStatus(t, e.push(t, camp, []map[string]any{lead("alpha-a", "source", "crm"), lead("bravo-b"), lead("charlie-c")}, "Idempotency-Key", "k1"), 202)
	// A prospect that did not come through a push.
	e.sql(t, `INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, source) VALUES ($1, $2, $3, 'in:delta-d', 'delta-d', 'Delta', 'linkedin_search')`,
		outreach.NewID("prs"), e.org.ID, camp)
	cases := []struct {
		query string
		total int
		n     int
	}{
		{"", 3, 3}, {"?source=all", 4, 4}, {"?source=crm", 1, 1}, {"?batch_id=k1", 3, 3}, {"?batch_id=nope", 0, 0},
		{"?limit=2", 3, 2}, {"?limit=2&offset=2", 3, 1},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			r := e.org.Read.Do(t, "GET", "/api/v1/campaigns/"+camp+"/leads"+tc.query, nil)
			wantStatus(t, r, 200)
			p := r.JSON["pagination"].(map[string]any)
			if d := list(r.JSON["data"]); len(d) != tc.n || p["total"] != float64(tc.total) {
				t.Fatalf("got %d rows, pagination %v; want %d of %d", len(d), p, tc.n, tc.total)
			}
		})
	}
	r := e.org.Read.Do(t, "GET", "/api/v1/campaigns/"+camp+"/leads?limit=1", nil)
	d := list(r.JSON["data"])[0]
	for _, k := range []string{"lead_id", "campaign_id", "linkedin_id", "name", "status", "contacted", "enrichment_status", "filter_verdict",
		"filter_reason", "batch_id", "source", "linkedin_url", "public_identifier", "role", "company", "industry", "location", "headline",
		"company_website", "company_linkedin_url", "company_size", "follower_count", "created_at", "updated_at"} {
		if _, ok := d[k]; !ok {
			t.Errorf("lead lacks %s: %v", k, d)
		}
	}
	for _, q := range []string{"?limit=201", "?limit=0", "?offset=-1", "?limit=x"} {
		wantCode(t, e.org.Read.Do(t, "GET", "/api/v1/campaigns/"+camp+"/leads"+q, nil), 400, "invalid_request")
	}
}

// Enrichment resolves pushed leads in the background and emits their verdicts; filter_reason
// follows the campaign's filters as they stand at read time.
func TestEnrichmentResolvesLeads(t *testing.T) {
	t.Parallel()
	e := newLeadEnv(t)
	camp := e.campaign(t, map[string]any{"locations": map[string]any{"include": []string{"germany"}}})
	r := e.push(t, camp, []map[string]any{
		lead("berlin-bea", "location", "Berlin, Germany", "company", "Pushed GmbH"),
		lead("oslo-ola", "location", "Oslo, Norway"),
		lead("hamburg-hal", "location", "Hamburg, Germany", "title", "CTO"),
	}, "Idempotency-Key", "enrich-batch")
	wantStatus(t, r, 202)
	ids := map[string]string{}
	for _, a := range list(r.JSON["accepted"]) {
		ids[a["linkedin_id"].(string)] = a["lead_id"].(string)
	}
	if len(ids) != 2 {
		t.Fatalf("accepted = %s", r.Body)
	}
	for name, id := range ids {
		d := waitEnriched(t, e, id)
		if d["filter_verdict"] != "accepted" || d["enrichment_status"] != "done" || d["filter_reason"] != nil {
			t.Fatalf("%s resolved as %v", name, d)
		}
		if _, has := d["filter_unknown_only"]; has {
			t.Fatalf("%s: filter_unknown_only on an accepted lead: %v", name, d)
		}
		if name == "berlin-bea" && d["company"] != "Pushed GmbH" {
			t.Fatalf("pushed company replaced: %v", d)
		}
	}
	acc := e.events(t, outreach.EventLeadAccepted)
	if len(acc) != 2 || acc[0].Data.Lead.BatchID != "enrich-batch" || acc[0].Data.Campaign.ID != camp || acc[0].Data.Prospect.LeadID == "" {
		t.Fatalf("lead_accepted events = %+v", acc)
	}
	if rej := e.events(t, outreach.EventLeadRejected); len(rej) != 1 || rej[0].Data.Lead.Reason == "" {
		t.Fatalf("lead_rejected events (oslo at push) = %+v", rej)
	}
	if added := e.events(t, outreach.EventProspectAdded); len(added) != 2 {
		t.Fatalf("prospect_added events = %d", len(added))
	}

	// Tighten the filters: the accepted leads keep their verdict, but filter_reason now says
	// why they would fail.
	e.sql(t, `UPDATE campaigns SET hard_filters = '{"locations":{"include":["berlin"]}}' WHERE id = $1`, camp)
	d := e.org.Read.Do(t, "GET", "/api/v1/leads/"+ids["hamburg-hal"], nil).JSON["data"].(map[string]any)
	if d["filter_verdict"] != "accepted" || !strings.Contains(fmt.Sprint(d["filter_reason"]), "berlin") {
		t.Fatalf("after filter change: %v", d)
	}
	if d := e.org.Read.Do(t, "GET", "/api/v1/leads/"+ids["berlin-bea"], nil).JSON["data"].(map[string]any); d["filter_reason"] != nil {
		t.Fatalf("berlin lead still passes, filter_reason = %v", d["filter_reason"])
	}
}

func waitEnriched(t *testing.T, e leadEnv, id string) map[string]any {
	t.Helper()
	var d map[string]any
	testenv.Eventually(t, 20*time.Second, func() (bool, string) {
		r := e.org.Read.Do(t, "GET", "/api/v1/leads/"+id, nil)
		wantStatus(t, r, 200)
		d = r.JSON["data"].(map[string]any)
		return d["enrichment_status"] != "pending", fmt.Sprintf("lead %s still pending: %v", id, d)
	})
	return d
}
