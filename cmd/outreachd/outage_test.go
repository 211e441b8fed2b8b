package main_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"outreachd/bench"
	"outreachd/internal/testenv"
)

// TestDatabaseOutage stops the service's PostgreSQL (a private cluster) under it and starts it
// again: meanwhile the API answers 503 service_unavailable with Retry-After (never a 500),
// /readyz says not ready, and the delivery hub logs the outage once and its end once instead of
// a line per poll or event; afterwards everything works again without a restart, and the events
// committed before the outage are all delivered.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	cluster := testenv.PrivateCluster(t)
	var mu sync.Mutex
	got := map[string]int{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Header.Get("webhook-id")]++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	received := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }

	srv := testenv.StartServer(t, cluster.URL, "LOG_LEVEL=info", "RATE_LIMIT_PER_MINUTE=100000")
	org := testenv.NewOrg(t, srv, "--rate-limit-per-minute", "100000")
	testenv.Admin(t, cluster.URL, "destination", "create", "--org", org.ID, "--url", recv.URL, "--events", "prospect_added")
	created := org.Write.Do(t, http.MethodPost, "/api/v1/campaigns", map[string]any{"name": "outage"})
	if created.Status/100 != 2 {
		t.Fatalf("create campaign: %d %s", created.Status, created.Body)
	}
	campaign := created.JSON["item"].(map[string]any)["id"].(string)
	push := func(prefix string) testenv.Response {
		return org.Write.Do(t, http.MethodPost, "/api/v1/campaigns/"+campaign+"/leads", bench.LeadsBody(prefix, 0, 20))
	}
	if r := push("before"); r.Status/100 != 2 {
		t.Fatalf("push before the outage: %d %s", r.Status, r.Body)
	}
	testenv.EventuallyTrue(t, 30*time.Second, "the first 20 deliveries", func() bool { return received() >= 20 })

	logStart := len(srv.Logs())
	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	outageStart := time.Now()
	for i := 0; time.Since(outageStart) < 8*time.Second; i++ {
		r := push("during-" + strconv.Itoa(i))
		if r.Status != http.StatusServiceUnavailable {
			t.Fatalf("push while the database is down: %d %s; want 503", r.Status, r.Body)
		}
		if code := r.JSON["error"].(map[string]any)["code"]; code != "service_unavailable" {
			t.Errorf("error code %v; want service_unavailable", code)
		}
		if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 {
			t.Errorf("Retry-After %q; want a number of seconds", r.Header.Get("Retry-After"))
		}
		if rz := (testenv.Client{Base: srv.URL}).Do(t, http.MethodGet, "/readyz", nil); rz.Status != http.StatusServiceUnavailable {
			t.Errorf("/readyz while the database is down: %d", rz.Status)
		}
		if r := org.Read.Do(t, http.MethodGet, "/api/v1/campaigns", nil); r.Status != http.StatusServiceUnavailable {
			t.Errorf("GET /campaigns while the database is down: %d %s", r.Status, r.Body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := cluster.Start(); err != nil {
		t.Fatal(err)
	}
	testenv.EventuallyTrue(t, 30*time.Second, "/readyz after the restart", func() bool {
		return (testenv.Client{Base: srv.URL}).Do(t, http.MethodGet, "/readyz", nil).Status == http.StatusOK
	})
	var after testenv.Response
	testenv.EventuallyTrue(t, 30*time.Second, "a push after the restart", func() bool {
		after = push("after")
		return after.Status/100 == 2
	})
	testenv.EventuallyTrue(t, 60*time.Second, "the deliveries of the push after the restart", func() bool { return received() >= 40 })
	testenv.EventuallyTrue(t, 20*time.Second, "the hub's recovery line", func() bool {
		return strings.Contains(srv.Logs()[logStart:], "the database answers again")
	})

	hubLines := 0
	var lines []string
	for _, l := range strings.Split(srv.Logs()[logStart:], "\n") {
		if strings.Contains(l, "delivery") || strings.Contains(l, "fan-out") {
			hubLines++
			lines = append(lines, l)
		}
	}
	t.Logf("the hub's log lines from the outage to the recovery:\n%s", strings.Join(lines, "\n"))
	if n := strings.Count(srv.Logs()[logStart:], "the database is unreachable"); n != 1 {
		t.Errorf("the outage was logged %d times; want once", n)
	}
	if hubLines > 4 {
		t.Errorf("the hub logged %d lines during an 8 s outage; want one when it starts, one when it ends:\n%s", hubLines, strings.Join(lines, "\n"))
	}
	if strings.Contains(srv.Logs()[logStart:], "internal_error") {
		t.Errorf("an internal_error was logged during the outage")
	}
}
