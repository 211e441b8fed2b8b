package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"outreachd/adapters/drafter"
	"outreachd/adapters/linkedin"
	"outreachd/engine"
	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// BenchmarkEnginePass measures one engine pass over 1,000 active campaigns of 500 accepted
// prospects each (500,000 prospects), every one of them due, each campaign sending from its own
// seat with no spacing. Each iteration is a new working day, so each pass sends a full day's
// quota: 20 invitations per campaign, 20,000 in all, each looking its person up first.
// Besides ns/op it reports the invitations sent, and the database load of the pass from
// pg_stat_database: transactions committed and rows read (returned + fetched) and written
// (inserted + updated) per pass.
//
// Run: DATABASE_URL=... go test ./engine -run '^$' -bench EnginePass -benchtime 1x
func BenchmarkEnginePass(b *testing.B) {
	campaigns, perCampaign := benchSize()
	ctx := context.Background()
	st := testenv.Store(b)
	clock := outreach.NewVirtualClock(monday, 0)
	sim, err := linkedin.NewSimulator(clock, linkedin.SimConfig{Seed: 1, AcceptRate: -1, DisconnectPerDay: -1,
		DailyInviteLimit: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	org, err := st.CreateOrg(ctx, "Bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	// One seat per campaign: a seat sends at most 25 invitations a day (its cap), so 20,000 a
	// day take a thousand seats, as they would on LinkedIn.
	for i := 1; i <= campaigns; i++ {
		name := fmt.Sprintf("Bench Seller %d", i)
		pa, err := sim.ConnectAccount(ctx, org.ID, name)
		if err != nil {
			b.Fatal(err)
		}
		seat, err := engine.ConnectSeat(ctx, st.Pool(), org.ID, name, pa.ID)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.Pool().Exec(ctx, `UPDATE linkedin_accounts SET id = $2 WHERE id = $1`, seat.ID, fmt.Sprintf("acc_bench_%d", i)); err != nil {
			b.Fatal(err)
		}
	}
	sched, _ := json.Marshal(outreach.DefaultSchedule())
	seq, _ := json.Marshal([]outreach.SequenceStep{{Type: outreach.StepConnect, Text: "Hi {first_name}", Attachments: []outreach.Attachment{}},
		{Type: outreach.StepMessage, DelayDays: 1, Text: "Thanks for connecting", Attachments: []outreach.Attachment{}}})
	seedStart := time.Now()
	pool := st.Pool()
	if _, err := pool.Exec(ctx, `INSERT INTO campaigns (id, org_id, name, status, outreach_type, daily_limit, schedule, sequence,
			started_at, account_ids)
		SELECT 'cmp_bench_' || g, $1, 'Bench ' || g, 'active', 'outbound', 20, $2, $3, $4, ARRAY['acc_bench_' || g]
		FROM generate_series(1, $5::int) g`, org.ID, sched, seq, monday, campaigns); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, status, source,
			pushed, enrichment_status, filter_verdict, company, next_step_at)
		SELECT 'prs_bench_' || c || '_' || p, $1, 'cmp_bench_' || c, 'in:bench-' || c || '-' || p, 'bench-' || c || '-' || p,
			'Bench Person ' || p, 'active', 'api', true, 'done', 'accepted', 'Company ' || p, $2
		FROM generate_series(1, $3::int) c, generate_series(1, $4::int) p`, org.ID, monday, campaigns, perCampaign); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d campaigns x %d prospects in %s", campaigns, perCampaign, time.Since(seedStart).Round(time.Millisecond))
	eng, err := engine.New(st, sim, draftAdapter{drafter.Builtin{}}, clock, nil, engine.Config{PublicURL: "https://bench",
		ActionSpacing: engine.Spacing{Immediate: true}})
	if err != nil {
		b.Fatal(err)
	}
	type dbStats struct{ xacts, read, written int64 }
	stats := func() dbStats {
		time.Sleep(1100 * time.Millisecond) // backends flush their counters at most once a second
		var s dbStats
		if _, err := pool.Exec(ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
			b.Fatal(err)
		}
		if err := pool.QueryRow(ctx, `SELECT xact_commit, tup_returned + tup_fetched, tup_inserted + tup_updated
			FROM pg_stat_database WHERE datname = current_database()`).Scan(&s.xacts, &s.read, &s.written); err != nil {
			b.Fatal(err)
		}
		return s
	}
	var sends, steps int
	var load dbStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		clock.Set(monday.AddDate(0, 0, i))
		before := stats()
		b.StartTimer()
		ps, err := eng.Pass(ctx)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		after := stats()
		load.xacts += after.xacts - before.xacts
		load.read += after.read - before.read
		load.written += after.written - before.written
		sends += ps.Sends
		steps += ps.Steps
		b.StartTimer()
	}
	b.StopTimer()
	rows, err := pool.Query(ctx, `SELECT relname, seq_scan, seq_tup_read, coalesce(idx_scan, 0), coalesce(idx_tup_fetch, 0)
		FROM pg_stat_user_tables ORDER BY seq_tup_read + coalesce(idx_tup_fetch, 0) DESC LIMIT 6`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var rel string
		var seqScan, seqRead, idxScan, idxFetch int64
		if err := rows.Scan(&rel, &seqScan, &seqRead, &idxScan, &idxFetch); err != nil {
			b.Fatal(err)
		}
		b.Logf("%-20s seq scans %6d (%9d rows)  index scans %8d (%9d rows)", rel, seqScan, seqRead, idxScan, idxFetch)
	}
	rows.Close()
	n := float64(b.N)
	b.ReportMetric(float64(sends)/n, "invites/op")
	b.ReportMetric(float64(load.xacts)/n, "db-xacts/op")
	b.ReportMetric(float64(load.read)/n, "rows-read/op")
	b.ReportMetric(float64(load.written)/n, "rows-written/op")
	if sends != campaigns*20*b.N {
		b.Fatalf("sent %d invitations in %d passes, want %d per pass", sends, b.N, campaigns*20)
	}
}

// benchSize is the benchmark's size: 1,000 x 500, or ENGINE_BENCH_SMALL=1 for 50 x 500.
func benchSize() (int, int) {
	if os.Getenv("ENGINE_BENCH_SMALL") != "" {
		return 50, 500
	}
	return 1000, 500
}
