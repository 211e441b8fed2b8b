package delivery

import (
	"context"
	"log/slog"
	"time"

	"outreachd/storage"
)

// recorder writes attempt outcomes in batches: whatever accumulated while the previous batch was
// being written goes in the next transaction, so under load one commit carries hundreds of
// attempts and when idle an outcome is written at once.
type recorder struct {
	store   *storage.Store
	log     *slog.Logger
	in      chan storage.AttemptRecord
	written func() // wakes the retry loop: a newly scheduled retry may be its next due time
}

const recordBatch = 500

func newRecorder(store *storage.Store, log *slog.Logger, written func()) *recorder {
	return &recorder{store: store, log: log, in: make(chan storage.AttemptRecord, 8192), written: written}
}

func (r *recorder) add(rec storage.AttemptRecord) { r.in <- rec }

// run writes until ctx ends, then writes what is left.
func (r *recorder) run(ctx context.Context) {
	batch := make([]storage.AttemptRecord, 0, recordBatch)
	for {
		select {
		case <-ctx.Done():
			for {
				select {
				case rec := <-r.in:
					batch = append(batch, rec)
					continue
				default:
				}
				break
			}
			fctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			r.write(fctx, batch)
			cancel()
			return
		case rec := <-r.in:
			batch = append(batch[:0], rec)
		fill:
			for len(batch) < recordBatch {
				select {
				case rec := <-r.in:
					batch = append(batch, rec)
				default:
					break fill
				}
			}
			r.write(ctx, batch)
			batch = batch[:0]
		}
	}
}

// write retries until the batch is stored or ctx ends: losing a record would only cause a resend
// after the lease (at least once), but keeping it is cheaper for everyone.
func (r *recorder) write(ctx context.Context, batch []storage.AttemptRecord) {
	if len(batch) == 0 {
		return
	}
	backoff := 50 * time.Millisecond
	for {
		err := r.store.RecordAttempts(ctx, batch)
		if err == nil {
			r.written()
			return
		}
		r.log.Warn("delivery: recording attempts failed", "n", len(batch), "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// stats refreshes the queue gauges and prunes expired dedupe keys.
func (h *Hub) stats(ctx context.Context) error {
	t := time.NewTicker(h.cfg.StatsInterval)
	defer t.Stop()
	lastPrune := time.Time{}
	health := newHealthLog(h.log)
	for {
		st, err := h.store.QueueStats(ctx)
		if err == nil {
			health.observe(ctx, h.store, st)
			h.metrics.queueDepth.WithLabelValues("pending").Set(float64(st.Pending))
			h.metrics.queueDepth.WithLabelValues("due").Set(float64(st.Due))
			h.metrics.oldestPending.Set(st.OldestDue.Seconds())
			for _, k := range []string{storage.DestinationHTTPS, storage.DestinationSlack} {
				h.metrics.failing.WithLabelValues(k).Set(float64(st.FailingBy[k]))
			}
		} else if ctx.Err() == nil {
			h.log.Warn("delivery: queue stats", "err", err)
		}
		if time.Since(lastPrune) > time.Minute {
			lastPrune = time.Now()
			if _, err := h.store.PruneDeliveryDedupe(ctx, time.Now().Add(-time.Hour)); err != nil && ctx.Err() == nil {
				h.log.Warn("delivery: prune dedupe keys", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
