package delivery

import (
	"context"
	"sync"
	"time"

	"outreachd/storage"
)

// The direct hand-off: events committed by this process's own business transactions are fanned
// out right after their commit, from memory, instead of waiting for the outbox consumer.
//
// Why: watermill-sql's default schema reads no outbox row newer than the oldest transaction still
// running anywhere on the PostgreSQL server (pg_snapshot_xmin), so every event waits for the
// slowest transaction that was open when it was written — a business COMMIT waiting for the disk,
// a push whose goroutine waits for a core, a long transaction in another database. On a loaded
// machine that was most of the 10-destination latency tail (docs/decisions/delivery.md). The
// hand-off does not depend on that horizon.
//
// It changes nothing about the guarantees: the outbox stays the record, written in the business
// transaction, and its consumer still reads every event. A delivery's id derives from (event,
// destination) and the table is unique on it, so whichever of the two writes an event's deliveries
// first is the only one that writes them, and only the writer starts their sends. The consumer
// passes over the events this process handed off (handoff.done) without a statement; an event the
// hand-off could not take — its queue full, its statement failed, the process killed after the
// business commit — is fanned out by the consumer as before (it is then woken, or finds the event
// on its next read). The hand-off writes through the asynchronous pool like the fan-out batches:
// a write lost in a database crash is redone by the consumer with the same ids.
type handoff struct {
	mu      sync.Mutex
	pending []storage.OutboxRow
	wake    chan struct{}
	// done holds the events the hand-off fanned out (committed), until the outbox consumer reads
	// them or they are older than doneTTL: another process's consumer may be the one that reads
	// them, and then a write that finds the deliveries already there is the (correct) fallback.
	done map[string]time.Time
}

const (
	// handoffQueue bounds the events waiting for the hand-off; past it, events are left to the
	// outbox consumer (a database slower than the commits must not grow memory without bound).
	handoffQueue = 10_000
	// handoffBatch is the most events one hand-off statement writes.
	handoffBatch = 500
	// doneCap and doneTTL bound the memory of handed-off events not yet read from the outbox.
	doneCap = 100_000
	doneTTL = 2 * time.Minute
)

func newHandoff() *handoff {
	return &handoff{wake: make(chan struct{}, 1), done: map[string]time.Time{}}
}

// offer takes the events of a transaction that just committed; false leaves them to the outbox
// consumer. It never blocks (storage calls it in the committing request).
func (q *handoff) offer(rows []storage.OutboxRow) bool {
	q.mu.Lock()
	if len(q.pending)+len(rows) > handoffQueue {
		q.mu.Unlock()
		return false
	}
	q.pending = append(q.pending, rows...)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// take returns up to handoffBatch waiting events, oldest first.
func (q *handoff) take() []storage.OutboxRow {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(len(q.pending), handoffBatch)
	if n == 0 {
		return nil
	}
	rows := make([]storage.OutboxRow, n)
	copy(rows, q.pending)
	q.pending = append(q.pending[:0], q.pending[n:]...)
	return rows
}

// markDone records events whose deliveries the hand-off committed.
func (q *handoff) markDone(rows []storage.OutboxRow, now time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, r := range rows {
		if len(q.done) >= doneCap {
			return // the rest fall back to a write that finds their deliveries there
		}
		q.done[r.UUID] = now
	}
}

// notDone returns the rows the hand-off did not fan out, forgetting the ones it did (the outbox
// consumer reads an event once, or again only after a crash, when a write is harmless).
func (q *handoff) notDone(rows []storage.OutboxRow) []storage.OutboxRow {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.done) == 0 {
		return rows
	}
	out := rows[:0:0]
	for _, r := range rows {
		if _, ok := q.done[r.UUID]; ok {
			delete(q.done, r.UUID)
			continue
		}
		out = append(out, r)
	}
	return out
}

// prune forgets handed-off events older than doneTTL.
func (q *handoff) prune(now time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for id, at := range q.done {
		if now.Sub(at) > doneTTL {
			delete(q.done, id)
		}
	}
}

// runHandoff fans out handed-off events until ctx ends: whatever accumulated while the previous
// statement ran goes in the next one, so under load one transaction carries many events and when
// idle an event is written at once. Events still waiting at the end are left to the outbox.
func (h *Hub) runHandoff(ctx context.Context) error {
	remove := h.store.OnCommit(h.handoff.offer)
	defer remove()
	prune := time.NewTicker(doneTTL / 4)
	defer prune.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case now := <-prune.C:
			h.handoff.prune(now)
		case <-h.handoff.wake:
			for rows := h.handoff.take(); len(rows) > 0; rows = h.handoff.take() {
				h.handOff(ctx, rows)
			}
		}
	}
}

// handOff writes the deliveries of rows in one short transaction and starts the ones leased to
// this process once it committed. On failure nothing is lost: the outbox consumer is woken and
// fans the events out itself.
func (h *Hub) handOff(ctx context.Context, rows []storage.OutboxRow) {
	err := func() error {
		tx, err := h.store.AsyncPool().Begin(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
		leased, err := h.fanOutRows(ctx, tx, rows)
		if err != nil {
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			// Unknown outcome: if the rows were written, they come due when their lease ends.
			for _, c := range leased {
				h.sched.unreserve(c.Target.ID)
			}
			return err
		}
		h.handoff.markDone(rows, time.Now())
		h.metrics.events.WithLabelValues(pathHandoff).Add(float64(len(rows)))
		h.startLeased(leased)
		return nil
	}()
	if err != nil {
		if ctx.Err() == nil {
			h.log.Warn("delivery: direct hand-off failed; the outbox consumer takes the events", "n", len(rows), "err", err)
		}
		h.wake(h.wakeOutbox)()
	}
}
