package delivery

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"outreachd/storage"
)

// dbHealth is the hub's view of whether PostgreSQL answers. Every loop of the hub (the two claim
// loops, the recorder, the gauges, the listener) reports the database errors it meets here
// instead of logging them: while the database is away the log gets one line when the failures
// start and one when they end, not one per event or per poll, and each loop waits an exponential
// backoff (100 ms doubling to at most 5 s) between tries. Errors that are not about reaching the
// database (storage.IsUnavailable false) are logged by their loop as before.
type dbHealth struct {
	log *slog.Logger

	mu       sync.Mutex
	failing  bool
	since    time.Time
	failures int // consecutive, across loops, since the last success
	firstErr string
}

const (
	outageBackoffMin = 100 * time.Millisecond
	outageBackoffMax = 5 * time.Second
)

func newDBHealth(log *slog.Logger) *dbHealth { return &dbHealth{log: log} }

// failed records an unreachable database and returns how long the caller should wait before
// trying again.
func (d *dbHealth) failed(where string, err error) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.failing {
		d.failing, d.since, d.firstErr = true, time.Now(), err.Error()
		d.log.Warn("delivery: the database is unreachable; the hub backs off and retries until it answers",
			"where", where, "err", err)
	}
	d.failures++
	wait := outageBackoffMin << min(d.failures-1, 10)
	return min(wait, outageBackoffMax)
}

// ok records a successful round trip that began at started; the first after an outage logs the
// recovery. A round trip that began before the outage was seen proves nothing about now: when
// the server shuts down, a claim already running on a backend not yet terminated can succeed
// just after another loop's connection failed, and counting it would log a recovery and a second
// outage within a millisecond.
func (d *dbHealth) ok(started time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.failing {
		d.failures = 0
		return
	}
	if started.Before(d.since) {
		return
	}
	d.log.Info("delivery: the database answers again; the hub resumes",
		"unreachable_for", time.Since(d.since).Round(time.Millisecond), "failed_tries", d.failures)
	d.failing, d.failures = false, 0
}

// check reports err (nil or not) of a round trip that began at started and says whether it was
// an outage, with the wait before the next try; errors that are not outages are left to the
// caller (handled false).
func (d *dbHealth) check(where string, started time.Time, err error) (handled bool, wait time.Duration) {
	if err == nil {
		d.ok(started)
		return false, 0
	}
	if !storage.IsUnavailable(err) {
		return false, 0
	}
	return true, d.failed(where, err)
}

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
