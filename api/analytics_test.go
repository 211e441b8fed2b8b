package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// repEnv is a running server with one organization and a direct pool on its database, used
// to seed the rows the outreach engine writes (accounts, chats, drafts, activities...).
type repEnv struct {
	srv *testenv.Server
	org testenv.Org
	db  *pgxpool.Pool
}

func repStart(t *testing.T) repEnv {
	t.Helper()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	db, err := pgxpool.New(context.Background(), srv.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return repEnv{srv: srv, org: testenv.NewOrg(t, srv), db: db}
}

func (e repEnv) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := e.db.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func (e repEnv) scalar(t *testing.T, sql string, args ...any) any {
	t.Helper()
	var v any
	if err := e.db.QueryRow(context.Background(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// repCampaign inserts a campaign of orgID.
func (e repEnv) repCampaign(t *testing.T, orgID string) string {
	t.Helper()
	id := outreach.NewID("cmp")
	e.exec(t, `INSERT INTO campaigns (id, org_id, name, status, schedule) VALUES ($1, $2, $1, 'active', '{}')`, id, orgID)
	return id
}

// repProspect inserts a prospect for the handle (lead key in:<handle>) with a few person fields.
func (e repEnv) repProspect(t *testing.T, orgID, campaignID, handle string) string {
	t.Helper()
	id := outreach.NewID("prs")
	e.exec(t, `INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, status, source,
		linkedin_url, public_identifier, role, company, follower_count)
		VALUES ($1, $2, $3, 'in:' || $4, $4, initcap($4), 'messaged', 'api',
		'https://www.linkedin.com/in/' || $4, $4, 'CTO', 'Acme ' || $4, 42)`, id, orgID, campaignID, handle)
	return id
}

// repPersonKeys are the eleven keys of the person block, always present.
var repPersonKeys = []string{"linkedin_url", "public_identifier", "role", "company", "industry", "location",
	"headline", "company_website", "company_linkedin_url", "company_size", "follower_count"}

func repCheckPerson(t *testing.T, item map[string]any, wantNull bool) {
	t.Helper()
	for _, k := range repPersonKeys {
		v, ok := item[k]
		if !ok {
			t.Fatalf("person block key %q missing in %v", k, item)
		}
		if wantNull && v != nil {
			t.Fatalf("person block %q = %v, want null", k, v)
		}
	}
	if !wantNull && (item["linkedin_url"] == nil || item["role"] != "CTO" || item["follower_count"] != float64(42) || item["industry"] != nil) {
		t.Fatalf("person block not filled from the prospect: %v", item)
	}
}

func TestAnalyticsTotals(t *testing.T) {
	t.Parallel()
	e := repStart(t)
	c1, c2 := e.repCampaign(t, e.org.ID), e.repCampaign(t, e.org.ID)
	for i, h := range []string{"ann", "bob", "cid"} {
		e.repProspect(t, e.org.ID, []string{c1, c2}[i%2], h)
	}
	e.exec(t, `UPDATE prospects SET status = 'replied' WHERE lead_key = 'in:bob'`)
	// another organization's data never shows
	other := testenv.NewOrg(t, e.srv)
	e.repProspect(t, other.ID, e.repCampaign(t, other.ID), "zed")

	r := e.org.Read.Do(t, "GET", "/api/v1/analytics", nil)
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	var got struct {
		Data struct {
			Campaigns         int            `json:"campaigns"`
			TotalProspects    int            `json:"total_prospects"`
			ProspectsByStatus map[string]int `json:"prospects_by_status"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Data.Campaigns != 2 || got.Data.TotalProspects != 3 ||
		fmt.Sprint(got.Data.ProspectsByStatus) != "map[messaged:2 replied:1]" {
		t.Fatalf("analytics = %s", r.Body)
	}
	empty := other.Read.Do(t, "GET", "/api/v1/analytics", nil)
	if !strings.Contains(string(empty.Body), `"campaigns":1,`) || !strings.Contains(string(empty.Body), `"total_prospects":1}`) {
		t.Fatalf("other org: %s", empty.Body)
	}
}

type dailyRow struct {
	Date                string `json:"date"`
	InvitesSent         int    `json:"invites_sent"`
	ConnectionsAccepted int    `json:"connections_accepted"`
	MessagesSent        int    `json:"messages_sent"`
	Replies             int    `json:"replies"`
	PositiveReplies     int    `json:"positive_replies"`
	NegativeReplies     int    `json:"negative_replies"`
	Bookings            int    `json:"bookings"`
	InvitesWithdrawn    int    `json:"invites_withdrawn"`
}

type dailyAnswer struct {
	Data []dailyRow        `json:"data"`
	Meta map[string]string `json:"meta"`
}

func TestAnalyticsDaily(t *testing.T) {
	t.Parallel()
	e := repStart(t)
	c1, c2 := e.repCampaign(t, e.org.ID), e.repCampaign(t, e.org.ID)
	act := func(campaign any, account any, kind, sentiment, at string) {
		var s any
		if sentiment != "" {
			s = sentiment
		}
		e.exec(t, `INSERT INTO activities (org_id, campaign_id, account_id, kind, sentiment, at) VALUES ($1, $2, $3, $4, $5, $6)`,
			e.org.ID, campaign, account, kind, s, at)
	}
	// 2026-07-01 (before the split), 2026-07-02 (first split day), 2026-07-04; nothing on 07-03.
	act(c1, "acc_1", "invite_sent", "", "2026-07-01T00:00:00Z")
	act(c1, "acc_1", "invite_sent", "", "2026-07-01T23:59:59.999Z")
	act(c1, "acc_2", "reply", "positive", "2026-07-01T12:00:00Z")
	act(c2, "acc_2", "reply", "negative", "2026-07-01T12:00:00Z")
	act(c1, "acc_1", "reply", "positive", "2026-07-02T00:00:00Z")
	act(c2, "acc_2", "reply", "negative", "2026-07-02T08:00:00Z")
	act(c2, "acc_2", "reply", "neutral", "2026-07-02T09:00:00Z")
	act(c1, "acc_1", "connection_accepted", "", "2026-07-04T10:00:00Z")
	act(c1, "acc_1", "message_sent", "", "2026-07-04T10:00:00Z")
	act(c1, "acc_1", "booking", "", "2026-07-04T10:00:00Z")
	act(c2, "acc_1", "invite_withdrawn", "", "2026-07-04T10:00:00Z")
	act(c1, "acc_1", "conversion", "", "2026-07-04T10:00:00Z")      // not a daily counter
	act(nil, "acc_1", "invite_sent", "", "2026-07-04T10:00:00Z")    // no campaign: not counted
	act(c1, "acc_1", "invite_sent", "", "2026-07-05T00:00:00Z")     // the day after the range
	act(c1, "acc_1", "invite_sent", "", "2026-06-30T23:59:59.999Z") // the day before
	other := testenv.NewOrg(t, e.srv)
	e.exec(t, `INSERT INTO activities (org_id, campaign_id, kind, at) VALUES ($1, $2, 'invite_sent', '2026-07-02T10:00:00Z')`,
		other.ID, e.repCampaign(t, other.ID))

	get := func(t *testing.T, query string) (testenv.Response, dailyAnswer) {
		t.Helper()
		r := e.org.Read.Do(t, "GET", "/api/v1/analytics/daily?"+query, nil)
		var a dailyAnswer
		_ = json.Unmarshal(r.Body, &a)
		return r, a
	}
	cases := []struct {
		name  string
		query string
		want  []dailyRow
	}{
		{"all", "from=2026-07-01&to=2026-07-04", []dailyRow{
			{"2026-07-01", 2, 0, 0, 2, 0, 0, 0, 0},
			{"2026-07-02", 0, 0, 0, 3, 1, 1, 0, 0},
			{"2026-07-03", 0, 0, 0, 0, 0, 0, 0, 0},
			{"2026-07-04", 0, 1, 1, 0, 0, 0, 1, 1},
		}},
		{"campaign filter", "from=2026-07-01&to=2026-07-04&campaign_id=" + c2, []dailyRow{
			{"2026-07-01", 0, 0, 0, 1, 0, 0, 0, 0},
			{"2026-07-02", 0, 0, 0, 2, 0, 1, 0, 0},
			{"2026-07-03", 0, 0, 0, 0, 0, 0, 0, 0},
			{"2026-07-04", 0, 0, 0, 0, 0, 0, 0, 1},
		}},
		{"account filter", "from=2026-07-02&to=2026-07-02&account_id=acc_1", []dailyRow{
			{"2026-07-02", 0, 0, 0, 1, 1, 0, 0, 0},
		}},
		{"another org's campaign matches nothing", "from=2026-07-02&to=2026-07-02&campaign_id=" +
			e.scalar(t, `SELECT id FROM campaigns WHERE org_id = $1`, other.ID).(string), []dailyRow{
			{"2026-07-02", 0, 0, 0, 0, 0, 0, 0, 0},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, a := get(t, tc.query)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			if fmt.Sprint(a.Data) != fmt.Sprint(tc.want) {
				t.Fatalf("rows\n got %v\nwant %v", a.Data, tc.want)
			}
			if a.Meta["timezone"] != "UTC" || a.Meta["from"] == "" || a.Meta["to"] == "" {
				t.Fatalf("meta %v", a.Meta)
			}
			// every counter key is present on every row
			for _, k := range []string{"date", "invites_sent", "connections_accepted", "messages_sent", "replies",
				"positive_replies", "negative_replies", "bookings", "invites_withdrawn"} {
				if !strings.Contains(string(r.Body), `"`+k+`":`) {
					t.Fatalf("key %s missing: %s", k, r.Body)
				}
			}
		})
	}

	t.Run("note only when the range starts before the split", func(t *testing.T) {
		_, before := get(t, "from=2026-07-01&to=2026-07-02")
		_, after := get(t, "from=2026-07-02&to=2026-07-03")
		if !strings.Contains(before.Meta["note"], "2026-07-02") || after.Meta["note"] != "" {
			t.Fatalf("notes: %q / %q", before.Meta["note"], after.Meta["note"])
		}
	})

	t.Run("defaults: to today, from 29 days before", func(t *testing.T) {
		r, a := get(t, "")
		today := time.Now().UTC().Format(time.DateOnly)
		from := time.Now().UTC().AddDate(0, 0, -29).Format(time.DateOnly)
		if r.Status != 200 || len(a.Data) != 30 || a.Meta["to"] != today || a.Meta["from"] != from ||
			a.Data[0].Date != from || a.Data[29].Date != today {
			t.Fatalf("defaults: %d %v (%d rows)", r.Status, a.Meta, len(a.Data))
		}
		_, onlyTo := get(t, "to=2026-07-04")
		if onlyTo.Meta["from"] != "2026-06-05" || len(onlyTo.Data) != 30 {
			t.Fatalf("only to: %v", onlyTo.Meta)
		}
	})

	t.Run("92 days is the most", func(t *testing.T) {
		r, a := get(t, "from=2026-05-01&to=2026-07-31")
		if r.Status != 200 || len(a.Data) != 92 || a.Data[62].Date != "2026-07-02" {
			t.Fatalf("92 days: %d, %d rows", r.Status, len(a.Data))
		}
	})

	bad := []struct {
		name, query, mention string
	}{
		{"93 days", "from=2026-05-01&to=2026-08-01", "92"},
		{"from after to", "from=2026-07-05&to=2026-07-04", "from"},
		{"bad from", "from=2026-13-01&to=2026-07-04", "from"},
		{"bad to", "to=07/04/2026", "to"},
		{"datetime is not a date", "from=2026-07-01T00:00:00Z", "from"},
		{"only from far back", "from=2025-01-01", "92"},
	}
	for _, tc := range bad {
		t.Run("400 "+tc.name, func(t *testing.T) {
			r := e.org.Read.Do(t, "GET", "/api/v1/analytics/daily?"+tc.query, nil)
			if r.Status != 400 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			msg, ok := r.JSON["error"].(string) // the plain shape, not {code, message}
			if !ok || !strings.Contains(msg, tc.mention) || len(r.JSON) != 1 {
				t.Fatalf("error body %s, want plain {\"error\": \"...%s...\"}", r.Body, tc.mention)
			}
		})
	}

	t.Run("query values are escaped, not interpreted", func(t *testing.T) {
		r := e.org.Read.Do(t, "GET", "/api/v1/analytics/daily?from=2026-07-01&to=2026-07-01&campaign_id="+
			url.QueryEscape("' OR 1=1 --"), nil)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"invites_sent":0`) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}
