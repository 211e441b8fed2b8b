package storage_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/storage"
)

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// seedCampaign inserts a campaign of orgID directly (the campaigns API is not under test here).
func seedCampaign(t testing.TB, st *storage.Store, orgID, id string) {
	t.Helper()
	if _, err := st.Pool().Exec(context.Background(), `INSERT INTO campaigns (id, org_id, name, schedule)
		VALUES ($1, $2, $1, '{}')`, id, orgID); err != nil {
		t.Fatal(err)
	}
}

// rawDaily counts the activity log itself the way the rollup should, to compare against it.
func rawDaily(t *testing.T, st *storage.Store, q storage.DailyQuery) []storage.DailyRow {
	t.Helper()
	rows, err := st.Pool().Query(context.Background(), `SELECT g::date,
		count(a.id) FILTER (WHERE a.kind = 'invite_sent'), count(a.id) FILTER (WHERE a.kind = 'connection_accepted'),
		count(a.id) FILTER (WHERE a.kind = 'message_sent'), count(a.id) FILTER (WHERE a.kind = 'reply'),
		CASE WHEN g::date >= date '2026-07-02' THEN count(a.id) FILTER (WHERE a.kind = 'reply' AND a.sentiment = 'positive') ELSE 0 END,
		CASE WHEN g::date >= date '2026-07-02' THEN count(a.id) FILTER (WHERE a.kind = 'reply' AND a.sentiment = 'negative') ELSE 0 END,
		count(a.id) FILTER (WHERE a.kind = 'booking'), count(a.id) FILTER (WHERE a.kind = 'invite_withdrawn')
		FROM generate_series($2::date, $3::date, interval '1 day') g
		LEFT JOIN activities a ON a.org_id = $1 AND (a.at AT TIME ZONE 'UTC')::date = g::date
			AND a.campaign_id IN (SELECT id FROM campaigns WHERE org_id = $1)
			AND ($4 = '' OR a.campaign_id = $4) AND ($5 = '' OR a.account_id = $5)
		GROUP BY g ORDER BY g`, q.OrgID, q.From, q.To, q.CampaignID, q.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []storage.DailyRow
	for rows.Next() {
		var r storage.DailyRow
		if err := rows.Scan(&r.Day, &r.InvitesSent, &r.ConnectionsAccepted, &r.MessagesSent, &r.Replies,
			&r.PositiveReplies, &r.NegativeReplies, &r.Bookings, &r.InvitesWithdrawn); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// The rollup must equal a direct count of the log after inserts, updates and deletes, across
// the 2026-07-02 boundary, with and without filters, and ignore other organizations.
func TestDailyRollupMatchesActivityLog(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org, other := testenv.StoreOrg(t, st), testenv.StoreOrg(t, st)
	seedCampaign(t, st, org, "cmp_a_"+org)
	seedCampaign(t, st, org, "cmp_b_"+org)
	seedCampaign(t, st, other, "cmp_o_"+other)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// 20 days around the boundary, every kind, two campaigns, two accounts, a campaign-less
	// activity and another organization's activity on the same days.
	exec(`INSERT INTO activities (org_id, campaign_id, account_id, kind, sentiment, at)
		SELECT $1, CASE WHEN i % 2 = 0 THEN 'cmp_a_' || $1 ELSE 'cmp_b_' || $1 END,
			CASE WHEN i % 3 = 0 THEN 'acc_x' ELSE NULL END,
			(ARRAY['invite_sent','connection_accepted','message_sent','reply','booking','invite_withdrawn','conversion'])[1 + i % 7],
			(ARRAY['positive','negative','neutral'])[1 + i % 3],
			timestamptz '2026-06-22 00:00:00+00' + (i * interval '37 minutes')
		FROM generate_series(0, 777) i`, org)
	exec(`INSERT INTO activities (org_id, campaign_id, kind, at) VALUES ($1, NULL, 'invite_sent', '2026-06-25 10:00+00')`, org)
	exec(`INSERT INTO activities (org_id, campaign_id, kind, sentiment, at)
		SELECT $1, 'cmp_o_' || $1, 'reply', 'positive', timestamptz '2026-06-22' + i * interval '1 hour'
		FROM generate_series(0, 300) i`, other)

	check := func(stage string) {
		t.Helper()
		for _, q := range []storage.DailyQuery{
			{OrgID: org, From: day("2026-06-20"), To: day("2026-07-15")},
			{OrgID: org, From: day("2026-06-20"), To: day("2026-07-15"), CampaignID: "cmp_a_" + org},
			{OrgID: org, From: day("2026-06-20"), To: day("2026-07-15"), AccountID: "acc_x"},
			{OrgID: org, From: day("2026-06-20"), To: day("2026-07-15"), CampaignID: "cmp_o_" + other},
			{OrgID: other, From: day("2026-06-20"), To: day("2026-07-15")},
		} {
			got, err := st.DailyAnalytics(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want := rawDaily(t, st, q)
			if len(got) != 26 || !slices.Equal(got, want) {
				t.Fatalf("%s: query %+v\n got %v\nwant %v", stage, q, got, want)
			}
		}
	}
	check("after inserts")
	exec(`UPDATE activities SET at = at + interval '3 days', sentiment = 'negative' WHERE org_id = $1 AND id % 5 = 0`, org)
	check("after update")
	exec(`DELETE FROM activities WHERE org_id = $1 AND id % 4 = 0`, org)
	check("after delete")

	// The boundary itself: a positive reply on 2026-07-01 counts only in replies, one on 07-02 in both.
	rows, err := st.DailyAnalytics(ctx, storage.DailyQuery{OrgID: other, From: day("2026-07-01"), To: day("2026-07-02")})
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Replies == 0 || rows[0].PositiveReplies != 0 || rows[1].PositiveReplies != rows[1].Replies || rows[1].Replies == 0 {
		t.Fatalf("boundary rows: %+v", rows)
	}
}

// BenchmarkAnalyticsDaily measures GET /analytics/daily's query over 92 days with 1,000,000
// activity rows of one organization (10 campaigns, 5 accounts) and reports p50/p99.
func BenchmarkAnalyticsDaily(b *testing.B) {
	st := testenv.Store(b)
	ctx := context.Background()
	o, err := st.CreateOrg(ctx, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 10 {
		seedCampaign(b, st, o.ID, fmt.Sprintf("cmp_%d_%s", i, o.ID))
	}
	start := time.Now()
	if _, err := st.Pool().Exec(ctx, `INSERT INTO activities (org_id, campaign_id, account_id, kind, sentiment, at)
		SELECT $1, 'cmp_' || (i % 10) || '_' || $1, 'acc_' || (i % 5),
			(ARRAY['invite_sent','connection_accepted','message_sent','reply','booking','invite_withdrawn','conversion'])[1 + i % 7],
			CASE WHEN i % 7 = 3 THEN (ARRAY['positive','negative','neutral'])[1 + i % 3] END,
			timestamptz '2026-05-01 00:00:00+00' + (i::float8 / 1000000) * interval '92 days'
		FROM generate_series(0, 999999) i`, o.ID); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded 1,000,000 activities (rollup maintained by trigger) in %s", time.Since(start).Round(time.Millisecond))
	if _, err := st.Pool().Exec(ctx, `ANALYZE activities; ANALYZE activity_daily`); err != nil {
		b.Fatal(err)
	}
	queries := []storage.DailyQuery{
		{OrgID: o.ID, From: day("2026-05-01"), To: day("2026-07-31")},
		{OrgID: o.ID, From: day("2026-05-01"), To: day("2026-07-31"), CampaignID: "cmp_3_" + o.ID},
		{OrgID: o.ID, From: day("2026-05-01"), To: day("2026-07-31"), AccountID: "acc_2"},
	}
	var took []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		rows, err := st.DailyAnalytics(ctx, queries[i%len(queries)])
		took = append(took, time.Since(t0))
		if err != nil || len(rows) != 92 {
			b.Fatalf("rows %d, err %v", len(rows), err)
		}
	}
	b.StopTimer()
	slices.Sort(took)
	pct := func(p float64) float64 {
		return float64(took[min(len(took)-1, int(p*float64(len(took))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50_ms")
	b.ReportMetric(pct(0.99), "p99_ms")
}
