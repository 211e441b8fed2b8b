package delivery

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"outreachd/adapters/webhook"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// The helpers of helpers_test.go live in package delivery_test and cannot be used from this
// internal test; the hub below is built the same way (real PostgreSQL via testenv, real local
// HTTP receivers), with a small PerDestination.

func claimedFor(dest string, n int, first int) []storage.ClaimedDelivery {
	out := make([]storage.ClaimedDelivery, n)
	for i := range out {
		out[i] = storage.ClaimedDelivery{ID: fmt.Sprintf("%s-%d", dest, first+i), Target: storage.DeliveryTarget{ID: dest}}
	}
	return out
}

func ids(cs []claimed) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.c.ID
	}
	return out
}

func TestSchedCapQueueAndHandOff(t *testing.T) {
	const p = 3
	s := newSched(p, 100, 100)

	start := s.add(false, claimedFor("a", p, 0))
	if got := ids(start); !slices.Equal(got, []string{"a-0", "a-1", "a-2"}) {
		t.Fatalf("first claim started %v, want all %d", got, p)
	}
	// A second claim of the same destination waits: the cap is reached. Its queue of
	// saturatedAt rows leaves less room than a claim's worth: a is left out of claims.
	q := s.saturatedAt()
	if start := s.add(false, claimedFor("a", q, p)); len(start) != 0 {
		t.Fatalf("started %v beyond the cap of %d", ids(start), p)
	}
	// Another destination is not held up by the first one's queue.
	if start := s.add(false, claimedFor("b", 1, 0)); len(start) != 1 {
		t.Fatalf("destination b did not start at once: %v", ids(start))
	}
	held, running, saturated, _ := s.state(false)
	if held != p+q+1 || running != p+1 || !slices.Equal(saturated, []string{"a"}) {
		t.Fatalf("state = held %d running %d saturated %v; want %d, %d, [a]", held, running, saturated, p+q+1, p+1)
	}
	if h, r, sat, _ := s.state(true); h != 0 || r != 0 || len(sat) != 1 {
		t.Fatalf("retry budget state = %d %d %v, want 0 0 [a]", h, r, sat)
	}

	// A finishing send hands its slot to the oldest queued row of its destination.
	next, ok := s.done(start[0])
	if !ok || next.c.ID != "a-3" {
		t.Fatalf("done handed over %q (ok %v), want a-3", next.c.ID, ok)
	}
	if s.dests["a"].inFlight != p || len(s.dests["a"].queue) != q-1 {
		t.Fatalf("after hand-off: inFlight %d queue %d, want %d and %d", s.dests["a"].inFlight, len(s.dests["a"].queue), p, q-1)
	}
	if _, _, sat, _ := s.state(false); len(sat) != 0 {
		t.Fatalf("queue of %d with room for a claim still saturated: %v", q-1, sat)
	}
	// Drain a completely: the queued rows are handed over in order, then slots go idle.
	var order []string
	for _, it := range []claimed{next, start[1], start[2]} {
		for ok := true; ok; it, ok = s.done(it) {
			order = append(order, it.c.ID)
		}
	}
	var want []string
	for i := p; i < p+q; i++ {
		want = append(want, fmt.Sprint("a-", i))
	}
	if want = append(want, "a-1", "a-2"); !slices.Equal(order, want) {
		t.Fatalf("completion order %v, want %v", order, want)
	}
	if _, ok := s.dests["a"]; ok {
		t.Fatalf("idle destination a still tracked: %+v", s.dests["a"])
	}
	if held, running, _, _ := s.state(false); held != 1 || running != 1 {
		t.Fatalf("held %d running %d, want only b's send", held, running)
	}
}

func TestSchedQueueBoundUnderClaimLoop(t *testing.T) {
	for _, p := range []int{1, 2, 3, 4} {
		t.Run(fmt.Sprint("perDest=", p), func(t *testing.T) {
			s := newSched(p, 1000, 1000)
			rng := rand.New(rand.NewPCG(uint64(p), 7))
			var inFlight []claimed
			n, maxQueue := 0, 0
			for step := 0; step < 2000; step++ {
				_, _, saturated, queued := s.state(false)
				if rng.IntN(2) == 0 || len(inFlight) == 0 {
					// A claim as dispatch makes it: at most the room the queue's cap leaves,
					// never for a saturated destination.
					if !slices.Contains(saturated, "a") {
						k := 1 + rng.IntN(s.queueCap()-queued["a"])
						inFlight = append(inFlight, s.add(false, claimedFor("a", k, n))...)
						n += k
					}
				} else {
					i := rng.IntN(len(inFlight))
					it := inFlight[i]
					inFlight = slices.Delete(inFlight, i, i+1)
					if next, ok := s.done(it); ok {
						inFlight = append(inFlight, next)
					}
				}
				if len(inFlight) > p {
					t.Fatalf("step %d: %d sends in flight, cap %d", step, len(inFlight), p)
				}
				if d := s.dests["a"]; d != nil {
					if d.inFlight != len(inFlight) {
						t.Fatalf("step %d: sched counts %d in flight, really %d", step, d.inFlight, len(inFlight))
					}
					maxQueue = max(maxQueue, len(d.queue))
				}
			}
			if maxQueue > s.queueCap() {
				t.Fatalf("queue reached %d, bound is %d×%d−1 = %d", maxQueue, queueDepth, p, s.queueCap())
			}
			if maxQueue < p {
				t.Fatalf("queue never exceeded %d: the loop did not exercise saturation", maxQueue)
			}
		})
	}
	// The bound is reached: a queue one short of saturation plus a claim of all the room left.
	const p = 3
	s := newSched(p, 100, 100)
	s.add(false, claimedFor("a", p, 0))
	below := s.saturatedAt() - 1
	s.add(false, claimedFor("a", below, p))
	if _, _, sat, _ := s.state(false); len(sat) != 0 {
		t.Fatalf("queue of %d is saturated: %v", below, sat)
	}
	s.add(false, claimedFor("a", s.queueCap()-below, p+below))
	if q := len(s.dests["a"].queue); q != s.queueCap() {
		t.Fatalf("queue = %d, want queueCap = %d", q, s.queueCap())
	}
	if _, _, sat, _ := s.state(false); !slices.Equal(sat, []string{"a"}) {
		t.Fatalf("full queue not saturated: %v", sat)
	}
}

// The claim loops wake when a destination's queue is down to half of queueCap — not when it is
// nearly empty, so a fast destination keeps sending while the claim is on its way — and when a
// slot falls idle.
func TestSchedWakesAndClose(t *testing.T) {
	const p = 4
	s := newSched(p, 100, 100)
	drain := func() bool {
		woke := false
		for _, ch := range s.freed {
			select {
			case <-ch:
				woke = true
			default:
			}
		}
		return woke
	}
	start := s.add(false, claimedFor("a", p, 0))
	s.add(true, claimedFor("a", s.queueCap(), p)) // queued retries of a full destination
	drain()
	half := s.queueCap() / 2
	inFlight := start
	for left := s.queueCap() - 1; left >= half; left-- {
		next, ok := s.done(inFlight[0])
		if !ok {
			t.Fatalf("hand-off leaving %d queued: nothing handed over", left)
		}
		inFlight = append(inFlight[1:], next)
		if woke := drain(); woke != (left == half) {
			t.Fatalf("hand-off leaving %d queued woke the claim loops: %v (want a wake-up at %d only)", left, woke, half)
		}
	}
	queued := s.close()
	if len(queued) != half {
		t.Fatalf("close returned %d queued, want %d", len(queued), half)
	}
	if h, r, _, _ := s.state(true); h != p || r != p {
		t.Fatalf("retry budget after close: held %d running %d, want the %d handed over still in flight", h, r, p)
	}
	// After close a finishing send takes nothing more from the queue; an idle slot wakes.
	for _, it := range inFlight {
		if next, ok := s.done(it); ok {
			t.Fatalf("done after close handed over %q", next.c.ID)
		}
	}
	if !drain() {
		t.Fatalf("an idle slot did not wake the claim loops")
	}
	waited := make(chan struct{})
	go func() { s.wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(2 * time.Second):
		t.Fatal("wait did not return once every claimed row was finished or released")
	}
	if len(s.dests) != 0 {
		t.Fatalf("destinations still tracked: %v", s.dests)
	}
}

// TestDispatchPerDestinationCap runs a real hub with PerDestination 3 against a receiver that
// blocks until released and a fast one: the slow one never sees more than 3 concurrent requests,
// the fast one gets all its deliveries meanwhile, a freed slot starts a queued row at once, and
// after release every slow delivery arrives.
func TestDispatchPerDestinationCap(t *testing.T) {
	t.Parallel()
	const perDest, events = 3, 9
	st := testenv.Store(t)
	ctx := context.Background()
	org, err := st.CreateOrg(ctx, "Org "+t.Name(), nil)
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 4 * time.Second
	hub, err := NewHub(st, webhook.NewSender(webhook.Config{Timeout: timeout, AllowPrivate: true}), nil, nil, Config{
		Timeout: timeout, RetrySchedule: []time.Duration{0}, PerDestination: perDest, IdleWake: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}

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
	t.Cleanup(func() {
		unblock()
		slow.CloseClientConnections()
		slow.Close()
		fast.Close()
	})

	dest := func(url string) storage.Destination {
		d, err := st.CreateDestination(ctx, storage.Destination{OrgID: org.ID, Name: "d", Kind: outreach.DestinationHTTPS, URL: url, Enabled: true})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	slowDest, fastDest := dest(slow.URL), dest(fast.URL)

	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- hub.Run(runCtx) }()
	t.Cleanup(func() {
		unblock()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("hub.Run: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("hub did not stop within 15 s")
		}
	})

	if err := st.InTx(ctx, func(tx *storage.Tx) error {
		for range events {
			tx.Emit(outreach.SampleEvent(outreach.EventCampaignStarted, org.ID, time.Now()))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

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
	_, _, saturated, _ := hub.sched.state(false)
	hub.sched.mu.Lock()
	d := hub.sched.dests[slowDest.ID]
	inFlight, queued := 0, 0
	if d != nil {
		inFlight, queued = d.inFlight, len(d.queue)
	}
	hub.sched.mu.Unlock()
	if inFlight != perDest || queued > hub.sched.queueCap() || queued < 1 {
		t.Fatalf("slow destination in sched: %d in flight, %d queued; want %d and 1..%d (saturated %v)",
			inFlight, queued, perDest, hub.sched.queueCap(), saturated)
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
	for _, d := range []storage.Destination{slowDest, fastDest} {
		testenv.Eventually(t, 10*time.Second, func() (bool, string) {
			list, _, err := st.DeliveryLog(ctx, org.ID, storage.DeliveryLogQuery{DestinationID: d.ID, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			ok := 0
			for _, l := range list {
				if l.Status == storage.DeliverySucceeded && l.Attempts == 1 {
					ok++
				}
			}
			return len(list) == events && ok == events,
				fmt.Sprintf("destination %s: %d of %d deliveries succeeded on the first attempt (want %d)", d.URL, ok, len(list), events)
		})
	}
}

// A claim reads no more rows than the destinations it last found can take: the rows it reads are
// locked before they are cut to each destination's room.
func TestSchedActiveRoom(t *testing.T) {
	s := newSched(32, 256, 64)
	room := s.queueCap() // 127
	if got := s.activeRoom(nil, nil, nil); got != math.MaxInt {
		t.Errorf("no previous claim: %d, want no bound", got)
	}
	active := map[string]bool{"a": true, "b": true}
	if got := s.activeRoom(active, []string{}, map[string]int{"a": 40}); got != room-40+room {
		t.Errorf("a with 40 queued, b empty: %d, want %d", got, room-40+room)
	}
	if got := s.activeRoom(active, []string{"a"}, map[string]int{"b": 10}); got != room-10 {
		t.Errorf("a saturated, b with 10 queued: %d, want %d", got, room-10)
	}
	if got := s.activeRoom(map[string]bool{"a": true}, []string{"a"}, nil); got != math.MaxInt {
		t.Errorf("the only active destination saturated: %d, want no bound (it is skipped by the claim)", got)
	}
}
