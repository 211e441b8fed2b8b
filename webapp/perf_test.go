package webapp_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"outreachd/storage"
	"outreachd/webapp"
)

// TestPagesStayFast seeds an organization with 10 destinations and 100,000 deliveries (each
// with an attempt, a tenth failed, all within the last 24 hours: the worst case for the health
// pictures) and checks that every page is served under the 50 ms budget, and that the
// queries behind them read indexes, not whole tables. Set APP_PERF_LOG=1 to print the timings.
func TestPagesStayFast(t *testing.T) {
	// Not parallel: Go runs it alone, before this package's parallel tests start, so the
	// timings measure the pages rather than the other tests.
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
	pages := []string{"/app/destinations", "/app/destinations/" + dests[3], "/app/destinations/" + dests[3] + "?outcome=failed",
		"/app/destinations/" + dests[3] + "?event=invite_sent&outcome=failed&page=3", "/app/keys", "/app/campaigns", "/app/needs-human"}
	const budget = 50 * time.Millisecond
	for _, path := range pages {
		var took []time.Duration
		for i := 0; i < 7; i++ {
			start := time.Now()
			p := c.get(path)
			took = append(took, time.Since(start))
			if p.Status != http.StatusOK {
				t.Fatalf("%s: %d", path, p.Status)
			}
		}
		slices.Sort(took)
		median := took[len(took)/2]
		if os.Getenv("APP_PERF_LOG") != "" {
			t.Logf("%-70s median %6.1f ms, best %6.1f ms", path, ms(median), ms(took[0]))
		}
		// The fastest of 7 is held to the budget: on a shared, loaded machine the median also
		// measures the neighbours, while a page that scans the deliveries (~300 ms) never
		// comes under it. The median is held to a looser bound for gross regressions.
		if took[0] > budget || median > 3*budget {
			t.Errorf("%s: best %.1f ms, median %.1f ms over 7 requests; budget %v", path, ms(took[0]), ms(median), budget)
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
func seedDeliveries(t *testing.T, e *env, orgID string) []string {
	t.Helper()
	ctx := context.Background()
	var dests []string
	for i := 0; i < storage.MaxDestinationsPerOrg; i++ {
		d, err := e.store.CreateDestination(ctx, storage.Destination{OrgID: orgID, Name: fmt.Sprintf("dest %d", i),
			Kind: storage.DestinationHTTPS, URL: fmt.Sprintf("https://1.1.1.%d/hook", i+1), Enabled: true})
		if err != nil {
			t.Fatal(err)
		}
		dests = append(dests, d.ID)
	}
	seed := `WITH d AS (
			SELECT g, $2::text[] AS ids FROM generate_series(1, 100000) g)
		INSERT INTO deliveries (id, org_id, destination_id, event_id, event_kind, dedupe_key, status, attempts,
			emitted_at, created_at, updated_at, delivered_at, last_status_code, last_error)
		SELECT 'dlv_' || lpad(g::text, 26, '0'), $1, ids[1 + g % 10], 'evt_' || lpad(g::text, 26, '0'),
			(ARRAY['lead_accepted','prospect_added','invite_sent','reply_received'])[1 + g % 4], sha256(g::text::bytea),
			CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'succeeded' END, 1,
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

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
