package delivery_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/storage"
)

// spacingOf is the distance between two slots of a destination limited to rate a second (the
// budget's rule, throttle.go).
func spacingOf(rate int) time.Duration {
	return time.Duration(1.05 * float64(time.Second) / float64(rate))
}

// throttled sets destination id's rate limit, as the API does.
func throttled(t *testing.T, ds *delivery.Store, org, id string, rate int) {
	t.Helper()
	if _, err := ds.UpdateDestination(context.Background(), org, id, func(d *delivery.Destination) error {
		d.RateLimitPerSecond = &rate
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// queueDeliveries fans events events out to dests, each delivery in a queue row of its own
// (chunk 1) or in chunks of chunk.
func queueDeliveries(t *testing.T, st *storage.Store, ds *delivery.Store, org string, dests []string, events, chunk int) {
	t.Helper()
	nds := deliveriesToAll(org, dests, events, func(int) []byte { return []byte(`{}`) })
	for i := range nds {
		nds[i].QueueChunk = chunk
	}
	commitFanout(t, st.Pool(), ds, nds)
}

// claimAll claims first attempts until a claim finds nothing due, and returns what they took.
func claimAll(t *testing.T, ds *delivery.Store) []delivery.ClaimedDelivery {
	t.Helper()
	var all []delivery.ClaimedDelivery
	for {
		got, err := ds.ClaimDue(context.Background(), delivery.ClaimDueParams{Limit: 200, Lease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			return all
		}
		all = append(all, got...)
	}
}

// TestThrottleClaimTakesWhatTheBudgetAllows: claims take of a throttled destination the slots
// that begin within the next second and hand each delivery its own, spaced by the rule; the
// rest wait in the queue, not due until the budget may have room (so no claim takes or reads
// them meanwhile), while an unthrottled destination's rows are all taken.
func TestThrottleClaimTakesWhatTheBudgetAllows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ds := testenv.Stores(t)
	org, dests := orgWithDestinations(t, st, ds, 2)
	slow, fast := dests[0], dests[1]
	throttled(t, ds, org.ID, slow, 10)
	queueDeliveries(t, st, ds, org.ID, dests, 30, 1)

	before := time.Now()
	got := claimAll(t, ds)
	var slots []time.Time
	per := map[string]int{}
	for _, c := range got {
		per[c.Target.ID]++
		if c.Target.ID == slow {
			slots = append(slots, c.NotBefore)
		} else if !c.NotBefore.IsZero() || c.Throttled {
			t.Fatalf("a delivery to the unthrottled destination has a slot: %+v", c)
		}
	}
	// ceil(1 s / 105 ms) = 10 slots begin within the second.
	if per[slow] != 10 || per[fast] != 30 {
		t.Fatalf("claimed %d of the throttled destination and %d of the other; want 10 and 30", per[slow], per[fast])
	}
	slices.SortFunc(slots, time.Time.Compare)
	for i := 1; i < len(slots); i++ {
		if d := slots[i].Sub(slots[i-1]); d < spacingOf(10)-time.Microsecond || d > spacingOf(10)+time.Microsecond {
			t.Fatalf("slots %d and %d are %v apart, want %v", i-1, i, d, spacingOf(10))
		}
	}
	if slots[0].Before(before.Add(-time.Second)) || slots[0].After(time.Now()) {
		t.Fatalf("the first slot is %v, want about now (%v)", slots[0], before)
	}

	// The other 20 are not due until the budget may have room for them: the next due time is the
	// budget's next second, not now.
	next, ok, err := ds.NextDue(ctx, false, nil)
	if err != nil || !ok {
		t.Fatalf("next due: %v %v", ok, err)
	}
	if wait := time.Until(next); wait < 0 || wait > 2*time.Second {
		t.Fatalf("the waiting rows come due in %v, want within the budget's next second or so", wait)
	}
	queueMirrorsPending(t, ds)
}

// TestThrottleSlotsNeverCrowdAcrossConcurrentClaims is the budget's guarantee under concurrency:
// several claimers on their own connections, as several processes would be, take every
// delivery of a throttled destination once, and no two slots handed out are closer than the
// spacing, so no one-second window holds more than the limit.
func TestThrottleSlotsNeverCrowdAcrossConcurrentClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ds := testenv.Stores(t)
	org, dests := orgWithDestinations(t, st, ds, 1)
	const rate, events = 400, 600
	throttled(t, ds, org.ID, dests[0], rate)
	queueDeliveries(t, st, ds, org.ID, dests, events, 8)

	var mu sync.Mutex
	var slots []time.Time
	claimedBy := map[string]int{}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
				got, err := ds.ClaimDue(ctx, delivery.ClaimDueParams{Limit: 50, Lease: time.Minute})
				if err != nil {
					t.Errorf("claimer %d: %v", w, err)
					return
				}
				mu.Lock()
				for _, c := range got {
					slots = append(slots, c.NotBefore)
					claimedBy[c.ID]++
				}
				done := len(claimedBy) == events
				mu.Unlock()
				if done {
					return
				}
				if len(got) == 0 {
					next, ok, err := ds.NextDue(ctx, false, nil)
					if err == nil && ok {
						time.Sleep(min(max(time.Until(next), time.Millisecond), 100*time.Millisecond))
					}
				}
			}
		})
	}
	wg.Wait()
	if len(claimedBy) != events || len(slots) != events {
		t.Fatalf("%d deliveries claimed in %d claims, want each of %d once", len(claimedBy), len(slots), events)
	}
	slices.SortFunc(slots, time.Time.Compare)
	for i := 1; i < len(slots); i++ {
		if d := slots[i].Sub(slots[i-1]); d < spacingOf(rate)-time.Microsecond {
			t.Fatalf("slots %d and %d are %v apart, closer than %v", i-1, i, d, spacingOf(rate))
		}
	}
	for i := rate; i < len(slots); i++ {
		if slots[i].Sub(slots[i-rate]) < time.Second {
			t.Fatalf("%d slots within one second from %v", rate+1, slots[i-rate])
		}
	}
	t.Logf("%d slots from %v to %v", len(slots), slots[0].Format("15:04:05.000"), slots[len(slots)-1].Format("15:04:05.000"))
}

// TestTakeSlot: a slot of its own (a late attempt's, a Test send's) comes after every slot
// handed out, spaced by the rule; a destination without a rate limit has none.
func TestTakeSlot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ds := testenv.Stores(t)
	org, dests := orgWithDestinations(t, st, ds, 2)
	throttled(t, ds, org.ID, dests[0], 5)
	var prev time.Time
	for i := range 3 {
		at, ok, err := ds.TakeSlot(ctx, dests[0])
		if err != nil || !ok {
			t.Fatalf("slot %d: %v %v", i, ok, err)
		}
		if i > 0 && at.Sub(prev) != spacingOf(5) {
			t.Fatalf("slot %d is %v after the one before, want %v", i, at.Sub(prev), spacingOf(5))
		}
		prev = at
	}
	if _, ok, err := ds.TakeSlot(ctx, dests[1]); ok || err != nil {
		t.Fatalf("a slot of an unthrottled destination: %v %v", ok, err)
	}
	// Once its rate limit is removed, a destination is claimed as any other.
	if _, err := ds.UpdateDestination(ctx, org.ID, dests[0], func(d *delivery.Destination) error {
		d.RateLimitPerSecond = nil
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	queueDeliveries(t, st, ds, org.ID, dests[:1], 20, 1)
	if got := claimAll(t, ds); len(got) != 20 || !got[0].NotBefore.IsZero() {
		t.Fatalf("after the limit was removed the claims took %d, want all 20 without a slot", len(got))
	}
	if _, ok, err := ds.TakeSlot(ctx, dests[0]); ok || err != nil {
		t.Fatalf("a slot after the limit was removed: %v %v", ok, fmt.Sprint(err))
	}
}

// TestThrottledDestinationQueuedInSmallerRows: the fan-out queues a throttled destination's
// deliveries in rows of at most its limit (about a second of its slots), so one claim never takes
// much more than a second of them; the other destinations' rows stay as large as before.
func TestThrottledDestinationQueuedInSmallerRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ds := testenv.Stores(t)
	org, dests := orgWithDestinations(t, st, ds, 2)
	throttled(t, ds, org.ID, dests[0], 3)
	if err := st.InTx(ctx, func(tx *storage.Tx) error {
		for range 10 {
			tx.Emit(sample(org.ID))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rows, err := st.Pool().Query(ctx, `SELECT destination_id, cardinality(delivery_ids) FROM delivery_queue ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string][]int{}
	for rows.Next() {
		var d string
		var n int
		if err := rows.Scan(&d, &n); err != nil {
			t.Fatal(err)
		}
		sizes[d] = append(sizes[d], n)
	}
	if fmt.Sprint(sizes[dests[0]]) != "[1 3 3 3]" || fmt.Sprint(sizes[dests[1]]) != "[10]" {
		t.Fatalf("queue rows: throttled %v (want [1 3 3 3]), other %v (want [10])", sizes[dests[0]], sizes[dests[1]])
	}
	if got := claimAll(t, ds); len(got) != 13 {
		t.Fatalf("claims took %d now, want the other's 10 and the throttled one's first row of 3", len(got))
	}
}
