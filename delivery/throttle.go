package delivery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// Throttles: a destination's rate_limit_per_second (L) caps the attempts towards it that start in
// any one-second window, counted across every process on the database.
//
// PostgreSQL holds each throttled destination's budget (destination_throttles, migration 087) as
// the first start time nobody holds yet, and hands start times out as slots spaced
// throttleSpacing / L seconds apart: slots at least 1/L s apart can never put more than L starts
// in a one-second window, wherever the window falls (a counter per fixed second would let 2L
// through across a boundary). A claim (store_claim.go) locks the budgets of the throttled
// destinations among the rows it read, takes the slots from max(next start, now) up to
// throttleHorizon ahead for the deliveries it takes (a row of several deliveries whole, as the
// first of its destination: the horizon may be passed by one row), and moves the budget past
// them; the rows that did not fit stay in the queue, due again when the budget may have room for
// them, so no claim reads them in between. Retries, resends and recovered deliveries go through
// the same claims. Each claimed delivery carries its slot (ClaimedDelivery.NotBefore), and the hub
// holds it until then (awaitSlot). Nothing is dropped: what waits goes out later.
//
// The slots are spaced a little more than 1/L apart (throttleSpacing) so that a start that
// happens a few milliseconds after its slot (a busy process, the network on the way) still keeps
// every one-second window at L or fewer: L+1 consecutive slots span throttleSpacing seconds, more
// than a second by more than any start is allowed to be late (slotLate). A delivery that cannot
// start within slotLate of its slot takes a new one (TakeSlot). The instances' clocks and the
// database's must agree (NTP), as they must for the attempts' times.

const (
	// throttleSpacing is L+1 consecutive slots' span in seconds: 5 % above one second, which
	// absorbs 50 ms of lateness between the first and the last of them (slotLate at the sender,
	// the rest for the network and the receiver's own scheduling: a receiver counting arrivals
	// sees them too), and costs a throttled destination 5 % of its limit. With 3 %, a receiver
	// on a loaded 2-core machine counted 51 and 52 arrivals in its busiest second at a limit of
	// 50, while the attempts' start times never put more than 50 in a second
	// (docs/performance.md, "Throttles").
	throttleSpacing = 1.05
	// slotLate is how late after its slot an attempt may still start; later, it takes a new one.
	slotLate = 10 * time.Millisecond
	// throttleHorizon is how far ahead a claim takes slots: about one second's worth of a
	// destination's limit per claim.
	throttleHorizon = time.Second
	// maxTestWait bounds how long a Test send waits for a slot of its destination's budget.
	maxTestWait = 30 * time.Second
)

// throttleGrantSQL is the part of claimSQL that takes the budgets (CTEs lk and g, after c, t and
// r0). lk locks the budgets of the throttled destinations among the claim's rows, in key order
// (another process's claim of the same destination waits here until this statement ends, then
// reads what it left). g takes, per destination, the slots of the rows of r0 that fit: from
// start = max(next_start, now) on, the room is the number of slots that begin within the
// horizon; the rows taken are those whose running total (dn) fits the room, or the
// destination's first row when there is any room; next_start moves past them and granted says
// how many. Under READ COMMITTED the UPDATE computes its SET from the newest version of the row,
// the one lk locked.
const throttleGrantSQL = `lk AS MATERIALIZED (
    SELECT b.destination_id, e.rate_limit_per_second AS rl
    FROM destination_throttles b JOIN destinations e ON e.id = b.destination_id
    WHERE b.destination_id IN (SELECT destination_id FROM c) AND e.rate_limit_per_second IS NOT NULL
    ORDER BY b.destination_id
    FOR UPDATE OF b
), g AS (
    UPDATE destination_throttles b SET (next_start, granted) = (
        SELECT x.start + x.take * x.slot, x.take FROM (
            SELECT y.start, y.slot, coalesce((SELECT max(r0.dn) FROM r0 WHERE r0.destination_id = b.destination_id
                AND (r0.dn <= y.room OR (r0.dn = r0.n AND y.room >= 1))), 0) AS take
            FROM (SELECT s.start, s.slot,
                         greatest(0, ceil(extract(epoch FROM clock_timestamp() + $8::interval - s.start) / extract(epoch FROM s.slot))) AS room
                  FROM (SELECT greatest(b.next_start, clock_timestamp()) AS start,
                               $9::float8 * interval '1 second' / lk.rl AS slot) s) y) x)
    FROM lk WHERE b.destination_id = lk.destination_id
    RETURNING b.destination_id, b.next_start, b.granted, $9::float8 * interval '1 second' / lk.rl AS slot,
              clock_timestamp() AS at
)`

// TakeSlot takes the next free slot of a throttled destination's budget: when an attempt towards
// it may start. ok is false when the destination has no rate limit (any more).
func (s *Store) TakeSlot(ctx context.Context, destID string) (at time.Time, ok bool, err error) {
	err = s.async.QueryRow(ctx, `UPDATE destination_throttles b
		SET (next_start, granted) = (greatest(b.next_start, clock_timestamp()) + x.slot, 1)
		FROM (SELECT e.id, $2::float8 * interval '1 second' / e.rate_limit_per_second AS slot
		      FROM destinations e WHERE e.id = $1 AND e.rate_limit_per_second IS NOT NULL) x
		WHERE b.destination_id = x.id
		RETURNING b.next_start - x.slot`, destID, throttleSpacing).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("throttle of %s: take a slot: %w", destID, err)
	}
	return at, true, nil
}

// awaitSlot holds an attempt towards a throttled destination until its slot (c.NotBefore; a
// destination without a rate limit has none). An attempt that could not start within slotLate
// of its slot (its process was busy, or its destination's sends in flight held it) takes a new
// slot, so no start comes closer to another than the budget allows. false: the hub is stopping
// and the attempt was not made; its delivery stays leased and comes due again after the lease.
func (h *Hub) awaitSlot(ctx context.Context, c *ClaimedDelivery) bool {
	for !c.NotBefore.IsZero() {
		if !sleep(ctx, time.Until(c.NotBefore)) {
			return false
		}
		if time.Since(c.NotBefore) <= slotLate {
			return true
		}
		c.Throttled = true
		for backoff := 50 * time.Millisecond; ; backoff = min(2*backoff, 2*time.Second) {
			at, ok, err := h.store.TakeSlot(ctx, c.Target.ID)
			if err == nil {
				c.NotBefore = at
				if !ok {
					c.NotBefore = time.Time{} // its rate limit was removed
				}
				break
			}
			if ctx.Err() != nil {
				return false
			}
			h.log.Warn("delivery: taking a new slot of a throttled destination", "destination", c.Target.ID, "err", err)
			if !sleep(ctx, backoff) {
				return false
			}
		}
	}
	return true
}

// awaitTestSlot holds a Test send to a throttled destination until a slot of its budget: a test
// is an attempt towards the receiver like any other. It answers how long it waited when the
// limit held it back (nil: not at all), and refuses a wait longer than maxTestWait (a long
// backlog waits ahead of it).
func (h *Hub) awaitTestSlot(ctx context.Context, destID string) (*int, error) {
	due := time.Now()
	at, ok, err := h.store.TakeSlot(ctx, destID)
	if err != nil || !ok {
		return nil, err
	}
	wait := time.Until(at)
	if wait > maxTestWait {
		return nil, fmt.Errorf("%w: the destination's rate limit has no free start for %s (deliveries are waiting for it); try the test again later",
			outreach.ErrConflict, wait.Round(time.Second))
	}
	if !sleep(ctx, wait) {
		return nil, ctx.Err()
	}
	if wait <= 0 {
		return nil, nil
	}
	ms := int(time.Since(due).Milliseconds())
	return &ms, nil
}

// throttledMS is what the attempt log keeps of a throttled attempt's wait: from when it came due
// to its start, in milliseconds; nil when the rate limit did not hold it back.
func (c ClaimedDelivery) throttledMS(start time.Time) *int {
	if !c.Throttled || c.Due.IsZero() {
		return nil
	}
	ms := max(int(start.Sub(c.Due).Milliseconds()), 0)
	return &ms
}
