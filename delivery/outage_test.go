package delivery

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestDBHealthIgnoresRoundTripsFromBeforeTheOutage replays what a server shutdown looks like to
// the hub: one loop's connection is terminated, then another loop's claim, which began before
// that, succeeds on a backend not yet terminated, then fails too. The outage must be logged
// once and its end once, by a round trip that began after the outage was seen.
func TestDBHealthIgnoresRoundTripsFromBeforeTheOutage(t *testing.T) {
	var buf bytes.Buffer
	d := newDBHealth(slog.New(slog.NewTextHandler(&buf, nil)))
	down := &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}

	claimStarted := time.Now()
	time.Sleep(time.Millisecond)
	if outage, wait := d.check("listening for notifications", time.Now(), down); !outage || wait <= 0 {
		t.Fatalf("a terminated connection: outage %v, wait %v; want an outage and a wait", outage, wait)
	}
	if outage, _ := d.check("claiming deliveries", claimStarted, nil); outage {
		t.Fatal("a success reported as an outage")
	}
	if outage, _ := d.check("claiming deliveries", time.Now(), down); !outage {
		t.Fatal("the claim's failure is not an outage")
	}
	if n := strings.Count(buf.String(), "the database answers again"); n != 0 {
		t.Fatalf("a round trip that began before the outage logged a recovery:\n%s", buf.String())
	}
	d.ok(time.Now())
	if n := strings.Count(buf.String(), "the database is unreachable"); n != 1 {
		t.Errorf("the outage was logged %d times; want once:\n%s", n, buf.String())
	}
	if n := strings.Count(buf.String(), "the database answers again"); n != 1 {
		t.Errorf("the recovery was logged %d times; want once:\n%s", n, buf.String())
	}
	if !strings.Contains(buf.String(), "failed_tries=2") {
		t.Errorf("the recovery line does not count both failed tries:\n%s", buf.String())
	}
}
