package delivery_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"outreachd/bench"
	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// TestTwoProcessesKeepTheRateLimit: two serve processes on one database share one throttled
// destination's budget. A burst reaches the receiver whole, each event once, and no one-second
// window counted at the receiver holds more requests than the limit.
func TestTwoProcessesKeepTheRateLimit(t *testing.T) {
	t.Parallel()
	const rate, n = 8, 48
	rc := countingReceiver{newReceiver(t, nil)}
	dbURL := testenv.DatabaseURL(t)
	st, ds := testenv.OpenStores(t, dbURL, 4)
	org := testenv.StoreOrg(t, st)
	limit := rate
	d, err := ds.CreateDestination(context.Background(), delivery.Destination{OrgID: org, Name: "r",
		Kind: outreach.DestinationHTTPS, URL: rc.URL, Enabled: true, RateLimitPerSecond: &limit})
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"DELIVERY_TIMEOUT=5s", "DELIVERY_RETRY_SCHEDULE=0s,200ms,400ms,600ms"}
	a := testenv.StartServer(t, dbURL, env...)
	b := testenv.StartServer(t, dbURL, env...)
	started := time.Now()
	ids := emitN(t, st, org, n)
	got := rc.waitFor(t, 30*time.Second, "every event", allArrived(ids))
	took := time.Since(started)
	testenv.Eventually(t, 15*time.Second, func() (bool, string) {
		var open, attempts int
		if err := st.Pool().QueryRow(context.Background(), `SELECT (SELECT count(*) FROM deliveries WHERE status <> 'succeeded'),
			(SELECT count(*) FROM delivery_attempts)`).Scan(&open, &attempts); err != nil {
			t.Fatal(err)
		}
		return open == 0 && attempts == len(rc.requests()),
			fmt.Sprintf("%d deliveries unfinished, %d attempts recorded for %d requests", open, attempts, len(rc.requests()))
	})
	got = rc.requests()
	if most := bench.BusiestSecond(arrivals(got)); most > rate {
		t.Fatalf("%d requests reached the receiver within one second; the limit is %d", most, rate)
	}
	byEvent, _ := rc.counts()
	for _, id := range ids {
		if byEvent[id] != 1 {
			t.Errorf("event %s arrived %d times", id, byEvent[id])
		}
	}
	// n starts at least 1.05/rate s apart take (n-1) of those.
	if min := time.Duration(float64(n-1) * 1.05 / rate * float64(time.Second)); took < min {
		t.Fatalf("the burst took %v, less than its starts can at %d a second (%v)", took, rate, min)
	}
	throttledLog, _, err := ds.AttemptLog(context.Background(), org, d.ID, 100, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d events at %d/s through two processes in %v (A made %.0f attempts, B %.0f); busiest second %d; %d attempts logged as throttled",
		n, rate, took.Round(time.Millisecond), attemptsOf(t, a.URL), attemptsOf(t, b.URL), bench.BusiestSecond(arrivals(got)), len(throttledLog))
}
