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
// passes over the events this process handed off (handoff.done) without a statement, and waits a
// little for those the hand-off still holds (settle) rather than write them too; an event the
// hand-off could not take — its queue full or behind, its statement failed, the process killed
// after the business commit — is fanned out by the consumer as before (it is then woken, or finds
// the event on its next read). The hand-off writes through the asynchronous pool like the fan-out
// batches: a write lost in a database crash is redone by the consumer with the same ids.
type handoff struct {
	mu        sync.Mutex
	pending   []storage.OutboxRow
	pendingAt []time.Time // when each pending event was offered
	// owned are the events offered and not yet finished (waiting or being written): the outbox
	// consumer waits for them rather than write them too (settle).
	owned map[string]struct{}
	// settled is closed, and replaced, whenever a hand-off statement finishes.
	settled chan struct{}
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
	// handoffLag bounds how far the hand-off may fall behind the commits: while its oldest
	// waiting event was offered longer ago than this, new events go to the outbox consumer, whose
	// larger batches catch up (under overload the hub works as it did without a hand-off).
	handoffLag = time.Second
	// handoffBatch is the most events one hand-off statement writes.
	handoffBatch = 500
	// settleWait bounds how long the outbox consumer waits for the hand-off to finish events it
	// holds before writing them itself (then both write, and the second finds them there).
	settleWait = 2 * time.Second
	// doneCap and doneTTL bound the memory of handed-off events not yet read from the outbox.
	doneCap = 100_000
	doneTTL = 2 * time.Minute
)

func newHandoff() *handoff {
	return &handoff{wake: make(chan struct{}, 1), owned: map[string]struct{}{}, settled: make(chan struct{}),
		done: map[string]time.Time{}}
}

// offer takes the events of a transaction that just committed; false leaves them to the outbox
// consumer. It never blocks (storage calls it in the committing request).
func (q *handoff) offer(rows []storage.OutboxRow) bool {
	now := time.Now()
	q.mu.Lock()
	if len(q.pending)+len(rows) > handoffQueue || (len(q.pending) > 0 && now.Sub(q.pendingAt[0]) > handoffLag) {
		q.mu.Unlock()
		return false
	}
	q.pending = append(q.pending, rows...)
	for _, r := range rows {
		q.pendingAt = append(q.pendingAt, now)
		q.owned[r.UUID] = struct{}{}
	}
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
	q.pendingAt = append(q.pendingAt[:0], q.pendingAt[n:]...)
	return rows
}

// finish ends the hand-off of rows: written (their deliveries committed) or not (left to the
// outbox consumer), and wakes consumers waiting in settle.
func (q *handoff) finish(rows []storage.OutboxRow, written bool, now time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, r := range rows {
		delete(q.owned, r.UUID)
		if written && len(q.done) < doneCap { // past the cap: a write that finds the deliveries there
			q.done[r.UUID] = now
		}
	}
	close(q.settled)
	q.settled = make(chan struct{})
}

// settle returns the rows the hand-off did not fan out, forgetting the ones it did (the outbox
// consumer reads an event once, or again only after a crash, when a write is harmless). Rows the
// hand-off still holds are waited for, up to wait, so the consumer does not write them too.
func (q *handoff) settle(rows []storage.OutboxRow, wait time.Duration) []storage.OutboxRow {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.holdsAny(rows) {
		ch := q.settled
		q.mu.Unlock()
		select {
		case <-ch:
			q.mu.Lock()
		case <-deadline.C:
			q.mu.Lock()
			return q.notDoneLocked(rows)
		}
	}
	return q.notDoneLocked(rows)
}

func (q *handoff) holdsAny(rows []storage.OutboxRow) bool {
	if len(q.owned) == 0 {
		return false
	}
	for _, r := range rows {
		if _, ok := q.owned[r.UUID]; ok {
			return true
		}
	}
	return false
}

func (q *handoff) notDoneLocked(rows []storage.OutboxRow) []storage.OutboxRow {
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
	written := false
	defer func() { h.handoff.finish(rows, written, time.Now()) }()
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
		written = true
		h.metrics.events.WithLabelValues(pathHandoff).Add(float64(len(rows)))
		h.startLeased(leased)
		return nil
	}()
	if err != nil {
		if ctx.Err() == nil {
			if outage, _ := h.health.check("direct hand-off", err); !outage {
				h.log.Warn("delivery: direct hand-off failed; the outbox consumer takes the events", "n", len(rows), "err", err)
			}
		}
		h.wake(h.wakeOutbox)()
	}
}
