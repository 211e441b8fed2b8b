package storage_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// pcCounts reads prospect_counts (non-zero rows) and the same counts computed from prospects.
func pcCounts(t *testing.T, st *storage.Store) (kept, real map[string]int) {
	t.Helper()
	read := func(q string) map[string]int {
		rows, err := st.Pool().Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]int{}
		for rows.Next() {
			var org, c, s string
			var n int
			if err := rows.Scan(&org, &c, &s, &n); err != nil {
				t.Fatal(err)
			}
			out[org+"/"+c+"/"+s] = n
		}
		return out
	}
	return read(`SELECT org_id, campaign_id, status, n FROM prospect_counts WHERE n <> 0`),
		read(`SELECT org_id, campaign_id, status, count(*) FROM prospects GROUP BY 1, 2, 3`)
}

func pcExec(t *testing.T, st *storage.Store, q string, args ...any) {
	t.Helper()
	if _, err := st.Pool().Exec(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func pcSeed(t *testing.T, st *storage.Store, orgID, campaignID string, n int, status string) {
	t.Helper()
	pcExec(t, st, `INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, status, source)
		SELECT $2 || '_p' || g, $1, $2, $2 || '_k' || g, 'li' || g, 'P' || g, $3, 'api' FROM generate_series(1, $4) g`,
		orgID, campaignID, status, n)
}

// The counters behind pagination.total and prospect_counts must equal a real count after every
// kind of write, including concurrent ones and cascaded deletes.
func TestProspectCountsStayExact(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	orgA, _ := st.CreateOrg(ctx, "A", nil)
	orgB, _ := st.CreateOrg(ctx, "B", nil)
	for _, c := range []struct{ org, id string }{{orgA.ID, "cmp_a1"}, {orgA.ID, "cmp_a2"}, {orgB.ID, "cmp_b1"}} {
		pcExec(t, st, `INSERT INTO campaigns (id, org_id, name, schedule) VALUES ($1, $2, $1, '{}')`, c.id, c.org)
	}
	pcSeed(t, st, orgA.ID, "cmp_a1", 30, "pending")
	pcSeed(t, st, orgA.ID, "cmp_a2", 10, "connected")
	pcSeed(t, st, orgB.ID, "cmp_b1", 5, "pending")

	steps := []struct {
		name string
		sql  string
	}{
		{"bulk status change", `UPDATE prospects SET status = 'connection_sent' WHERE campaign_id = 'cmp_a1' AND id < 'cmp_a1_p2'`},
		{"update without status change", `UPDATE prospects SET name = name || '!' WHERE org_id = '` + orgA.ID + `'`},
		{"status set to itself", `UPDATE prospects SET status = status`},
		{"swap statuses", `UPDATE prospects SET status = CASE status WHEN 'connected' THEN 'messaged' ELSE 'connected' END WHERE campaign_id = 'cmp_a2' OR id = 'cmp_a1_p3'`},
		{"move campaign", `UPDATE prospects SET campaign_id = 'cmp_a2' WHERE id IN ('cmp_a1_p4', 'cmp_a1_p5')`},
		{"delete some", `DELETE FROM prospects WHERE id IN ('cmp_a1_p6', 'cmp_a2_p1')`},
		{"cascade from campaign", `DELETE FROM campaigns WHERE id = 'cmp_b1'`},
	}
	for _, s := range steps {
		pcExec(t, st, s.sql)
		if kept, real := pcCounts(t, st); !maps.Equal(kept, real) {
			t.Fatalf("after %s: counters %v, real %v", s.name, kept, real)
		}
	}

	// Concurrent single-row status changes in one campaign.
	var wg sync.WaitGroup
	errs := make(chan error, 30)
	for i := 1; i <= 30; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := st.Pool().Exec(ctx, `UPDATE prospects SET status = $2 WHERE id = $1`,
				fmt.Sprintf("cmp_a1_p%d", i), []string{"replied", "messaged", "completed"}[i%3])
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	kept, real := pcCounts(t, st)
	if !maps.Equal(kept, real) {
		t.Fatalf("after concurrent updates: counters %v, real %v", kept, real)
	}

	// ListProspects' total agrees with the rows it pages through.
	for _, q := range []storage.ProspectQuery{{}, {CampaignID: "cmp_a2"}, {Status: "replied"}, {CampaignID: "cmp_a1", Status: "completed"}, {CampaignID: "cmp_b1"}} {
		q.Limit = 200
		ps, total, err := st.ListProspects(ctx, orgA.ID, q)
		if err != nil || total != len(ps) {
			t.Fatalf("%+v: %d rows, total %d, %v", q, len(ps), total, err)
		}
		for i := 1; i < len(ps); i++ {
			if ps[i].CreatedAt.After(ps[i-1].CreatedAt) {
				t.Fatalf("%+v: not newest first", q)
			}
		}
	}
}

func TestSetCampaignStatusTransitions(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org, _ := st.CreateOrg(ctx, "A", nil)
	c, err := st.CreateCampaign(ctx, org.ID, storage.NewCampaign{Name: "C", OutreachType: outreach.OutreachOutbound,
		DailyLimit: 20, Schedule: outreach.DefaultSchedule()})
	if err != nil {
		t.Fatal(err)
	}
	path := []struct {
		to     outreach.CampaignStatus
		ok     bool
		events int
	}{
		{outreach.CampaignCompleted, false, 0},
		{outreach.CampaignActive, true, 1},
		{outreach.CampaignDraft, false, 1},
		{outreach.CampaignPaused, true, 1},
		{outreach.CampaignActive, true, 1}, // restarting is not a second start
		{outreach.CampaignCompleted, true, 2},
		{outreach.CampaignCompleted, true, 2}, // no-op
		{outreach.CampaignActive, false, 2},
		{outreach.CampaignArchived, true, 2},
		{outreach.CampaignPaused, false, 2},
		{"launched", false, 2},
	}
	for i, p := range path {
		got, err := st.SetCampaignStatus(ctx, c.ID, p.to)
		if p.ok != (err == nil) || (err != nil && !errors.Is(err, outreach.ErrInvalid)) {
			t.Fatalf("step %d to %s: %v", i, p.to, err)
		}
		if p.ok && got.Status != p.to {
			t.Fatalf("step %d: status %s", i, got.Status)
		}
		evs, err := st.OutboxEvents(ctx, org.ID)
		if err != nil || len(evs) != p.events {
			t.Fatalf("step %d: %d events, want %d (%v)", i, len(evs), p.events, err)
		}
	}
	if _, err := st.SetCampaignStatus(ctx, "cmp_unknown", outreach.CampaignActive); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("unknown campaign: %v", err)
	}
}
