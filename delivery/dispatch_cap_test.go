package delivery_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// TestDispatchPerDestinationCap runs a real hub with PerDestination 3 against a receiver that
// blocks until released and a fast one: the slow one never sees more than 3 concurrent requests,
// the fast one gets all its deliveries meanwhile, a freed slot starts a queued row at once, and
// after release every slow delivery arrives.
func TestDispatchPerDestinationCap(t *testing.T) {
	t.Parallel()
	const perDest, events = 3, 9
	e := startHub(t, hubOpts{schedule: []time.Duration{0}, timeout: 4 * time.Second, allowPrivate: true,
		perDestination: perDest, idleWake: 200 * time.Millisecond})

	var cur, peak, slowGot atomic.Int64
	release := make(chan struct{}, events)
	releaseAll := make(chan struct{})
	var closeOnce sync.Once
	unblock := func() { closeOnce.Do(func() { close(releaseAll) }) }
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		n := cur.Add(1)
		defer cur.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		slowGot.Add(1)
		select {
		case <-release:
		case <-releaseAll:
		case <-r.Context().Done():
		}
	}))
	var fastGot atomic.Int64
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		fastGot.Add(1)
	}))
	// Runs before the hub stops (startHub's cleanup, registered first): no send stays blocked.
	t.Cleanup(func() {
		unblock()
		slow.CloseClientConnections()
		slow.Close()
		fast.Close()
	})

	slowDest, fastDest := e.destination(t, slow.URL, ""), e.destination(t, fast.URL, "")
	evs := make([]outreach.Event, events)
	for i := range evs {
		evs[i] = outreach.SampleEvent(outreach.EventCampaignStarted, e.org, time.Now())
	}
	e.emit(t, evs...)

	waitUntil := func(d time.Duration, what string, cond func() bool) {
		t.Helper()
		testenv.Eventually(t, d, func() (bool, string) {
			return cond(), fmt.Sprintf("waiting for %s (slow got %d, in flight %d, peak %d; fast got %d)",
				what, slowGot.Load(), cur.Load(), peak.Load(), fastGot.Load())
		})
	}
	// (1) The slow destination fills its slots, and the fast one receives everything meanwhile.
	waitUntil(10*time.Second, "the slow destination's slots to fill", func() bool { return cur.Load() == perDest })
	waitUntil(3*time.Second, "every fast delivery while the slow one blocks", func() bool { return fastGot.Load() == events })
	// Give the dispatcher room to overshoot if the cap were broken (claims and IdleWake rounds).
	// This pause stays: a claim round that sends nothing leaves no trace a test can wait for
	// (no event, row or metric), so there is no later signal to wait on instead.
	time.Sleep(500 * time.Millisecond)
	if got, p := slowGot.Load(), peak.Load(); got != perDest || p != perDest {
		t.Fatalf("while blocked the slow destination got %d requests, peak %d concurrent; want exactly %d", got, p, perDest)
	}
	if inFlight, queued, queueCap := e.hub.DestinationSlots(slowDest.ID); inFlight != perDest || queued > queueCap || queued < 1 {
		t.Fatalf("slow destination in the scheduler: %d in flight, %d queued; want %d and 1..%d", inFlight, queued, perDest, queueCap)
	}

	// (2) One freed slot starts the next row promptly, without exceeding the cap.
	release <- struct{}{}
	waitUntil(time.Second, "a queued row to take the freed slot", func() bool { return slowGot.Load() == perDest+1 })
	waitUntil(time.Second, "the slots to be full again", func() bool { return cur.Load() == perDest })

	// Then release everything: all slow deliveries arrive, never more than the cap at once.
	unblock()
	waitUntil(10*time.Second, "every slow delivery", func() bool { return slowGot.Load() == events })
	if p := peak.Load(); p > perDest {
		t.Fatalf("peak concurrency %d at the slow destination, cap %d", p, perDest)
	}
	for _, d := range []delivery.Destination{slowDest, fastDest} {
		testenv.Eventually(t, 10*time.Second, func() (bool, string) {
			list, _, err := e.ds.DeliveryLog(context.Background(), e.org, delivery.DeliveryLogQuery{DestinationID: d.ID, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			ok := 0
			for _, l := range list {
				if l.Status == delivery.DeliverySucceeded && l.Attempts == 1 {
					ok++
				}
			}
			return len(list) == events && ok == events,
				fmt.Sprintf("destination %s: %d of %d deliveries succeeded on the first attempt (want %d)", d.URL, ok, len(list), events)
		})
	}
}
