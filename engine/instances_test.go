package engine_test

import (
	"sync"
	"testing"
	"time"

	"outreachd/adapters/drafter"
	"outreachd/engine"
	"outreachd/outreach"
)

// Several engine instances share one database and one provider: however their passes interleave,
// no person gets an invitation or a message twice.

// together runs one pass of each engine at once and waits for all of them.
func (w *world) together(engines ...*engine.Engine) {
	w.t.Helper()
	var wg sync.WaitGroup
	for _, e := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.Pass(w.ctx); err != nil {
				w.t.Error(err)
			}
		}()
	}
	wg.Wait()
}

func TestTwoEnginesNeverSendTwice(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	// One campaign a claim, so the two instances interleave on the one seat.
	li := w.useFaulty(engine.Config{InstanceID: "first", CampaignBatch: 1})
	second := w.newEngine(draftAdapter{drafter.Builtin{}}, engine.Config{InstanceID: "second", CampaignBatch: 1})
	var people []string
	for c := range 3 {
		cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
		people = append(people, w.push(cid, handles("two-"+string(rune('a'+c)), 6)...)...)
	}
	for range 4 {
		w.together(w.eng, second)
	}
	if got := li.count(li.calls, "SendInvite"); got != len(people) {
		t.Fatalf("%d invitation calls for %d people", got, len(people))
	}
	for c := range 3 {
		for _, h := range handles("two-"+string(rune('a'+c)), 6) {
			if err := w.sim.InjectAccept(key(h)); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.together(w.eng, second)
	w.clock.Advance(25 * time.Hour)
	for range 4 {
		w.together(w.eng, second)
	}
	if got := li.count(li.calls, "SendMessage"); got != len(people) {
		t.Fatalf("%d message calls for %d people", got, len(people))
	}
	for _, pid := range people {
		for kind, want := range map[string]int{"invite_sent": 1, "message_sent": 1} {
			if n := w.count(`SELECT count(*) FROM activities WHERE prospect_id = $1 AND kind = $2`, pid, kind); n != want {
				t.Fatalf("prospect %s: %d %s, want %d", pid, n, kind, want)
			}
		}
	}
	if got := w.countKind(outreach.EventInviteSent); got != len(people) {
		t.Fatalf("%d invite_sent events for %d people", got, len(people))
	}
}

// TestActionUnderWayElsewhere: while one instance's call is under way, another that takes the
// campaign over (its lease ran out) does not start the same action.
func TestActionUnderWayElsewhere(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	li := w.useFaulty(engineCfg("first"))
	second := w.newEngine(draftAdapter{drafter.Builtin{}}, engineCfg("second"))
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	w.push(cid, "slow-call")
	calling, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	li.before = func(method string) {
		if method == "SendInvite" {
			once.Do(func() {
				close(calling)
				<-release
			})
		}
	}
	first := make(chan struct{})
	go func() {
		defer close(first)
		_, _ = w.eng.Pass(w.ctx)
	}()
	<-calling
	w.exec(`UPDATE campaigns SET engine_lease_until = now() - interval '1 second' WHERE id = $1`, cid)
	if _, err := second.Pass(w.ctx); err != nil {
		t.Fatal(err)
	}
	if got := li.count(li.calls, "SendInvite"); got != 1 {
		t.Fatalf("%d invitation calls while the first was under way", got)
	}
	close(release)
	<-first
	w.together(w.eng, second)
	if got, done := li.count(li.calls, "SendInvite"), w.countKind(outreach.EventInviteSent); got != 1 || done != 1 {
		t.Fatalf("%d invitation calls, %d invite_sent events; want 1 and 1", got, done)
	}
}
