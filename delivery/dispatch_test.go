package delivery

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func claimedFor(dest string, n int, first int) []ClaimedDelivery {
	out := make([]ClaimedDelivery, n)
	for i := range out {
		out[i] = ClaimedDelivery{ID: fmt.Sprintf("%s-%d", dest, first+i), Target: DeliveryTarget{ID: dest}}
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
