package delivery_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// These tests drive the built binary: the guarantees they check (a kill -9 loses nothing, two
// processes share the work) are about processes, not about functions.

// countingReceiver counts, per identifying campaign id, the requests it got, and per webhook-id.
type countingReceiver struct {
	*receiver
}

func (c countingReceiver) counts() (byEvent map[string]int, byDelivery map[string]int) {
	byEvent, byDelivery = map[string]int{}, map[string]int{}
	for _, r := range c.requests() {
		byEvent[r.campaignID()]++
		byDelivery[r.header.Get("webhook-id")]++
	}
	return byEvent, byDelivery
}

// processEnv is a database with one organization and one destination, outside any server.
func processEnv(t *testing.T, url string) (dbURL string, st *storage.Store, org string) {
	t.Helper()
	dbURL = testenv.DatabaseURL(t)
	st, ds := testenv.OpenStores(t, dbURL, 4)
	org = testenv.StoreOrg(t, st)
	if _, err := ds.CreateDestination(context.Background(), delivery.Destination{OrgID: org, Name: "r",
		Kind: outreach.DestinationHTTPS, URL: url, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	return dbURL, st, org
}

// emitN commits n sample events in transactions of ten and returns their identifying ids.
func emitN(t *testing.T, st *storage.Store, org string, n int) []string {
	t.Helper()
	var ids []string
	for i := 0; i < n; i += 10 {
		err := st.InTx(context.Background(), func(tx *storage.Tx) error {
			for j := i; j < min(i+10, n); j++ {
				ev := sample(org)
				ids = append(ids, ev.Data.Campaign.ID)
				tx.Emit(ev)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

func allArrived(ids []string) func([]received) bool {
	return func(rs []received) bool {
		seen := make(map[string]bool, len(rs))
		for _, r := range rs {
			seen[r.campaignID()] = true
		}
		for _, id := range ids {
			if !seen[id] {
				return false
			}
		}
		return true
	}
}

func TestKillNineMidStreamLosesNothing(t *testing.T) {
	t.Parallel()
	rc := countingReceiver{newReceiver(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		time.Sleep(40 * time.Millisecond) // slow enough that the kill lands mid-stream
	})}
	dbURL, st, org := processEnv(t, rc.URL)
	// A 1 s timeout makes the lease 10 s: claims of the killed process come back after that.
	srv := testenv.StartServer(t, dbURL, "DELIVERY_TIMEOUT=1s", "DELIVERY_RETRY_SCHEDULE=0s,200ms,400ms,600ms")
	ids := emitN(t, st, org, 300)
	rc.waitFor(t, 20*time.Second, "a third of the events", atLeast(100))
	srv.Kill()
	before := len(rc.requests())
	ids = append(ids, emitN(t, st, org, 100)...) // committed while nothing runs
	srv.Restart()
	rc.waitFor(t, 40*time.Second, "every event after the restart", allArrived(ids))

	byEvent, _ := rc.counts()
	dups := 0
	for _, id := range ids {
		dups += byEvent[id] - 1
	}
	t.Logf("%d events: %d requests before the kill, %d in all, %d duplicates (at least once, resent after the lease)",
		len(ids), before, len(rc.requests()), dups)
	testenv.Eventually(t, 15*time.Second, func() (bool, string) {
		var pending int
		if err := st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM deliveries WHERE status <> 'succeeded'`).Scan(&pending); err != nil {
			t.Fatal(err)
		}
		return pending == 0, fmt.Sprintf("%d deliveries not succeeded after the restart", pending)
	})
}

func TestTwoProcessesShareWithoutDoubleSends(t *testing.T) {
	t.Parallel()
	rc := countingReceiver{newReceiver(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		time.Sleep(20 * time.Millisecond)
	})}
	dbURL, st, org := processEnv(t, rc.URL)
	env := []string{"DELIVERY_TIMEOUT=5s", "DELIVERY_RETRY_SCHEDULE=0s,200ms,400ms,600ms"}
	a := testenv.StartServer(t, dbURL, env...)
	b := testenv.StartServer(t, dbURL, env...)
	ids := emitN(t, st, org, 400)
	rc.waitFor(t, 40*time.Second, "every event", allArrived(ids))
	// A double send is a second request for one event. Instead of sleeping in the hope that it
	// has arrived by then, wait until the books balance: no delivery left unfinished (nothing
	// will be claimed again) and one attempt row recorded per request received, so every send
	// either process made has reached the receiver and is counted below. The dispatch queue is
	// empty by then: each chunk went with the record of its last delivery, in the process that
	// claimed it.
	testenv.Eventually(t, 15*time.Second, func() (bool, string) {
		var open, attempts, queued int
		if err := st.Pool().QueryRow(context.Background(), `SELECT (SELECT count(*) FROM deliveries WHERE status <> 'succeeded'),
			(SELECT count(*) FROM delivery_attempts), (SELECT count(*) FROM delivery_queue)`).Scan(&open, &attempts, &queued); err != nil {
			t.Fatal(err)
		}
		got := len(rc.requests())
		return open == 0 && attempts == got && queued == 0,
			fmt.Sprintf("%d deliveries unfinished, %d attempts recorded for %d requests, %d queue rows left", open, attempts, got, queued)
	})
	byEvent, byDelivery := rc.counts()
	for id, n := range byEvent {
		if n != 1 {
			t.Errorf("event %s delivered %d times", id, n)
		}
	}
	if len(byDelivery) != len(ids) {
		t.Errorf("%d distinct webhook-ids for %d events", len(byDelivery), len(ids))
	}
	sa, sb := attemptsOf(t, a.URL), attemptsOf(t, b.URL)
	t.Logf("process A made %.0f attempts, process B %.0f", sa, sb)
	if sa == 0 || sb == 0 {
		t.Errorf("the work was not shared: %.0f and %.0f attempts", sa, sb)
	}
	checkDashboardMetrics(t, a.URL, b.URL)
}

var attemptLine = regexp.MustCompile(`(?m)^outreachd_delivery_attempts_total\{[^}]*\} ([0-9.e+]+)$`)

func scrape(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func attemptsOf(t *testing.T, base string) float64 {
	t.Helper()
	var sum float64
	for _, m := range attemptLine.FindAllStringSubmatch(scrape(t, base), -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatalf("metric value %q: %v", m[1], err)
		}
		sum += v
	}
	return sum
}

var metricName = regexp.MustCompile(`\boutreachd_[a-z0-9_]+`)

// checkDashboardMetrics fails for every metric that dashboards/ names and the binary does not
// export (a dashboard panel or an alert on a name nobody exports is silently empty forever).
// Series appear once observed, so the union over the processes of one run is what is checked:
// only one of two processes may have run the fan-out, for instance.
func checkDashboardMetrics(t *testing.T, bases ...string) {
	t.Helper()
	exported := map[string]bool{}
	for _, base := range bases {
		for _, line := range strings.Split(scrape(t, base), "\n") {
			if strings.HasPrefix(line, "# TYPE ") {
				f := strings.Fields(line)
				exported[f[2]] = true
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(), "dashboards", "*"))
	if len(files) < 2 {
		t.Fatalf("dashboards/ holds %d files; want the dashboard and the alert rules", len(files))
	}
	named := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range metricName.FindAllString(string(b), -1) {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if base := strings.TrimSuffix(n, suffix); base != n && exported[base] {
					n = base
				}
			}
			named[n] = true
		}
	}
	var missing []string
	for n := range named {
		if !exported[n] {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("dashboards name metrics the binary does not export: %v", missing)
	}
	if len(named) < 8 {
		t.Errorf("dashboards name only %d metrics", len(named))
	}
}
