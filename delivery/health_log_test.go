package delivery

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// A destination's start of failures and its recovery are logged once each; a destination that
// flaps every few seconds gives at most two lines a minute; a hub behind is logged when it falls
// behind, reminded at most twice a minute, and its catching up once.
func TestHealthLogTransitionsAndRate(t *testing.T) {
	var buf bytes.Buffer
	l := newHealthLog(slog.New(slog.NewTextHandler(&buf, nil)))
	wall := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return wall }
	count := func(msg string) int { return strings.Count(buf.String(), msg) }
	dest := func(failures int) []DestinationFailures {
		return []DestinationFailures{{ID: "dst_1", OrgID: "org_1", Kind: "https", ConsecutiveFailures: failures, Enabled: true}}
	}

	for _, f := range []int{1, 2, 3, 4, 5, 9} { // failing from the third failure on, logged once
		l.destinations(dest(f))
		wall = wall.Add(5 * time.Second)
	}
	if count("destination failing") != 1 || !strings.Contains(buf.String(), "consecutive_failures=3") {
		t.Fatalf("want one failing line at the third failure:\n%s", buf.String())
	}
	l.destinations(dest(0))
	if count("destination recovered") != 1 {
		t.Fatalf("want one recovered line:\n%s", buf.String())
	}
	// Flapping every 5 s for ten minutes: at most two lines per minute.
	wall = wall.Add(time.Minute)
	before := count("delivery: destination")
	for i := range 120 {
		l.destinations(dest(3 * (i % 2)))
		wall = wall.Add(5 * time.Second)
	}
	if n := count("delivery: destination") - before; n > 2*10+2 || n < 10 {
		t.Fatalf("flapping for ten minutes gave %d lines", n)
	}
	// Deleted while failing: forgotten without a "recovered".
	l.destinations(dest(5))
	recovered := count("destination recovered")
	l.destinations(nil)
	if count("destination recovered") != recovered || len(l.failing) != 0 {
		t.Fatal("a deleted destination was reported recovered or kept")
	}

	buf.Reset()
	for range 120 { // ten minutes behind, refreshed every 5 s
		l.backlog(DeliveryQueueStats{Due: 5000, Pending: 9000, OldestDue: 2 * time.Minute})
		wall = wall.Add(5 * time.Second)
	}
	if n := count("falling behind"); n < 1 || n > 2*10+1 {
		t.Fatalf("ten minutes behind gave %d lines", n)
	}
	l.backlog(DeliveryQueueStats{Due: 3, OldestDue: time.Second})
	l.backlog(DeliveryQueueStats{Due: 3, OldestDue: time.Second})
	if count("caught up") != 1 {
		t.Fatalf("want one caught-up line:\n%s", buf.String())
	}
}
