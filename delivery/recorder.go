package delivery

import (
	"context"
	"log/slog"
	"time"

	"outreachd/outreach"
)

// recorder writes attempt outcomes in batches: whatever accumulated while the previous batch was
// being written goes in the next transaction, so under load one commit carries hundreds of
// attempts and when idle an outcome is written at once.
//
// Its writes never run on the context that stops the hub: a record lost on the way out means a
// delivery that reached its receiver is sent again after its lease (an earlier version lost the
// batch being written when the hub stopped — "record attempts: context canceled"). Stopping
// (stop) only makes it write what is left and return; the hard limit is the context given to
// run, which the hub cancels when its shutdown grace is spent.
type recorder struct {
	store   *Store
	log     *slog.Logger
	health  *dbHealth
	in      chan AttemptRecord
	stop    chan struct{} // closed: write what is left, then return
	done    chan struct{} // closed when run returned; later records are dropped
	written func()        // wakes the retry loop: a newly scheduled retry may be its next due time
}

const (
	recordBatch = 500
	// recordTry bounds one write of a batch, so a hung connection cannot hold the recorder.
	recordTry = 30 * time.Second
)

func newRecorder(store *Store, log *slog.Logger, health *dbHealth, written func()) *recorder {
	return &recorder{store: store, log: log, health: health, in: make(chan AttemptRecord, 8192),
		stop: make(chan struct{}), done: make(chan struct{}), written: written}
}

// add queues one outcome. After the recorder has returned (a send that outlived the shutdown
// grace) the record is dropped: its delivery is still leased and is sent again after the lease.
func (r *recorder) add(rec AttemptRecord) {
	select {
	case r.in <- rec:
	case <-r.done:
	}
}

// run writes until stop is closed, then writes what is left and returns. ctx is the hard limit:
// when it ends, what is not yet written is given up (and reported).
func (r *recorder) run(ctx context.Context) {
	defer close(r.done)
	batch := make([]AttemptRecord, 0, recordBatch)
	for {
		select {
		case <-ctx.Done():
			r.giveUp(len(r.in))
			return
		case <-r.stop:
			for {
				batch = r.fill(batch[:0])
				if len(batch) == 0 {
					return
				}
				if !r.write(ctx, batch) {
					r.giveUp(len(batch) + len(r.in))
					return
				}
			}
		case rec := <-r.in:
			batch = r.fill(append(batch[:0], rec))
			if !r.write(ctx, batch) {
				r.giveUp(len(batch) + len(r.in))
				return
			}
		}
	}
}

// fill adds queued records to batch, up to recordBatch, without waiting.
func (r *recorder) fill(batch []AttemptRecord) []AttemptRecord {
	for len(batch) < recordBatch {
		select {
		case rec := <-r.in:
			batch = append(batch, rec)
		default:
			return batch
		}
	}
	return batch
}

func (r *recorder) giveUp(n int) {
	if n > 0 {
		r.log.Warn("delivery: attempt records not written before the shutdown deadline; their deliveries stay leased and are sent again after the lease, with the same webhook-id",
			"n", n)
	}
}

// write retries until the batch is stored or ctx ends (false): losing a record would only cause
// a resend after the lease (at least once), but keeping it is cheaper for everyone. An
// unreachable database is reported to dbHealth (one log line per outage) and backed off.
func (r *recorder) write(ctx context.Context, batch []AttemptRecord) bool {
	if len(batch) == 0 {
		return true
	}
	backoff := 50 * time.Millisecond
	for {
		tctx, cancel := context.WithTimeout(ctx, recordTry)
		started := time.Now()
		err := r.store.RecordAttempts(tctx, batch)
		cancel()
		if err == nil {
			r.health.ok(started)
			r.written()
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		wait := backoff
		if outage, w := r.health.check("recording attempts", started, err); outage {
			wait = w
		} else {
			r.log.Warn("delivery: recording attempts failed", "n", len(batch), "err", err)
			backoff = min(2*backoff, 2*time.Second)
		}
		if !sleep(ctx, wait) {
			return false
		}
	}
}

// stats refreshes the queue gauges and prunes expired dedupe keys.
func (h *Hub) stats(ctx context.Context) error {
	t := time.NewTicker(h.cfg.StatsInterval)
	defer t.Stop()
	lastPrune := time.Time{}
	health := newHealthLog(h.log)
	for {
		started := time.Now()
		st, err := h.store.QueueStats(ctx)
		if err == nil {
			h.health.ok(started)
			health.observe(ctx, h.store, st)
			h.metrics.queueDepth.WithLabelValues("pending").Set(float64(st.Pending))
			h.metrics.queueDepth.WithLabelValues("due").Set(float64(st.Due))
			h.metrics.oldestPending.Set(st.OldestDue.Seconds())
			for _, k := range []string{outreach.DestinationHTTPS, outreach.DestinationSlack} {
				h.metrics.failing.WithLabelValues(k).Set(float64(st.FailingBy[k]))
			}
		} else if ctx.Err() == nil {
			if outage, _ := h.health.check("queue gauges", started, err); !outage {
				h.log.Warn("delivery: queue stats", "err", err)
			}
		}
		if err == nil && time.Since(lastPrune) > time.Minute {
			lastPrune = time.Now()
			started = lastPrune
			if _, err := h.store.PruneDeliveryDedupe(ctx, time.Now().Add(-time.Hour)); err != nil && ctx.Err() == nil {
				if outage, _ := h.health.check("pruning dedupe keys", started, err); !outage {
					h.log.Warn("delivery: prune dedupe keys", "err", err)
				}
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
