package delivery_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"outreachd/bench"
	"outreachd/delivery"
	"outreachd/outreach"
)

func arrivals(rs []received) []time.Time {
	out := make([]time.Time, len(rs))
	for i, r := range rs {
		out[i] = r.at
	}
	return out
}

// TestThrottledDestinationDrainsAtItsRate: a burst to a destination limited to 10 a second and,
// side by side, to one without a limit. The unthrottled one has all of it at once; the
// throttled one gets every event, never more than 10 in any one-second window counted at the
// receiver, and its attempt log shows the waits as throttled (not as failures). A retry goes
// through the same budget.
func TestThrottledDestinationDrainsAtItsRate(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{allowPrivate: true})
	slow := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		if n == 3 { // one failure: its retry must wait for the budget too
			w.WriteHeader(503)
		}
	})
	fast := newReceiver(t, nil)
	sd := e.destination(t, slow.URL, "")
	throttled(t, e.ds, e.org, sd.ID, 10)
	fd := e.destination(t, fast.URL, "")
	const n = 40
	var evs []outreach.Event
	for range n {
		evs = append(evs, sample(e.org))
	}
	started := time.Now()
	e.emit(t, evs...)
	fast.waitFor(t, 10*time.Second, "the burst at the unthrottled destination", atLeast(n))
	fastDone := time.Since(started)
	got := slow.waitFor(t, 20*time.Second, "the burst and the retry at the throttled destination", atLeast(n+1))
	slowDone := time.Since(started)
	if most := bench.BusiestSecond(arrivals(got)); most > 10 {
		t.Fatalf("%d requests reached the throttled receiver within one second; its limit is 10", most)
	}
	// 41 starts at least 105 ms apart take 4.2 s at least.
	if slowDone < 4*time.Second || fastDone > slowDone/2 {
		t.Fatalf("the unthrottled destination took %v, the throttled one %v", fastDone, slowDone)
	}
	e.waitFinished(t, sd.ID, n, 10*time.Second)
	log, _, err := e.ds.AttemptLog(context.Background(), e.org, sd.ID, 100, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	waited := 0
	for _, a := range log {
		if a.ThrottledMS == nil || *a.ThrottledMS < 0 {
			t.Fatalf("the throttled log lists %+v", a)
		}
		waited = max(waited, *a.ThrottledMS)
	}
	// Every attempt but the first of a fresh budget waited; the last about 4 s.
	if len(log) < n-2 || waited < 3000 {
		t.Fatalf("%d attempts logged as throttled (longest wait %d ms) of %d", len(log), waited, n+1)
	}
	if fl, _, _ := e.ds.AttemptLog(context.Background(), e.org, fd.ID, 100, 0, true); len(fl) != 0 {
		t.Fatalf("the unthrottled destination has %d throttled attempts", len(fl))
	}
	t.Logf("unthrottled: %d in %v; throttled at 10/s: %d in %v, busiest second %d, longest wait %d ms",
		n, fastDone.Round(time.Millisecond), len(got), slowDone.Round(time.Millisecond), bench.BusiestSecond(arrivals(got)), waited)
}

// TestLateAttemptTakesANewSlot: an attempt that could not start near its slot (its process was
// busy) does not start late, crowding the next one: it takes a new slot after every slot handed
// out.
func TestLateAttemptTakesANewSlot(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{noRun: true})
	d := e.destination(t, "https://late.example.com/h", "")
	throttled(t, e.ds, e.org, d.ID, 2)
	ahead, _, err := e.ds.TakeSlot(context.Background(), d.ID) // someone else's slot, now
	if err != nil {
		t.Fatal(err)
	}
	c := delivery.ClaimedDelivery{ID: "dlv_late", Target: delivery.DeliveryTarget{ID: d.ID}, NotBefore: time.Now().Add(-time.Second)}
	if !e.hub.AwaitSlot(context.Background(), &c) {
		t.Fatal("awaitSlot gave up")
	}
	if gap := time.Since(ahead); !c.Throttled || gap < spacingOf(2)-10*time.Millisecond {
		t.Fatalf("the late attempt may start %v after the slot ahead of it (throttled %v); want the spacing %v", gap, c.Throttled, spacingOf(2))
	}
	// Its new slot follows the one ahead (or a later one, should the wait itself be late).
	if want := ahead.Add(spacingOf(2)); c.NotBefore.Before(want.Add(-time.Millisecond)) {
		t.Fatalf("its new slot is %v, want %v or later", c.NotBefore, want)
	}
}

// TestTestSendTakesASlot: a Test send is an attempt towards the receiver like any other, so it
// waits for a slot of its destination's budget; the wait is in its record.
func TestTestSendTakesASlot(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{allowPrivate: true, noRun: true})
	rc := newReceiver(t, nil)
	d := e.destination(t, rc.URL, "")
	throttled(t, e.ds, e.org, d.ID, 2)
	d, err := e.ds.GetDestination(context.Background(), e.org, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if res, err := e.hub.SendTest(context.Background(), d, ""); err != nil || !res.OK {
			t.Fatalf("test send: %+v %v", res, err)
		}
	}
	got := rc.requests()
	if len(got) != 2 || got[1].at.Sub(got[0].at) < spacingOf(2)-20*time.Millisecond {
		t.Fatalf("two test sends %v apart; the limit spaces them %v", got[1].at.Sub(got[0].at), spacingOf(2))
	}
	log, _, err := e.ds.AttemptLog(context.Background(), e.org, d.ID, 10, 0, true)
	if err != nil || len(log) != 1 || *log[0].ThrottledMS < 400 {
		t.Fatalf("throttled test attempts: %+v (%v); want the second, about 525 ms", log, err)
	}
}
