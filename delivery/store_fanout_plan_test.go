package delivery_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestLargeFanoutStaysLinearOnAWarmConnection runs a 10-destination fan-out of 100 events (1,000
// deliveries) eight times on one connection prepared as the store prepares its own, and reads
// each execution's plan from auto_explain. After five executions PostgreSQL may keep a generic
// plan for a prepared statement; for this one that plan estimated every unnest at 10 rows and
// matched the deliveries to the dedupe keys they kept in a nested loop, discarding half a million
// pairs per call. The check: no join in any of the eight plans discards as many rows as the batch
// has deliveries. The same holds for a 1-destination fan-out of 100 events, which runs from the
// generic plan (it is below customPlanAbove): its join of the batch with the kept rows discarded
// 9,900 pairs a call.
func TestLargeFanoutStaysLinearOnAWarmConnection(t *testing.T) {
	t.Parallel()
	for _, dests := range []int{10, 1} {
		t.Run(strconv.Itoa(dests)+" destinations", func(t *testing.T) {
			t.Parallel()
			fanoutStaysLinear(t, dests)
		})
	}
}

func fanoutStaysLinear(t *testing.T, destinations int) {
	ctx := context.Background()
	var mu sync.Mutex
	var plans []string
	st, ds, conn := storeAndConnection(t, func(cfg *pgx.ConnConfig) {
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			if strings.Contains(n.Message, "Insert on deliveries") {
				mu.Lock()
				plans = append(plans, n.Message)
				mu.Unlock()
			}
		}
	})
	org, dests := orgWithDestinations(t, st, ds, destinations)
	if err := ds.Prepare(ctx, conn); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`LOAD 'auto_explain'`, `SET auto_explain.log_min_duration = 0`,
		`SET auto_explain.log_analyze = on`, `SET auto_explain.log_timing = off`, `SET auto_explain.log_level = notice`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v (auto_explain ships with PostgreSQL's server package)", q, err)
		}
	}

	const rounds, events = 8, 100
	for round := range rounds {
		nds := deliveriesToAll(org.ID, dests, events, func(int) []byte { return []byte(`{}`) })
		if res := commitFanout(t, conn, ds, nds); res.Created != events*len(dests) {
			t.Fatalf("round %d created %d deliveries, want %d", round, res.Created, events*len(dests))
		}
	}

	mu.Lock()
	defer mu.Unlock()
	if len(plans) != rounds {
		t.Fatalf("auto_explain reported %d plans of the fan-out, want %d", len(plans), rounds)
	}
	removed := regexp.MustCompile(`Rows Removed by Join Filter: (\d+)`)
	for i, plan := range plans {
		for _, m := range removed.FindAllStringSubmatch(plan, -1) {
			if n, _ := strconv.Atoi(m[1]); n >= events*len(dests) {
				t.Fatalf("execution %d: a join discarded %d rows for %d deliveries (quadratic):\n%s", i+1, n, events*len(dests), plan)
			}
		}
	}
}
