package storage_test

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"

	"outreachd/internal/testenv"
)

// Counter deltas are folded while prospects are inserted, moved between statuses and deleted
// concurrently. Every statement must see prospect_counts equal to a real count taken in the same
// snapshot — a delta folded twice, or lost between the deltas and the totals, would show — and
// at the end the deltas table is empty and the totals alone are exact.
func TestFoldProspectCountsUnderConcurrentWrites(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org, _ := st.CreateOrg(ctx, "A", nil)
	for _, c := range []string{"cmp_f1", "cmp_f2"} {
		pcExec(t, st, `INSERT INTO campaigns (id, org_id, name, schedule) VALUES ($1, $2, $1, '{}')`, c, org.ID)
	}
	pcSeed(t, st, org.ID, "cmp_f1", 50, "pending")

	const writers, rounds = 4, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers+2)
	stop := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			for r := range rounds {
				id := fmt.Sprintf("w%d_%d", w, r)
				_, err := st.Pool().Exec(ctx, `INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, source)
					SELECT $1 || '_' || g, $2, $3, $1 || '_k' || g, 'li', 'api' FROM generate_series(1, 10) g`,
					id, org.ID, []string{"cmp_f1", "cmp_f2"}[r%2])
				if err == nil {
					_, err = st.Pool().Exec(ctx, `UPDATE prospects SET status = 'connected' WHERE id IN ($1 || '_1', $1 || '_2', $1 || '_3')`, id)
				}
				if err == nil && r%3 == 0 {
					_, err = st.Pool().Exec(ctx, `DELETE FROM prospects WHERE id = $1 || '_9'`, id)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	var folded int64
	var checks int
	var done sync.WaitGroup
	done.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			n, err := st.FoldProspectCounts(ctx)
			if err != nil {
				errs <- err
				return
			}
			folded += n
		}
	})
	done.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			var same bool
			err := st.Pool().QueryRow(ctx, `WITH kept AS (SELECT campaign_id, status, n FROM prospect_counts WHERE n <> 0),
				real AS (SELECT campaign_id, status, count(*) AS n FROM prospects GROUP BY campaign_id, status)
				SELECT NOT EXISTS ((TABLE kept EXCEPT TABLE real) UNION ALL (TABLE real EXCEPT TABLE kept))`).Scan(&same)
			if err != nil {
				errs <- err
				return
			}
			if !same {
				errs <- fmt.Errorf("prospect_counts differs from a real count in the same snapshot")
				return
			}
			checks++
		}
	})
	wg.Wait()
	close(stop)
	done.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if folded == 0 || checks == 0 {
		t.Fatalf("folds moved %d deltas, %d consistency checks ran: the race was not exercised", folded, checks)
	}
	if _, err := st.FoldProspectCounts(ctx); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM prospect_count_deltas`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d deltas left after a quiet fold (%v)", left, err)
	}
	if kept, real := pcCounts(t, st); !maps.Equal(kept, real) {
		t.Fatalf("after folding: counters %v, real %v", kept, real)
	}
}
