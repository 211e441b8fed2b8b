package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

func TestStalledLeads(t *testing.T) {
	t.Parallel()
	e := repStart(t)
	c1, c2 := e.repCampaign(t, e.org.ID), e.repCampaign(t, e.org.ID)
	now := time.Now().UTC()
	lead := func(campaign, handle, sentiment string, silentFor time.Duration, extra string) string {
		id := e.repProspect(t, e.org.ID, campaign, handle)
		e.exec(t, `UPDATE prospects SET sentiment = $2, last_activity_at = $3`+extra+` WHERE id = $1`,
			id, sentiment, now.Add(-silentFor))
		return id
	}
	day := 24 * time.Hour
	p10 := lead(c1, "ten", "positive", 10*day+time.Hour, "")
	p6 := lead(c2, "six", "positive", 6*day, "")
	p3 := lead(c1, "three", "positive", 3*day+time.Hour, "")
	lead(c1, "negative", "negative", 20*day, "")
	lead(c1, "booked", "positive", 20*day, ", booked_at = now()")
	lead(c1, "lost", "positive", 20*day, ", outcome_lost_at = now()")
	lead(c1, "blocked", "positive", 20*day, ", status = 'opted_out'")
	// the stall watcher recorded the six-day stall one day after the threshold
	stalledAt := now.Add(-day).Truncate(time.Millisecond)
	e.exec(t, `INSERT INTO stalls (id, org_id, prospect_id, campaign_id, last_activity_at, stalled_at)
		SELECT 'stl_1', org_id, id, campaign_id, last_activity_at, $2 FROM prospects WHERE id = $1
		ON CONFLICT (prospect_id, last_activity_at) DO UPDATE SET stalled_at = excluded.stalled_at`, p6, stalledAt)
	other := testenv.NewOrg(t, e.srv)
	op := e.repProspect(t, other.ID, e.repCampaign(t, other.ID), "elsewhere")
	e.exec(t, `UPDATE prospects SET sentiment = 'positive', last_activity_at = now() - interval '30 days' WHERE id = $1`, op)

	type answer struct {
		Data          []map[string]any `json:"data"`
		Pagination    map[string]any   `json:"pagination"`
		ThresholdDays any              `json:"threshold_days"`
	}
	get := func(t *testing.T, q string) answer {
		t.Helper()
		r := e.org.Read.Do(t, "GET", "/api/v1/stalled-leads"+q, nil)
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		var a answer
		if err := json.Unmarshal(r.Body, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	ids := func(a answer) string {
		var s []string
		for _, it := range a.Data {
			s = append(s, it["id"].(string))
		}
		return strings.Join(s, ",")
	}
	cases := []struct {
		name, q, want string
		threshold     float64
		total         float64
	}{
		{"default 5 days, stalest first", "", p10 + "," + p6, 5, 2},
		{"days=2", "?days=2", p10 + "," + p6 + "," + p3, 2, 3},
		{"days=7", "?days=7", p10, 7, 1},
		{"days=365", "?days=365", "", 365, 0},
		{"campaign filter", "?days=1&campaign_id=" + c1, p10 + "," + p3, 1, 2},
		{"pagination", "?days=1&limit=1&offset=1", p6, 1, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := get(t, tc.q)
			if ids(a) != tc.want || a.ThresholdDays != tc.threshold || a.Pagination["total"] != tc.total {
				t.Fatalf("got %s threshold %v total %v, want %s %v %v", ids(a), a.ThresholdDays, a.Pagination["total"], tc.want, tc.threshold, tc.total)
			}
		})
	}
	t.Run("fields", func(t *testing.T) {
		a := get(t, "")
		ten, six := a.Data[0], a.Data[1]
		if ten["campaign_id"] != c1 || ten["linkedin_id"] != "ten" || ten["name"] != "Ten" || ten["sentiment"] != "positive" ||
			ten["days_since_activity"] != float64(10) || six["days_since_activity"] != float64(6) {
			t.Fatalf("item %v", ten)
		}
		last, _ := time.Parse("2006-01-02T15:04:05.000Z", ten["last_activity_at"].(string))
		stalled, _ := time.Parse("2006-01-02T15:04:05.000Z", ten["last_stalled_at"].(string))
		// The running engine's stall watcher may record this stall at any moment, before the GET
		// (the answer then shows the row's time) or after it (the answer was computed without it).
		var recorded []time.Time
		rows, err := e.db.Query(context.Background(), `SELECT stalled_at FROM stalls WHERE prospect_id = $1`, p10)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var at time.Time
			_ = rows.Scan(&at)
			recorded = append(recorded, at)
		}
		rows.Close()
		if len(recorded) > 1 {
			t.Fatalf("%d stall rows for one stall", len(recorded))
		}
		fromRow := len(recorded) == 1 && stalled.Equal(recorded[0].Truncate(time.Millisecond))
		if !fromRow && stalled.Sub(last) != 5*day {
			t.Fatalf("last_stalled_at %s: neither last activity + threshold (+%s) nor the stall row %v", stalled, stalled.Sub(last), recorded)
		}
		if six["last_stalled_at"] != stalledAt.Format("2006-01-02T15:04:05.000Z") {
			t.Fatalf("last_stalled_at from the stall row: %v, want %v", six["last_stalled_at"], stalledAt)
		}
		repCheckPerson(t, ten, false)
	})
	for _, q := range []string{"days=0", "days=366", "days=x", "limit=201"} {
		t.Run("400 "+q, func(t *testing.T) {
			r := e.org.Read.Do(t, "GET", "/api/v1/stalled-leads?"+q, nil)
			errObj, _ := r.JSON["error"].(map[string]any)
			if r.Status != 400 || !strings.Contains(errObj["message"].(string), strings.Split(q, "=")[0]) {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}
}
