package webapp_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"outreachd/delivery"
	"outreachd/outreach"
	"outreachd/webapp"
)

// perfPages are the pages measured with 10 destinations and 100,000 deliveries.
func perfPages(dests []string) []string {
	return []string{"/app/destinations", "/app/destinations/" + dests[3], "/app/destinations/" + dests[3] + "?outcome=failed",
		"/app/destinations/" + dests[3] + "?event=invite_sent&outcome=failed&page=3", "/app/keys", "/app/campaigns", "/app/needs-human"}
}

// BenchmarkPages measures every main page's server time with 10 destinations and 100,000
// deliveries (each with an attempt, a tenth failed, all within the last 24 hours: the worst case
// for the health pictures). The target is < 50 ms a page (docs/performance.md, "Go benchmarks"); timings live
// here, not in a test, because a shared machine's load would make a timed test flaky.
//
//	go test ./webapp/ -run '^$' -bench BenchmarkPages
func BenchmarkPages(b *testing.B) {
	e := newEnv(b, webapp.Config{})
	orgID, _ := e.org("ops@acme.test", "a long enough password")
	e.org("noise@other.test", "a long enough password")
	dests := seedDeliveries(b, e, orgID)
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	for _, path := range perfPages(dests) {
		b.Run(strings.TrimPrefix(path, "/app/"), func(b *testing.B) {
			for b.Loop() {
				if p := c.get(path); p.Status != http.StatusOK {
					b.Fatalf("%s: %d", path, p.Status)
				}
			}
		})
	}
}

// TestPageQueriesUseIndexes seeds the same 100,000 deliveries, loads every page once, and checks
// that the queries behind them read indexes, not whole tables (what keeps them fast as the
// history grows; BenchmarkPages measures the time).
func TestPageQueriesUseIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 100k deliveries")
	}
	e := newEnv(t, webapp.Config{})
	ctx := context.Background()
	orgID, _ := e.org("ops@acme.test", "a long enough password")
	e.org("noise@other.test", "a long enough password")
	dests := seedDeliveries(t, e, orgID)
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	for _, path := range perfPages(dests) {
		if p := c.get(path); p.Status != http.StatusOK {
			t.Fatalf("%s: %d", path, p.Status)
		}
	}

	// The page queries read indexes: no sequential scan of the big tables.
	plans := map[string][]any{
		`SELECT id FROM delivery_attempts WHERE destination_id = $2 AND org_id = $1 AND event_kind = $3
			AND NOT (error IS NULL AND status_code BETWEEN 200 AND 299) ORDER BY at DESC, id DESC LIMIT 51 OFFSET 100`: {orgID, dests[3], "invite_sent"},
		`SELECT id FROM delivery_attempts WHERE destination_id = $2 AND org_id = $1 AND event_kind = $3
			ORDER BY at DESC, id DESC LIMIT 51 OFFSET 100`: {orgID, dests[3], "invite_sent"},
		`SELECT last.id FROM unnest($2::text[]) AS want(dest_id) CROSS JOIN LATERAL (SELECT * FROM delivery_attempts a
			WHERE a.destination_id = want.dest_id AND a.org_id = $1 ORDER BY a.at DESC, a.id DESC LIMIT 1) last`: {orgID, dests},
	}
	for q, args := range plans {
		var plan []string
		rows, err := e.store.Pool().Query(ctx, "EXPLAIN "+q, args...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var line string
			_ = rows.Scan(&line)
			plan = append(plan, line)
		}
		rows.Close()
		if p := strings.Join(plan, "\n"); strings.Contains(p, "Seq Scan on delivery_attempts") || strings.Contains(p, "Bitmap") {
			t.Errorf("a page query scans the whole attempts table:\n%s\n%s", q, p)
		}
	}
}

// seedDeliveries gives orgID 10 destinations and 100,000 deliveries, each with one attempt,
// all within the last 24 hours, a tenth of them failed, and analyzes the tables.
func seedDeliveries(t testing.TB, e *env, orgID string) []string {
	t.Helper()
	ctx := context.Background()
	var dests []string
	for i := 0; i < delivery.MaxDestinationsPerOrg; i++ {
		d, err := e.dests.CreateDestination(ctx, delivery.Destination{OrgID: orgID, Name: fmt.Sprintf("dest %d", i),
			Kind: outreach.DestinationHTTPS, URL: fmt.Sprintf("https://1.1.1.%d/hook", i+1), Enabled: true})
		if err != nil {
			t.Fatal(err)
		}
		dests = append(dests, d.ID)
	}
	seed := `WITH d AS (
			SELECT g, $2::text[] AS ids FROM generate_series(1, 100000) g)
		INSERT INTO deliveries (id, org_id, destination_id, event_id, event_kind, dedupe_key, status, failed_at, attempts,
			emitted_at, created_at, updated_at, delivered_at, last_status_code, last_error)
		SELECT 'dlv_' || lpad(g::text, 26, '0'), $1, ids[1 + g % 10], 'evt_' || lpad(g::text, 26, '0'),
			(ARRAY['lead_accepted','prospect_added','invite_sent','reply_received'])[1 + g % 4], sha256(g::text::bytea),
			CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'succeeded' END, CASE WHEN g % 10 = 0 THEN now() END, 1,
			now() - make_interval(secs => g * 0.85), now() - make_interval(secs => g * 0.85), now(),
			CASE WHEN g % 10 = 0 THEN NULL ELSE now() END, CASE WHEN g % 10 = 0 THEN 500 ELSE 200 END,
			CASE WHEN g % 10 = 0 THEN 'HTTP 500' END
		FROM d`
	if _, err := e.store.Pool().Exec(ctx, seed, orgID, dests); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Pool().Exec(ctx, `INSERT INTO delivery_attempts (delivery_id, destination_id, org_id, event_id,
			event_kind, attempt, trigger, at, url, status_code, error, duration_ms, response_excerpt)
		SELECT id, destination_id, org_id, event_id, event_kind, 1, 'scheduled', created_at, 'https://1.1.1.1/hook',
			last_status_code, last_error, 12, '{"ok":true}' FROM deliveries WHERE org_id = $1`, orgID); err != nil {
		t.Fatal(err)
	}
	// The shared test server runs without autovacuum; production analyzes on its own.
	if _, err := e.store.Pool().Exec(ctx, `ANALYZE deliveries; ANALYZE delivery_attempts; ANALYZE destinations; ANALYZE api_keys`); err != nil {
		t.Fatal(err)
	}

	return dests
}
