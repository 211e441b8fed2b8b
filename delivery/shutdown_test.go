package delivery_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/storage"
)

// A SIGTERM in the middle of a burst: in-flight sends finish, every attempt is recorded, and
// after a restart nothing is sent twice and the attempt log says exactly what the receiver got.
// Before the recorder wrote its last batches on a context of its own, the batch being written
// when the hub stopped was lost ("recording attempts failed ... context canceled"), and those
// deliveries were sent again after their lease.
func TestGracefulStopRecordsEveryAttempt(t *testing.T) {
	t.Parallel()
	rc := countingReceiver{newReceiver(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		time.Sleep(25 * time.Millisecond) // a little slow: many sends are in flight at the signal
	})}
	dbURL, st, org := processEnv(t, rc.URL)
	// A 2 s timeout makes the lease 15 s: a delivery whose record was lost would be sent again
	// about 15 s after the restart, inside the wait below.
	env := []string{"DELIVERY_TIMEOUT=2s", "DELIVERY_RETRY_SCHEDULE=0s,200ms,400ms,600ms", "SHUTDOWN_TIMEOUT=10s", "LOG_LEVEL=info"}
	srv := testenv.StartServer(t, dbURL, env...)
	ids := emitN(t, st, org, 3000)
	rc.waitFor(t, 60*time.Second, "a fifth of the burst", atLeast(600))
	// The database is slow at the moment of the signal: the hourly health table is locked for
	// 3 s, so the attempt records (whose trigger counts them into that table) wait,
	// and sends finish while a record batch is still being written.
	ctx := context.Background()
	lock, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Rollback(ctx) }) // also when the test fails before the release
	// The whole table, not the current hour's rows: a record made after the turn of the hour
	// inserts a new row, which row locks would not hold back (this database is the test's own).
	if _, err := lock.Exec(ctx, `LOCK TABLE delivery_health_hourly IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	// Stop only once a record batch is waiting for the lock (a backend of this database waits
	// on a lock), rather than after a guessed pause.
	testenv.Eventually(t, 15*time.Second, func() (bool, string) {
		var waiting int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*)::int FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		return waiting > 0, "no attempt record waiting for the health table's lock yet"
	})
	release := time.AfterFunc(3*time.Second, func() { _ = lock.Rollback(ctx) })
	defer release.Stop()
	start := time.Now()
	if !srv.Stop(20 * time.Second) {
		t.Fatalf("serve did not stop within 20 s of SIGTERM")
	}
	stopped := time.Since(start)
	before := len(rc.requests())
	logs := srv.Logs()
	if strings.Contains(logs, "recording attempts failed") {
		t.Errorf("attempt records failed during the shutdown:\n%s", grepLines(logs, "recording attempts"))
	}
	srv.Start()
	rc.waitFor(t, 60*time.Second, "every event after the restart", allArrived(ids))
	// A delivery sent but left without a record stays pending (leased) and is sent again after
	// its lease, about 15 s after the restart; it leaves pending only once that second send is
	// recorded, after it reached the receiver. So once nothing is pending every send that will
	// ever happen has happened and is counted below; no fixed pause past the lease is needed.
	waitNoPending(t, st, 30*time.Second)

	_, byDelivery := rc.counts()
	if len(byDelivery) != len(ids) {
		t.Errorf("%d distinct webhook-ids for %d events", len(byDelivery), len(ids))
	}
	// The attempt log matches the receiver: one attempt per request, per delivery.
	rows, err := st.Pool().Query(context.Background(), `SELECT delivery_id, count(*)::int,
		count(*) FILTER (WHERE status_code BETWEEN 200 AND 299)::int FROM delivery_attempts
		WHERE delivery_id IS NOT NULL GROUP BY delivery_id`)
	if err != nil {
		t.Fatal(err)
	}
	logged, succeeded := map[string]int{}, map[string]int{}
	for rows.Next() {
		var id string
		var n, ok int
		if err := rows.Scan(&id, &n, &ok); err != nil {
			t.Fatal(err)
		}
		logged[id], succeeded[id] = n, ok
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// No webhook-id twice after a recorded success. (On a machine loaded enough for a send to
	// outlast the 2 s timeout, the hub records a failed attempt and retries: the receiver then
	// sees the id twice, correctly, and the log says so.)
	twice, mismatch := 0, 0
	for id, n := range byDelivery {
		if n > 1 && succeeded[id] != 1 {
			if twice < 5 {
				t.Errorf("webhook-id %s received %d times; the attempt log has %d successes", id, n, succeeded[id])
			}
			twice++
		}
		if logged[id] != n {
			if mismatch < 5 {
				t.Errorf("delivery %s: the receiver got it %d times, the attempt log has %d attempts", id, n, logged[id])
			}
			mismatch++
		}
	}
	if len(logged) != len(byDelivery) {
		t.Errorf("the attempt log names %d deliveries, the receiver got %d", len(logged), len(byDelivery))
	}
	t.Logf("%d events; %d requests before SIGTERM returned (stopped in %s), %d in all; %d sent again after a success, %d log mismatches",
		len(ids), before, stopped.Round(time.Millisecond), len(rc.requests()), twice, mismatch)
}

// waitNoPending waits until no delivery of the database is pending.
func waitNoPending(t *testing.T, st *storage.Store, d time.Duration) {
	t.Helper()
	testenv.Eventually(t, d, func() (bool, string) {
		var pending int
		if err := st.Pool().QueryRow(context.Background(), `SELECT count(*)::int FROM deliveries WHERE status = 'pending'`).Scan(&pending); err != nil {
			t.Fatal(err)
		}
		return pending == 0, fmt.Sprintf("%d deliveries still pending", pending)
	})
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
