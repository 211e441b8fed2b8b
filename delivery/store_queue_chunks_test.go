package delivery_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
)

// queueChunks fans out events new events to every destination in one transaction, queued in
// chunks of chunk deliveries per destination, and returns the deliveries by event.
func queueChunks(t *testing.T, ds *delivery.Store, org string, dests []string, events, chunk int) []delivery.NewDeliveries {
	t.Helper()
	nds := deliveriesToAll(org, dests, events, func(int) []byte { return []byte(`{}`) })
	for i := range nds {
		nds[i].QueueChunk = chunk
	}
	if res := commitFanout(t, ds.Pool(), ds, nds); res.Created != events*len(dests) {
		t.Fatalf("fan-out: %+v, want %d created", res, events*len(dests))
	}
	return nds
}

// queueRows is the dispatch queue's rows of dest: id -> the deliveries it lists.
func queueRows(t *testing.T, ds *delivery.Store, dest string) map[string][]string {
	t.Helper()
	rows, err := ds.Pool().Query(context.Background(), `SELECT id, delivery_ids FROM delivery_queue WHERE destination_id = $1`, dest)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var id string
		var ids []string
		if err := rows.Scan(&id, &ids); err != nil {
			t.Fatal(err)
		}
		out[id] = ids
	}
	return out
}

// recordOf is the record of a first attempt of c ending in status (a retry is due at once).
func recordOf(c delivery.ClaimedDelivery, status string) delivery.AttemptRecord {
	r := delivery.AttemptRecord{DeliveryID: c.ID, DestinationID: c.Target.ID, OrgID: c.OrgID, EventID: c.EventID,
		EventKind: c.EventKind, Attempt: c.Attempts + 1, Trigger: delivery.TriggerScheduled, At: time.Now(),
		URL: c.Target.URL, Status: status, Succeeded: status == delivery.DeliverySucceeded, StatusCode: 200}
	if status == delivery.DeliveryPending {
		next := time.Now().Add(-time.Second)
		r.NextAttemptAt, r.StatusCode, r.Error = &next, 500, "HTTP 500"
	}
	return r
}

func claimIDs(cs []delivery.ClaimedDelivery) (ids, queues []string) {
	for _, c := range cs {
		ids = append(ids, c.ID)
		if !slices.Contains(queues, c.QueueID) {
			queues = append(queues, c.QueueID)
		}
	}
	slices.Sort(ids)
	return ids, queues
}

// TestQueueChunks covers the chunks of migration 084: how the fan-out queues them, what a claim
// takes of them, how records, a lease running out, resend and release treat them, and that the
// queue's invariant holds after each step.
func TestQueueChunks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ds := testenv.Stores(t)
	org, dests := orgWithDestinations(t, st, ds, 2)
	claim := func(p delivery.ClaimDueParams) []delivery.ClaimedDelivery {
		t.Helper()
		if p.Lease == 0 {
			p.Lease = time.Minute
		}
		got, err := ds.ClaimDue(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// claimNew claims (lease 200 ms) until every delivery of nds is claimed, and returns those.
	claimNew := func(nds []delivery.NewDeliveries) []delivery.ClaimedDelivery {
		t.Helper()
		want := map[string]bool{}
		for _, nd := range nds {
			for _, id := range nd.IDs {
				want[id] = true
			}
		}
		var mine []delivery.ClaimedDelivery
		testenv.Eventually(t, 10*time.Second, func() (bool, string) {
			for _, c := range claim(delivery.ClaimDueParams{Limit: 100, Lease: 200 * time.Millisecond}) {
				if want[c.ID] {
					mine = append(mine, c)
				}
			}
			return len(mine) == len(want), "claiming the new deliveries"
		})
		return mine
	}
	record := func(recs ...delivery.AttemptRecord) {
		t.Helper()
		if err := ds.RecordAttempts(ctx, recs); err != nil {
			t.Fatal(err)
		}
		queueMirrorsPending(t, ds)
	}

	t.Run("the fan-out queues each destination's deliveries in chunks", func(t *testing.T) {
		queueChunks(t, ds, org.ID, dests, 10, 4)
		queueMirrorsPending(t, ds)
		for _, d := range dests {
			var sizes []int
			for id, ids := range queueRows(t, ds, d) {
				if !strings.HasPrefix(id, "c:") {
					t.Errorf("queue row %s is not a chunk", id)
				}
				sizes = append(sizes, len(ids))
			}
			slices.Sort(sizes)
			if !slices.Equal(sizes, []int{2, 4, 4}) {
				t.Errorf("destination %s: chunks of %v, want 4, 4 and 2", d, sizes)
			}
		}
	})

	t.Run("a claim takes whole chunks within the limit and each destination's room", func(t *testing.T) {
		got := claim(delivery.ClaimDueParams{Limit: 6})
		ids, queues := claimIDs(got)
		if len(ids) != 4 || len(queues) != 1 || !strings.HasPrefix(queues[0], "c:") {
			t.Fatalf("limit 6 over chunks of 4 claimed %d deliveries of %v, want one chunk of 4", len(ids), queues)
		}
		// The first chunk is taken whole even when it is larger than the limit: it could
		// never be claimed otherwise.
		if ids, queues := claimIDs(claim(delivery.ClaimDueParams{Limit: 2})); len(ids) != 4 || len(queues) != 1 {
			t.Fatalf("limit 2 claimed %d deliveries of %v, want the first chunk whole", len(ids), queues)
		}
		// Room for 3 of dests[0] (2 of its 5 queued): none of its chunks of 4, only its chunk
		// of 2 if that is its next; dests[1] (room 5, nothing queued) gets its next chunk and no
		// more than its room.
		took := map[string]int{}
		for _, c := range claim(delivery.ClaimDueParams{Limit: 100, PerDestination: 5, Queued: map[string]int{dests[0]: 2}}) {
			took[c.Target.ID]++
		}
		if took[dests[0]] > 3 || took[dests[1]] > 5 || took[dests[1]] == 0 {
			t.Fatalf("claimed %d of dests[0] (room 3) and %d of dests[1] (room 5)", took[dests[0]], took[dests[1]])
		}
		queueMirrorsPending(t, ds)
	})

	t.Run("a retry gets a row of its own, a stale record queues nothing, the last record removes the chunk", func(t *testing.T) {
		got := claimNew(queueChunks(t, ds, org.ID, dests[:1], 4, 4))
		if _, queues := claimIDs(got); len(queues) != 1 {
			t.Fatalf("the 4 deliveries came from queue rows %v, want one chunk", queues)
		}
		chunk := got[0].QueueID
		record(recordOf(got[0], delivery.DeliverySucceeded), recordOf(got[1], delivery.DeliveryPending),
			recordOf(got[2], delivery.DeliveryFailed))
		if _, ok := queueRows(t, ds, dests[0])[chunk]; !ok {
			t.Fatal("the chunk went before its last delivery was recorded")
		}
		if ids := queueRows(t, ds, dests[0])[got[1].ID]; !slices.Equal(ids, []string{got[1].ID}) {
			t.Fatalf("the retry's own row lists %v", ids)
		}
		// A late record of the first attempt, as if it were to be retried, of a delivery that
		// has succeeded meanwhile: no row for it.
		record(recordOf(got[0], delivery.DeliveryPending))
		if _, ok := queueRows(t, ds, dests[0])[got[0].ID]; ok {
			t.Fatal("a stale record queued a finished delivery again")
		}
		last := recordOf(got[3], delivery.DeliverySucceeded)
		last.LastOfChunk = chunk
		record(last)
		if _, ok := queueRows(t, ds, dests[0])[chunk]; ok {
			t.Fatal("the chunk stayed after the record of its last delivery")
		}
	})

	t.Run("a chunk claimed again after its lease gives what is still pending, then goes", func(t *testing.T) {
		mine := claimNew(queueChunks(t, ds, org.ID, dests[:1], 4, 4))
		// The process that claimed it records two deliveries, then dies.
		record(recordOf(mine[0], delivery.DeliverySucceeded), recordOf(mine[1], delivery.DeliverySucceeded))
		var again []delivery.ClaimedDelivery
		testenv.Eventually(t, 10*time.Second, func() (bool, string) {
			again = nil
			for _, c := range claim(delivery.ClaimDueParams{Limit: 100, Lease: 200 * time.Millisecond}) {
				if c.QueueID == mine[0].QueueID {
					again = append(again, c)
				}
			}
			return len(again) > 0, "the chunk to come due again after its lease"
		})
		want := []string{mine[2].ID, mine[3].ID}
		slices.Sort(want)
		if ids, _ := claimIDs(again); !slices.Equal(ids, want) {
			t.Fatalf("claimed again %v, want the two not recorded %v", ids, want)
		}
		// Those two are recorded too, but the chunk's removal is lost: the next claim that
		// finds it drops it.
		record(recordOf(again[0], delivery.DeliverySucceeded), recordOf(again[1], delivery.DeliverySucceeded))
		testenv.Eventually(t, 10*time.Second, func() (bool, string) {
			for _, c := range claim(delivery.ClaimDueParams{Limit: 100, Lease: 200 * time.Millisecond}) {
				if c.QueueID == mine[0].QueueID {
					t.Fatalf("claimed %s of a chunk with nothing pending", c.ID)
				}
			}
			_, ok := queueRows(t, ds, dests[0])[mine[0].QueueID]
			return !ok, "the finished chunk to be dropped by a claim"
		})
		queueMirrorsPending(t, ds)
	})

	t.Run("resend leaves a delivery waiting in its chunk there, release makes the chunk due", func(t *testing.T) {
		nds := queueChunks(t, ds, org.ID, dests[1:], 2, 4)
		if err := ds.ResendDelivery(ctx, org.ID, nds[0].IDs[0]); err != nil {
			t.Fatal(err)
		}
		queueMirrorsPending(t, ds)
		mine := claimNew(nds)
		// One succeeds and is resent while the chunk is still in flight: a row of its own.
		record(recordOf(mine[0], delivery.DeliverySucceeded))
		if err := ds.ResendDelivery(ctx, org.ID, mine[0].ID); err != nil {
			t.Fatal(err)
		}
		queueMirrorsPending(t, ds)
		// The other was never started: released, its chunk is due at once and gives it alone.
		if err := ds.ReleaseClaims(ctx, []string{mine[1].QueueID}); err != nil {
			t.Fatal(err)
		}
		got := claim(delivery.ClaimDueParams{Limit: 100})
		if len(got) != 1 || got[0].ID != mine[1].ID || got[0].QueueID != mine[1].QueueID {
			t.Fatalf("after release the first-attempt claim took %+v, want %s of its chunk", got, mine[1].ID)
		}
		retries := claim(delivery.ClaimDueParams{Retries: true, Limit: 100})
		i := slices.IndexFunc(retries, func(c delivery.ClaimedDelivery) bool { return c.ID == mine[0].ID })
		if i < 0 || retries[i].QueueID != mine[0].ID || retries[i].Attempts != 1 || retries[i].Trigger != delivery.TriggerManual {
			t.Fatalf("the resent delivery among the retries claimed: %+v, want it in its own row", retries)
		}
	})
}
