package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// cpExec runs one statement on the server's database (test fixtures only).
func cpExec(t *testing.T, dbURL, query string, args ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// cpInt runs a query answering one integer.
func cpInt(t *testing.T, dbURL, query string, args ...any) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// cpProspect adds a prospect row directly, created `age` ago.
func cpProspect(t *testing.T, dbURL, orgID, campaignID, name, status string, age time.Duration) string {
	t.Helper()
	id := outreach.NewID("prs")
	cpExec(t, dbURL, `INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, status, source, created_at, company, follower_count)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 'api', now() - $8::interval, $9, $10)`,
		id, orgID, campaignID, "in:"+id, "li-"+id, name, status, fmt.Sprintf("%d milliseconds", age.Milliseconds()),
		"Acme "+name, 42)
	return id
}

func cpOutbox(t *testing.T, dbURL, orgID string) []outreach.Event {
	t.Helper()
	st, err := storage.Open(context.Background(), dbURL, storage.Config{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.OutboxEvents(context.Background(), orgID)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func cpKind(evs []outreach.Event, k outreach.EventKind) []outreach.Event {
	var out []outreach.Event
	for _, e := range evs {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func cpStatus(t *testing.T, r testenv.Response, want int) {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status %d, want %d: %s", r.Status, want, r.Body)
	}
}

func cpCreate(t *testing.T, c testenv.Client, body any) map[string]any {
	t.Helper()
	r := c.Do(t, "POST", "/api/v1/campaigns", body)
	cpStatus(t, r, 200)
	if r.JSON["ok"] != true {
		t.Fatalf("create answer lacks ok:true: %s", r.Body)
	}
	return r.JSON["item"].(map[string]any)
}

func cpErr(r testenv.Response) (string, string) {
	e, _ := r.JSON["error"].(map[string]any)
	code, _ := e["code"].(string)
	msg, _ := e["message"].(string)
	return code, msg
}

func TestCreateCampaignDefaults(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)

	item := cpCreate(t, org.Write, map[string]any{"name": "  Q4 founders  "})
	want := map[string]any{
		"name": "Q4 founders", "status": "draft", "outreach_type": "connect", "daily_limit": float64(20),
		"sequence": []any{}, "schedule": map[string]any{
			"timezone": "UTC", "startTime": "06:00", "endTime": "23:00",
			"workingDays": []any{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"},
		},
		"meta": map[string]any{"hard_filters": map[string]any{}}, "prospect_counts": map[string]any{},
		"stripped_attachments": []any{}, "source_type": nil, "source_config": nil, "account_ids": []any{},
		"started_at": nil, "completed_at": nil,
	}
	for k, v := range want {
		if !reflect.DeepEqual(item[k], v) {
			t.Errorf("item.%s = %#v, want %#v", k, item[k], v)
		}
	}
	id := item["id"].(string)
	if !outreach.ValidID("cmp", id) {
		t.Fatalf("id %q", id)
	}
	for _, k := range []string{"created_at", "updated_at"} {
		if _, err := time.Parse(outreach.TimeLayout, item[k].(string)); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}

	in := cpCreate(t, org.Write, map[string]any{"name": "Warm", "outreach_type": "inbound", "daily_limit": 500,
		"source_type": "post_engagers", "source_config": map[string]any{"post_url": "https://www.linkedin.com/feed/update/1"}})
	if in["outreach_type"] != "inbound" || in["daily_limit"] != float64(500) || in["source_type"] != "post_engagers" ||
		in["source_config"].(map[string]any)["post_url"] == nil {
		t.Fatalf("inbound item %v", in)
	}
	if out := cpCreate(t, org.Write, map[string]any{"name": "Out", "outreach_type": "outbound"}); out["outreach_type"] != "connect" {
		t.Fatalf("outbound reads as %v", out["outreach_type"])
	}

	// GET /campaigns/{id} has the same full shape; the list is newest first, without sequence and schedule.
	g := org.Read.Do(t, "GET", "/api/v1/campaigns/"+id, nil)
	cpStatus(t, g, 200)
	got := g.JSON["data"].(map[string]any)
	if !reflect.DeepEqual(got["schedule"], want["schedule"]) || !reflect.DeepEqual(got["sequence"], []any{}) || got["name"] != "Q4 founders" {
		t.Fatalf("GET one: %s", g.Body)
	}
	if _, ok := got["stripped_attachments"]; ok {
		t.Fatalf("stripped_attachments belongs to the create answer only: %s", g.Body)
	}
	l := org.Read.Do(t, "GET", "/api/v1/campaigns", nil)
	cpStatus(t, l, 200)
	list := l.JSON["data"].([]any)
	if len(list) != 3 {
		t.Fatalf("list has %d campaigns: %s", len(list), l.Body)
	}
	if list[0].(map[string]any)["name"] != "Out" || list[2].(map[string]any)["name"] != "Q4 founders" {
		t.Fatalf("list not newest first: %s", l.Body)
	}
	for _, c := range list {
		m := c.(map[string]any)
		for _, k := range []string{"sequence", "schedule"} {
			if _, ok := m[k]; ok {
				t.Fatalf("list item carries %s: %v", k, m)
			}
		}
		for _, k := range []string{"id", "name", "status", "outreach_type", "created_at", "updated_at", "prospect_counts"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("list item lacks %s: %v", k, m)
			}
		}
	}
}

func TestCreateCampaignValidation(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=10000")
	org := testenv.NewOrg(t, srv)

	cases := []struct {
		name   string
		body   string
		status int
		code   string
		says   string
	}{
		{"empty body", ``, 400, "invalid_request", "empty"},
		{"malformed", `{"name":`, 400, "invalid_request", "malformed"},
		{"not an object", `["x"]`, 400, "invalid_request", "object"},
		{"missing name", `{}`, 400, "invalid_request", "name is required"},
		{"blank name", `{"name":"   "}`, 400, "invalid_request", "name"},
		{"long name", `{"name":"` + strings.Repeat("é", 201) + `"}`, 400, "invalid_request", "200"},
		{"name not string", `{"name":42}`, 400, "invalid_request", `"name"`},
		{"name with NUL", `{"name":"a\u0000b"}`, 400, "invalid_request", "NUL"},
		{"NUL in source_config", `{"name":"a","source_config":{"k":"\u0000"}}`, 400, "invalid_request", "NUL"},
		{"unknown field", `{"name":"a","launch":true}`, 400, "invalid_request", `"launch"`},
		{"daily_limit string", `{"name":"a","daily_limit":"20"}`, 400, "invalid_request", "daily_limit"},
		{"daily_limit fraction", `{"name":"a","daily_limit":20.5}`, 400, "invalid_request", "daily_limit"},
		{"daily_limit zero", `{"name":"a","daily_limit":0}`, 400, "invalid_request", "daily_limit"},
		{"daily_limit too high", `{"name":"a","daily_limit":501}`, 400, "invalid_request", "daily_limit"},
		{"outreach_type", `{"name":"a","outreach_type":"email"}`, 400, "invalid_request", "outreach_type"},
		{"source_type", `{"name":"a","source_type":"csv"}`, 400, "invalid_request", "source_type"},
		{"source_config not object", `{"name":"a","source_config":"https://x"}`, 400, "invalid_request", "source_config"},
		{"schedule not object", `{"name":"a","schedule":"daily"}`, 400, "invalid_request", "schedule"},
		{"schedule unknown key", `{"name":"a","schedule":{"days":[1]}}`, 400, "invalid_request", `"days"`},
		{"bad timezone", `{"name":"a","schedule":{"timezone":"Mars/Olympus"}}`, 400, "invalid_request", "timezone"},
		{"Local timezone", `{"name":"a","schedule":{"timezone":"Local"}}`, 400, "invalid_request", "timezone"},
		{"bad startTime", `{"name":"a","schedule":{"startTime":"25:00"}}`, 400, "invalid_request", "startTime"},
		{"sloppy endTime", `{"name":"a","schedule":{"endTime":"9:00"}}`, 400, "invalid_request", "endTime"},
		{"start after end", `{"name":"a","schedule":{"startTime":"18:00","endTime":"09:00"}}`, 400, "invalid_request", "before"},
		{"no working days", `{"name":"a","schedule":{"workingDays":[]}}`, 400, "invalid_request", "workingDays"},
		{"day zero", `{"name":"a","schedule":{"workingDays":[0]}}`, 400, "invalid_request", "workingDays[0]"},
		{"day name", `{"name":"a","schedule":{"workingDays":["mon","funday"]}}`, 400, "invalid_request", "funday"},
		{"sequence not array", `{"name":"a","sequence":{"type":"message"}}`, 400, "invalid_request", "sequence"},
		{"step type", `{"name":"a","sequence":[{"type":"wait","delay_days":2}]}`, 400, "invalid_request", "sequence[0].type"},
		{"message without text", `{"name":"a","sequence":[{"type":"message"}]}`, 400, "invalid_request", "sequence[0].text"},
		{"step unknown key", `{"name":"a","sequence":[{"type":"message","text":"hi","body":"x"}]}`, 400, "invalid_request", `"body"`},
		{"negative delay", `{"name":"a","sequence":[{"type":"message","text":"hi","delay_days":-1}]}`, 400, "invalid_request", "delay_days"},
		{"connect in inbound", `{"name":"a","outreach_type":"inbound","sequence":[{"type":"connect"}]}`, 400, "invalid_request", "inbound"},
		{"connect not first", `{"name":"a","sequence":[{"type":"message","text":"hi"},{"type":"connect"}]}`, 400, "invalid_request", "sequence[1]"},
		{"long invitation note", `{"name":"a","sequence":[{"type":"connect","text":"` + strings.Repeat("x", 301) + `"}]}`, 400, "invalid_request", "300"},
		{"attachment not object", `{"name":"a","sequence":[{"type":"message","text":"hi","attachments":["https://x.io/a.pdf"]}]}`, 400, "invalid_request", "attachments[0]"},
		{"meta unknown key", `{"name":"a","meta":{"filters":{}}}`, 400, "invalid_request", `"filters"`},
		{"filters contradict", `{"name":"a","meta":{"hard_filters":{"roles":{"include":["CTO"],"exclude":["cto"]}}}}`, 422, "invalid_filters", "roles"},
		{"range impossible", `{"name":"a","meta":{"hard_filters":{"company_size":{"min":500,"max":50}}}}`, 422, "invalid_filters", "company_size"},
		{"unknown rule", `{"name":"a","meta":{"hard_filters":{"seniority":{"include":["VP"]}}}}`, 422, "invalid_filters", "seniority"},
		{"filters not object", `{"name":"a","meta":{"hard_filters":[1]}}`, 422, "invalid_filters", "hard_filters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := org.Write.Do(t, "POST", "/api/v1/campaigns", tc.body)
			cpStatus(t, r, tc.status)
			code, msg := cpErr(r)
			if code != tc.code || !strings.Contains(msg, tc.says) {
				t.Fatalf("error %q %q, want code %s naming %q", code, msg, tc.code, tc.says)
			}
		})
	}
	// Nothing was written by any refused request.
	if l := org.Read.Do(t, "GET", "/api/v1/campaigns", nil); len(l.JSON["data"].([]any)) != 0 {
		t.Fatalf("refused creates left campaigns behind: %s", l.Body)
	}
	// A read key cannot create.
	r := org.Read.Do(t, "POST", "/api/v1/campaigns", `{"name":"a"}`)
	cpStatus(t, r, 403)
	if code, _ := cpErr(r); code != "insufficient_scope" {
		t.Fatalf("read key: %s", r.Body)
	}
}

func TestCreateCampaignScheduleAndSequence(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)

	long := "https://files.example.com/" + strings.Repeat("a", 2100) + ".pdf"
	item := cpCreate(t, org.Write, map[string]any{
		"name":     "Berlin",
		"schedule": map[string]any{"timezone": "Europe/Berlin", "workingDays": []any{5, "wed", "Monday", 1}, "startTime": "09:30", "endTime": "17:00"},
		"sequence": []any{
			map[string]any{"type": "connect", "text": "Hi {first_name}"},
			map[string]any{"type": "message", "delay_days": 2, "text": "Thanks for connecting", "attachments": []any{
				map[string]any{"url": "https://files.example.com/deck.pdf", "name": "deck.pdf", "content_type": "application/pdf"},
				map[string]any{"url": "javascript:alert(1)", "name": "x"},
				map[string]any{"url": "data:text/html;base64,PHNjcmlwdD4=", "name": "y"},
				map[string]any{"url": "http://files.example.com/plain.pdf"},
				map[string]any{"url": "https://files.example.com/setup.EXE"},
				map[string]any{"url": "https://files.example.com/page", "content_type": "text/html; charset=utf-8"},
				map[string]any{"url": "https://files.example.com/doc.pdf", "name": "run.sh"},
				map[string]any{"url": long},
			}},
		},
	})
	wantSched := map[string]any{"timezone": "Europe/Berlin", "workingDays": []any{"monday", "wednesday", "friday"}, "startTime": "09:30", "endTime": "17:00"}
	if !reflect.DeepEqual(item["schedule"], wantSched) {
		t.Fatalf("schedule %v", item["schedule"])
	}
	stripped := item["stripped_attachments"].([]any)
	if len(stripped) != 7 {
		t.Fatalf("stripped %d attachments, want 7: %v", len(stripped), stripped)
	}
	for i, s := range stripped {
		m := s.(map[string]any)
		if m["step"] != float64(1) || m["index"] != float64(i+1) || m["reason"] == "" {
			t.Fatalf("stripped[%d] = %v", i, m)
		}
	}
	g := org.Read.Do(t, "GET", "/api/v1/campaigns/"+item["id"].(string), nil)
	cpStatus(t, g, 200)
	seq := g.JSON["data"].(map[string]any)["sequence"].([]any)
	wantSeq := []any{
		map[string]any{"type": "connect", "delay_days": float64(0), "text": "Hi {first_name}", "attachments": []any{}},
		map[string]any{"type": "message", "delay_days": float64(2), "text": "Thanks for connecting", "attachments": []any{
			map[string]any{"url": "https://files.example.com/deck.pdf", "name": "deck.pdf", "content_type": "application/pdf"},
		}},
	}
	if !reflect.DeepEqual(seq, wantSeq) {
		t.Fatalf("stored sequence %s", g.Body)
	}
}

func TestCampaignOrgDefaultFilters(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	cpExec(t, srv.DBURL, `UPDATE orgs SET default_filters = $2 WHERE id = $1`, org.ID,
		`{"companies":{"exclude":["Competitor Inc"]},"roles":{"exclude":["intern"]},"follower_count":{"min":10}}`)

	plain := cpCreate(t, org.Write, map[string]any{"name": "plain"})
	wantPlain := map[string]any{"companies": map[string]any{"exclude": []any{"Competitor Inc"}},
		"roles": map[string]any{"exclude": []any{"intern"}}, "follower_count": map[string]any{"min": float64(10)}}
	if got := plain["meta"].(map[string]any)["hard_filters"]; !reflect.DeepEqual(got, wantPlain) {
		t.Fatalf("defaults not stamped: %v", got)
	}

	own := cpCreate(t, org.Write, map[string]any{"name": "own", "meta": map[string]any{"hard_filters": map[string]any{
		"roles": map[string]any{"include": []any{"CTO"}, "exclude": []any{"student"}}, "follower_count": map[string]any{"min": 5, "max": 5000},
	}}})
	wantOwn := map[string]any{"companies": map[string]any{"exclude": []any{"Competitor Inc"}},
		"roles":          map[string]any{"include": []any{"CTO"}, "exclude": []any{"student", "intern"}},
		"follower_count": map[string]any{"min": float64(10), "max": float64(5000)}}
	if got := own["meta"].(map[string]any)["hard_filters"]; !reflect.DeepEqual(got, wantOwn) {
		t.Fatalf("merged filters %v", got)
	}

	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "clash",
		"meta": map[string]any{"hard_filters": map[string]any{"roles": map[string]any{"include": []any{"Intern"}}}}})
	cpStatus(t, r, 422)
	if code, msg := cpErr(r); code != "invalid_filters" || !strings.Contains(msg, "roles") || !strings.Contains(msg, "default") {
		t.Fatalf("clash with org defaults: %s", r.Body)
	}
}

func TestDuplicateCampaign(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	src := cpCreate(t, org.Write, map[string]any{
		"name": "Source", "outreach_type": "inbound", "daily_limit": 35, "source_type": "search_url",
		"source_config": map[string]any{"url": "https://www.linkedin.com/search/results/people/?keywords=cto"},
		"schedule":      map[string]any{"timezone": "America/New_York", "workingDays": []any{1, 2, 3}, "startTime": "08:00", "endTime": "12:00"},
		"sequence":      []any{map[string]any{"type": "message", "text": "Hello", "attachments": []any{map[string]any{"url": "https://x.example.com/a.pdf"}}}},
		"meta":          map[string]any{"hard_filters": map[string]any{"locations": map[string]any{"include": []any{"Berlin"}}}},
	})
	srcID := src["id"].(string)
	cpExec(t, srv.DBURL, `UPDATE campaigns SET ai_settings = '{"tone":"warm"}', account_ids = '{acc_1,acc_2}', status = 'active', started_at = now() WHERE id = $1`, srcID)
	cpProspect(t, srv.DBURL, org.ID, srcID, "Ada", "connected", time.Minute)

	r := org.Write.Do(t, "POST", "/api/v1/campaigns/"+srcID+"/duplicate", nil)
	cpStatus(t, r, 200)
	cp := r.JSON["item"].(map[string]any)
	if r.JSON["ok"] != true || cp["name"] != "Source (copy)" || cp["status"] != "draft" || cp["id"] == srcID {
		t.Fatalf("duplicate: %s", r.Body)
	}
	for _, k := range []string{"outreach_type", "daily_limit", "source_type", "source_config", "schedule", "sequence", "meta", "account_ids"} {
		if !reflect.DeepEqual(cp[k], src[k]) && k != "account_ids" {
			t.Errorf("copy.%s = %v, source has %v", k, cp[k], src[k])
		}
	}
	if !reflect.DeepEqual(cp["account_ids"], []any{"acc_1", "acc_2"}) || cp["started_at"] != nil {
		t.Errorf("copy seats %v, started_at %v", cp["account_ids"], cp["started_at"])
	}
	if !reflect.DeepEqual(cp["prospect_counts"], map[string]any{}) {
		t.Errorf("copy has prospects: %v", cp["prospect_counts"])
	}
	cpID := cp["id"].(string)
	if n := cpInt(t, srv.DBURL, `SELECT count(*) FROM campaigns WHERE id = $1 AND ai_settings = '{"tone":"warm"}'`, cpID); n != 1 {
		t.Errorf("ai_settings not copied")
	}
	if n := cpInt(t, srv.DBURL, `SELECT count(*) FROM prospects WHERE campaign_id = $1`, cpID); n != 0 {
		t.Errorf("copy got %d leads", n)
	}
	if p := org.Read.Do(t, "GET", "/api/v1/prospects?campaign_id="+cpID, nil); p.JSON["pagination"].(map[string]any)["total"] != float64(0) {
		t.Errorf("copy lists prospects: %s", p.Body)
	}

	again := org.Write.Do(t, "POST", "/api/v1/campaigns/"+srcID+"/duplicate", nil)
	cpStatus(t, again, 200)
	if again.JSON["item"].(map[string]any)["name"] != "Source (copy 2)" {
		t.Fatalf("second copy named %v", again.JSON["item"].(map[string]any)["name"])
	}
	ofCopy := org.Write.Do(t, "POST", "/api/v1/campaigns/"+cpID+"/duplicate", nil)
	cpStatus(t, ofCopy, 200)
	if ofCopy.JSON["item"].(map[string]any)["name"] != "Source (copy) (copy)" {
		t.Fatalf("copy of copy named %v", ofCopy.JSON["item"].(map[string]any)["name"])
	}
	long := cpCreate(t, org.Write, map[string]any{"name": strings.Repeat("n", 200)})
	lc := org.Write.Do(t, "POST", "/api/v1/campaigns/"+long["id"].(string)+"/duplicate", nil)
	cpStatus(t, lc, 200)
	if name := lc.JSON["item"].(map[string]any)["name"].(string); len(name) != 200 || !strings.HasSuffix(name, " (copy)") {
		t.Fatalf("copy of a 200-character name: %q", name)
	}
}

func TestCampaignEndpointsAcrossOrgsAndScopes(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	a := testenv.NewOrg(t, srv)
	b := testenv.NewOrg(t, srv)
	cmp := cpCreate(t, a.Write, map[string]any{"name": "A's"})["id"].(string)
	prs := cpProspect(t, srv.DBURL, a.ID, cmp, "Ada", "pending", 0)

	notFound := []struct{ method, path, body string }{
		{"GET", "/api/v1/campaigns/" + cmp, ""},
		{"POST", "/api/v1/campaigns/" + cmp + "/duplicate", ""},
		{"GET", "/api/v1/prospects/" + prs, ""},
		{"PATCH", "/api/v1/prospects/" + prs, `{"outcome":"booked"}`},
		{"GET", "/api/v1/campaigns/cmp_nope", ""},
		{"GET", "/api/v1/campaigns/" + outreach.NewID("cmp"), ""},
		{"POST", "/api/v1/campaigns/not-an-id/duplicate", ""},
		{"GET", "/api/v1/prospects/" + outreach.NewID("prs"), ""},
	}
	for _, tc := range notFound {
		t.Run("404 "+tc.method+" "+tc.path, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			r := b.Write.Do(t, tc.method, tc.path, body)
			cpStatus(t, r, 404)
			if code, _ := cpErr(r); code != "not_found" {
				t.Fatalf("code %s", r.Body)
			}
		})
	}
	if l := b.Read.Do(t, "GET", "/api/v1/campaigns", nil); len(l.JSON["data"].([]any)) != 0 {
		t.Fatalf("org B lists org A's campaigns: %s", l.Body)
	}
	if p := b.Read.Do(t, "GET", "/api/v1/prospects?campaign_id="+cmp, nil); len(p.JSON["data"].([]any)) != 0 || p.JSON["pagination"].(map[string]any)["total"] != float64(0) {
		t.Fatalf("org B sees org A's prospects: %s", p.Body)
	}
	if p := b.Read.Do(t, "GET", "/api/v1/prospects", nil); len(p.JSON["data"].([]any)) != 0 {
		t.Fatalf("org B sees org A's prospects: %s", p.Body)
	}

	forbidden := []struct{ method, path, body string }{
		{"POST", "/api/v1/campaigns", `{"name":"x"}`},
		{"POST", "/api/v1/campaigns/" + cmp + "/duplicate", ""},
		{"PATCH", "/api/v1/prospects/" + prs, `{"outcome":"booked"}`},
	}
	for _, tc := range forbidden {
		t.Run("403 "+tc.method+" "+tc.path, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			r := a.Read.Do(t, tc.method, tc.path, body)
			cpStatus(t, r, 403)
			if code, _ := cpErr(r); code != "insufficient_scope" {
				t.Fatalf("code %s", r.Body)
			}
		})
	}
	if n := cpInt(t, srv.DBURL, `SELECT count(*) FROM campaigns`); n != 1 {
		t.Fatalf("refused writes created campaigns: %d", n)
	}
	if n := cpInt(t, srv.DBURL, `SELECT count(*) FROM prospects WHERE booked_at IS NOT NULL`); n != 0 {
		t.Fatalf("refused PATCH booked a prospect")
	}
}

func TestAdminCampaignSetStatus(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	cmp := cpCreate(t, org.Write, map[string]any{"name": "Launch me"})["id"].(string)
	cpProspect(t, srv.DBURL, org.ID, cmp, "Ada", "pending", 0)
	cpProspect(t, srv.DBURL, org.ID, cmp, "Bob", "pending", 0)

	steps := []struct{ status string }{{"active"}, {"active"}, {"paused"}, {"active"}, {"completed"}, {"archived"}}
	for _, s := range steps {
		out := testenv.Admin(t, srv.DBURL, "campaign", "set-status", "--campaign", cmp, "--status", s.status)
		if !reflect.DeepEqual(out, map[string]any{"campaign_id": cmp, "status": s.status}) {
			t.Fatalf("set-status %s printed %v", s.status, out)
		}
	}
	evs := cpOutbox(t, srv.DBURL, org.ID)
	started := cpKind(evs, outreach.EventCampaignStarted)
	if len(started) != 1 {
		t.Fatalf("%d campaign_started events, want 1", len(started))
	}
	d := started[0].Data.Campaign
	if d.ID != cmp || d.Name != "Launch me" || d.Stats == nil || d.Stats.Prospects != 2 || d.Stats.ProspectsByStatus["pending"] != 2 {
		t.Fatalf("campaign_started data %+v", d)
	}
	if n := len(cpKind(evs, outreach.EventCampaignCompleted)); n != 1 {
		t.Fatalf("%d campaign_completed events, want 1", n)
	}
	g := org.Read.Do(t, "GET", "/api/v1/campaigns/"+cmp, nil)
	data := g.JSON["data"].(map[string]any)
	if data["status"] != "archived" || data["started_at"] == nil || data["completed_at"] == nil {
		t.Fatalf("after archiving: %s", g.Body)
	}
	if !reflect.DeepEqual(data["prospect_counts"], map[string]any{"pending": float64(2)}) {
		t.Fatalf("prospect_counts %v", data["prospect_counts"])
	}

	other := cpCreate(t, org.Write, map[string]any{"name": "Other"})["id"].(string)
	bad := []struct {
		name string
		args []string
		says string
	}{
		{"unknown status", []string{"--campaign", other, "--status", "launched"}, "launched"},
		{"missing status", []string{"--campaign", other}, "--status"},
		{"draft to completed", []string{"--campaign", other, "--status", "completed"}, "cannot go from draft to completed"},
		{"archived is final", []string{"--campaign", cmp, "--status", "active"}, "cannot go from archived"},
		{"unknown campaign", []string{"--campaign", outreach.NewID("cmp"), "--status", "active"}, "not found"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := testenv.AdminRaw(t, srv.DBURL, append([]string{"campaign", "set-status"}, tc.args...)...)
			var e map[string]string
			if code == 0 || stdout != "" || json.Unmarshal([]byte(stderr), &e) != nil || !strings.Contains(e["error"], tc.says) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want failure naming %q", code, stdout, stderr, tc.says)
			}
		})
	}
	if g := org.Read.Do(t, "GET", "/api/v1/campaigns/"+other, nil); g.JSON["data"].(map[string]any)["status"] != "draft" {
		t.Fatalf("refused transition changed the campaign: %s", g.Body)
	}
}
