package delivery

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// What the tests of package delivery_test read of the hub's insides.

// DestinationSlots reports what the hub's scheduler holds of destination id: its sends in flight
// and its rows queued locally, and the most rows a destination may have queued.
func (h *Hub) DestinationSlots(id string) (inFlight, queued, queueCap int) {
	h.sched.mu.Lock()
	defer h.sched.mu.Unlock()
	if d := h.sched.dests[id]; d != nil {
		inFlight, queued = d.inFlight, len(d.queue)
	}
	return inFlight, queued, h.sched.queueCap()
}

// Pool is the business pool the store runs on, for tests that read or write the hub's tables
// directly.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// LegacyDedupe reports whether the fan-out still consults the duplicate rule's keys of the form
// before migration 085.
func (s *Store) LegacyDedupe() bool { return s.legacyDedupe.Load() }

// AwaitSlot holds c until its slot, taking a new one when it is late (awaitSlot).
func (h *Hub) AwaitSlot(ctx context.Context, c *ClaimedDelivery) bool { return h.awaitSlot(ctx, c) }
