package api_test

import (
	"reflect"
	"strings"
	"testing"

	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// cpSeat adds a LinkedIn seat to an organization directly (a test fixture) and returns its id.
func cpSeat(t *testing.T, dbURL, orgID, name string) string {
	t.Helper()
	id := outreach.NewID("acc")
	cpExec(t, dbURL, `INSERT INTO linkedin_accounts (id, org_id, name, provider_account_id) VALUES ($1, $2, $3, $4)`,
		id, orgID, name, "sim-"+id)
	return id
}

// TestEditDraftCampaign: PATCH /campaigns/{id} changes only what it sends, with the rules of
// create; a refused edit changes nothing; only drafts can be edited.
func TestEditDraftCampaign(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=10000")
	org := testenv.NewOrg(t, srv)
	other := testenv.NewOrg(t, srv)
	seat := cpSeat(t, srv.DBURL, org.ID, "Sam Seller")
	theirs := cpSeat(t, srv.DBURL, other.ID, "Eve Seller")
	src := cpCreate(t, org.Write, map[string]any{"name": "Founders", "daily_limit": 25,
		"schedule": map[string]any{"timezone": "Europe/Berlin", "workingDays": []any{1, 2}, "startTime": "09:00", "endTime": "17:00"},
		"sequence": []any{map[string]any{"type": "connect", "text": "Hi {{first_name}}"}},
		"meta":     map[string]any{"hard_filters": map[string]any{"locations": map[string]any{"include": []any{"Berlin"}}}}})
	id := src["id"].(string)
	path := "/api/v1/campaigns/" + id

	r := org.Write.Do(t, "PATCH", path, map[string]any{"daily_limit": 40, "account_ids": []any{seat},
		"sequence": []any{map[string]any{"type": "connect", "text": "Hello {{first_name}}"},
			map[string]any{"type": "message", "delay_days": 2, "text": "Thanks, {{first_name}}",
				"attachments": []any{map[string]any{"url": "http://x.example.com/a.pdf"}}}}})
	cpStatus(t, r, 200)
	item := r.JSON["item"].(map[string]any)
	if item["daily_limit"] != float64(40) || !reflect.DeepEqual(item["account_ids"], []any{seat}) || item["status"] != "draft" {
		t.Fatalf("edit: %s", r.Body)
	}
	if seq := item["sequence"].([]any); len(seq) != 2 || seq[1].(map[string]any)["text"] != "Thanks, {{first_name}}" {
		t.Fatalf("sequence: %v", seq)
	}
	if st := item["stripped_attachments"].([]any); len(st) != 1 {
		t.Fatalf("the http attachment was not stripped: %s", r.Body)
	}
	for _, k := range []string{"name", "schedule", "meta", "outreach_type"} {
		if !reflect.DeepEqual(item[k], src[k]) {
			t.Errorf("%s changed though not sent: %v, was %v", k, item[k], src[k])
		}
	}
	got := org.Read.Do(t, "GET", path, nil)
	if !reflect.DeepEqual(got.JSON["data"].(map[string]any)["sequence"], item["sequence"]) {
		t.Fatalf("GET shows another sequence: %s", got.Body)
	}

	refused := []struct {
		name, body string
		status     int
		code, says string
	}{
		{"inbound with the connect step kept", `{"outreach_type":"inbound"}`, 400, "invalid_request", "sequence[0] is a connect step, but an inbound campaign"},
		{"impossible filter", `{"meta":{"hard_filters":{"company_size":{"min":500,"max":50}}}}`, 422, "invalid_filters",
			"meta.hard_filters: company_size.min (500) is greater than company_size.max (50), so nobody can pass it"},
		{"another organization's seat", `{"account_ids":["` + theirs + `"]}`, 400, "invalid_request", "account_ids[0] " + theirs + " is not a LinkedIn account of this organization"},
		{"not a seat id", `{"account_ids":["Sam"]}`, 400, "invalid_request", `account_ids[0] "Sam" is not a LinkedIn account id`},
		{"a seat twice", `{"account_ids":["` + seat + `","` + seat + `"]}`, 400, "invalid_request", "listed twice"},
		{"unknown key", `{"status":"active"}`, 400, "invalid_request", `"status"`},
		{"blank name", `{"name":" "}`, 400, "invalid_request", "name"},
		{"malformed", `{"name":`, 400, "invalid_request", "malformed"},
		{"long note", `{"sequence":[{"type":"connect","text":"` + strings.Repeat("x", 301) + `"}]}`, 400, "invalid_request", "300"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			r := org.Write.Do(t, "PATCH", path, tc.body)
			cpStatus(t, r, tc.status)
			if code, msg := cpErr(r); code != tc.code || !strings.Contains(msg, tc.says) {
				t.Fatalf("error %q %q, want %s saying %q", code, msg, tc.code, tc.says)
			}
		})
	}
	if after := org.Read.Do(t, "GET", path, nil); !reflect.DeepEqual(after.JSON, got.JSON) {
		t.Fatalf("a refused edit changed the draft:\n%s\nwas\n%s", after.Body, got.Body)
	}

	// Cleared seats, a replaced schedule, the type changed along with the steps.
	r = org.Write.Do(t, "PATCH", path, map[string]any{"account_ids": []any{}, "outreach_type": "inbound",
		"schedule": map[string]any{"timezone": "UTC"}, "sequence": []any{map[string]any{"type": "message", "text": "Hi"}}})
	cpStatus(t, r, 200)
	item = r.JSON["item"].(map[string]any)
	if !reflect.DeepEqual(item["account_ids"], []any{}) || item["outreach_type"] != "inbound" ||
		item["schedule"].(map[string]any)["startTime"] != "06:00" {
		t.Fatalf("second edit: %s", r.Body)
	}

	for _, tc := range []struct {
		name   string
		c      testenv.Client
		path   string
		status int
		code   string
	}{
		{"another organization", other.Write, path, 404, "not_found"},
		{"a read key", org.Read, path, 403, "insufficient_scope"},
		{"no such campaign", org.Write, "/api/v1/campaigns/" + outreach.NewID("cmp"), 404, "not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.c.Do(t, "PATCH", tc.path, `{"daily_limit":5}`)
			cpStatus(t, r, tc.status)
			if code, _ := cpErr(r); code != tc.code {
				t.Fatalf("code: %s", r.Body)
			}
		})
	}

	cpExec(t, srv.DBURL, `UPDATE campaigns SET status = 'active', started_at = now() WHERE id = $1`, id)
	r = org.Write.Do(t, "PATCH", path, `{"daily_limit":5}`)
	cpStatus(t, r, 409)
	if code, msg := cpErr(r); code != "conflict" || !strings.Contains(msg, "is active; only a draft can be edited") {
		t.Fatalf("active campaign: %s", r.Body)
	}
}

// TestCreateCampaignSeats: POST /campaigns takes the organization's own seats only.
func TestCreateCampaignSeats(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	seat := cpSeat(t, srv.DBURL, org.ID, "Sam Seller")
	if c := cpCreate(t, org.Write, map[string]any{"name": "With a seat", "account_ids": []any{seat}}); !reflect.DeepEqual(c["account_ids"], []any{seat}) {
		t.Fatalf("seats: %v", c["account_ids"])
	}
	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "x", "account_ids": []any{outreach.NewID("acc")}})
	cpStatus(t, r, 400)
	if n := cpInt(t, srv.DBURL, `SELECT count(*) FROM campaigns WHERE org_id = $1`, org.ID); n != 1 {
		t.Fatalf("a refused create left a campaign: %d", n)
	}
}
