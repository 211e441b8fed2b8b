package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/outreach"
)

var cpPersonKeys = []string{"linkedin_url", "public_identifier", "role", "company", "industry", "location", "headline",
	"company_website", "company_linkedin_url", "company_size", "follower_count"}

func TestListProspects(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=10000")
	org := testenv.NewOrg(t, srv)
	c1 := cpCreate(t, org.Write, map[string]any{"name": "one"})["id"].(string)
	c2 := cpCreate(t, org.Write, map[string]any{"name": "two"})["id"].(string)
	// Seven prospects, p[0] the oldest; c1 holds the even ones.
	statuses := []string{"pending", "connected", "pending", "replied", "pending", "connected", "pending"}
	var ids []string
	for i, st := range statuses {
		c := c2
		if i%2 == 0 {
			c = c1
		}
		ids = append(ids, cpProspect(t, srv.DBURL, org.ID, c, fmt.Sprintf("P%d", i), st, time.Duration(10-i)*time.Minute))
	}
	rev := func(idx ...int) []string {
		var out []string
		for _, i := range idx {
			out = append(out, ids[i])
		}
		return out
	}
	cases := []struct {
		query string
		want  []string
		total int
		limit int
	}{
		{"", rev(6, 5, 4, 3, 2, 1, 0), 7, 50},
		{"?limit=3", rev(6, 5, 4), 7, 3},
		{"?limit=3&offset=3", rev(3, 2, 1), 7, 3},
		{"?limit=3&offset=6", rev(0), 7, 3},
		{"?offset=7", nil, 7, 50},
		{"?campaign_id=" + c1, rev(6, 4, 2, 0), 4, 50},
		{"?status=pending", rev(6, 4, 2, 0), 4, 50},
		{"?status=connected&campaign_id=" + c2, rev(5, 1), 2, 50},
		{"?status=connected&campaign_id=" + c1, nil, 0, 50},
		{"?status=Pending", nil, 0, 50},
		{"?campaign_id=" + outreach.NewID("cmp"), nil, 0, 50},
		{"?campaign_id=garbage", nil, 0, 50},
		{"?limit=200", rev(6, 5, 4, 3, 2, 1, 0), 7, 200},
	}
	for _, tc := range cases {
		t.Run("query "+tc.query, func(t *testing.T) {
			r := org.Read.Do(t, "GET", "/api/v1/prospects"+tc.query, nil)
			cpStatus(t, r, 200)
			data := r.JSON["data"].([]any)
			var got []string
			for _, d := range data {
				got = append(got, d.(map[string]any)["id"].(string))
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("ids %v, want %v", got, tc.want)
			}
			pg := r.JSON["pagination"].(map[string]any)
			if pg["total"] != float64(tc.total) || pg["limit"] != float64(tc.limit) {
				t.Fatalf("pagination %v", pg)
			}
		})
	}

	bad := []struct{ query, names string }{
		{"?limit=0", "limit"}, {"?limit=201", "limit"}, {"?limit=ten", "limit"}, {"?offset=-1", "offset"},
		{"?offset=1.5", "offset"}, {"?status=" + strings.Repeat("s", 65), "status"},
	}
	for _, tc := range bad {
		t.Run("bad "+tc.query[:min(len(tc.query), 20)], func(t *testing.T) {
			r := org.Read.Do(t, "GET", "/api/v1/prospects"+tc.query, nil)
			cpStatus(t, r, 400)
			if code, msg := cpErr(r); code != "invalid_request" || !strings.Contains(msg, tc.names) {
				t.Fatalf("error %s", r.Body)
			}
		})
	}

	// One prospect: 2.2 fields plus the person block, unknown values null and never omitted.
	r := org.Read.Do(t, "GET", "/api/v1/prospects/"+ids[3], nil)
	cpStatus(t, r, 200)
	p := r.JSON["data"].(map[string]any)
	if p["id"] != ids[3] || p["campaign_id"] != c2 || p["name"] != "P3" || p["status"] != "replied" ||
		p["current_step"] != float64(0) || p["source"] != "api" || p["linkedin_id"] != "li-"+ids[3] {
		t.Fatalf("prospect %s", r.Body)
	}
	if _, err := time.Parse(outreach.TimeLayout, p["created_at"].(string)); err != nil {
		t.Fatalf("created_at: %v", err)
	}
	for _, k := range cpPersonKeys {
		v, ok := p[k]
		if !ok {
			t.Fatalf("person block lacks %s: %s", k, r.Body)
		}
		switch k {
		case "company":
			if v != "Acme P3" {
				t.Fatalf("company %v", v)
			}
		case "follower_count":
			if v != float64(42) {
				t.Fatalf("follower_count %v", v)
			}
		default:
			if v != nil {
				t.Fatalf("%s = %v, want null", k, v)
			}
		}
	}
	// Rows in a list have the same shape.
	l := org.Read.Do(t, "GET", "/api/v1/prospects?limit=1", nil)
	for _, k := range append(cpPersonKeys, "id", "campaign_id", "linkedin_id", "name", "status", "current_step", "source", "created_at") {
		if _, ok := l.JSON["data"].([]any)[0].(map[string]any)[k]; !ok {
			t.Fatalf("list row lacks %s: %s", k, l.Body)
		}
	}
}

func TestPatchProspectOutcome(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=10000")
	org := testenv.NewOrg(t, srv)
	cmp := cpCreate(t, org.Write, map[string]any{"name": "Outcomes"})["id"].(string)

	badBodies := []struct{ body, says string }{
		{`{}`, "outcome is required"},
		{`{"outcome":"won"}`, "won"},
		{`{"outcome":"Booked"}`, "Booked"},
		{`{"outcome":""}`, "outcome"},
		{`{"outcome":1}`, "outcome"},
		{`{"outcome":"booked","note":"x"}`, `"note"`},
		{`{"outcome":"booked"`, "malformed"},
		{``, "empty"},
	}
	victim := cpProspect(t, srv.DBURL, org.ID, cmp, "Victim", "connected", 0)
	for _, tc := range badBodies {
		t.Run("bad "+tc.body, func(t *testing.T) {
			r := org.Write.Do(t, "PATCH", "/api/v1/prospects/"+victim, tc.body)
			cpStatus(t, r, 400)
			if code, msg := cpErr(r); code != "invalid_request" || !strings.Contains(msg, tc.says) {
				t.Fatalf("error %s", r.Body)
			}
		})
	}
	if n := cpInt(t, srv.DBURL, `SELECT count(*) FROM prospects WHERE id = $1 AND updated_at = created_at
		AND booked_at IS NULL AND converted_at IS NULL AND outcome_lost_at IS NULL AND outcome_interested_at IS NULL`, victim); n != 1 {
		t.Fatalf("a refused PATCH changed the prospect")
	}

	for _, outcome := range []string{"interested", "lost", "booked", "converted"} {
		t.Run(outcome, func(t *testing.T) {
			id := cpProspect(t, srv.DBURL, org.ID, cmp, "P "+outcome, "messaged", 0)
			for i, want := range []string{"written", "already_set", "already_set"} {
				r := org.Write.Do(t, "PATCH", "/api/v1/prospects/"+id, map[string]any{"outcome": outcome})
				cpStatus(t, r, 200)
				d := r.JSON["data"].(map[string]any)
				if d["id"] != id || d["outcome"] != outcome || d["applied"] != want {
					t.Fatalf("call %d: %s, want applied %s", i, r.Body, want)
				}
			}
			column := map[string]string{"interested": "outcome_interested_at", "lost": "outcome_lost_at",
				"booked": "booked_at", "converted": "converted_at"}[outcome]
			if n := cpInt(t, srv.DBURL, `SELECT count(*) FROM prospects WHERE id = $1 AND `+column+` IS NOT NULL AND status = 'messaged'`, id); n != 1 {
				t.Fatalf("%s not recorded (or status changed)", column)
			}
			ended := cpInt(t, srv.DBURL, `SELECT count(*) FROM prospects WHERE id = $1 AND sequence_ended_at IS NOT NULL`, id)
			if wantEnded := outcome == "lost" || outcome == "booked"; (ended == 1) != wantEnded {
				t.Fatalf("sequence ended = %d after %s", ended, outcome)
			}
			kinds := map[string]string{"booked": "booking", "converted": "conversion"}
			acts := cpInt(t, srv.DBURL, `SELECT count(*) FROM activities WHERE prospect_id = $1 AND manual AND campaign_id = $2 AND org_id = $3 AND kind = $4`,
				id, cmp, org.ID, kinds[outcome])
			if want := map[bool]int{true: 1, false: 0}[kinds[outcome] != ""]; acts != want {
				t.Fatalf("%d activities for %s, want %d", acts, outcome, want)
			}
		})
	}

	// Twenty concurrent bookings of one person record one booking and fire one manual call_booked.
	racer := cpProspect(t, srv.DBURL, org.ID, cmp, "Racer", "replied", 0)
	var wg sync.WaitGroup
	applied := make(chan string, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := org.Write.Do(t, http.MethodPatch, "/api/v1/prospects/"+racer, `{"outcome":"booked"}`)
			if r.Status == 200 {
				applied <- r.JSON["data"].(map[string]any)["applied"].(string)
			} else {
				applied <- fmt.Sprintf("status %d", r.Status)
			}
		}()
	}
	wg.Wait()
	close(applied)
	counts := map[string]int{}
	for a := range applied {
		counts[a]++
	}
	if counts["written"] != 1 || counts["already_set"] != 19 {
		t.Fatalf("concurrent bookings answered %v", counts)
	}
	if n := cpInt(t, srv.DBURL, `SELECT count(*) FROM activities WHERE prospect_id = $1 AND kind = 'booking'`, racer); n != 1 {
		t.Fatalf("%d booking activities", n)
	}
	var booked []outreach.Event
	for _, e := range cpKind(cpOutbox(t, srv.DBURL, org.ID), outreach.EventCallBooked) {
		if e.Data.Prospect.LeadID == racer {
			booked = append(booked, e)
		}
	}
	if len(booked) != 1 {
		t.Fatalf("%d call_booked events for the racer, want 1", len(booked))
	}
	ev := booked[0]
	if !ev.Data.Manual || ev.OrgID != org.ID || ev.Data.Campaign.ID != cmp || ev.Data.Campaign.Name != "Outcomes" ||
		ev.Data.Booking == nil || ev.Data.Booking.Provider != outreach.BookingProviderManual ||
		ev.Data.Prospect.Name != "Racer" || ev.Data.Prospect.Company != "Acme Racer" || ev.Validate() != nil {
		t.Fatalf("call_booked %+v (validate: %v)", ev, ev.Validate())
	}
	// Over the whole test: one call_booked per booked prospect, none for other outcomes.
	if n := len(cpKind(cpOutbox(t, srv.DBURL, org.ID), outreach.EventCallBooked)); n != 2 {
		t.Fatalf("%d call_booked events in all, want 2", n)
	}
}
