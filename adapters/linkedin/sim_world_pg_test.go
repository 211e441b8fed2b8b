package linkedin_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"outreachd/adapters/linkedin"
	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// A restarted process must find the simulated LinkedIn as it was left: the same seats, the
// invitations still pending and the replies still due, the same reports under the same sequence
// numbers, and the world moving on from there exactly as if no restart had happened.
func TestSimulatorWorldSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	st := testenv.Store(t)
	worlds := linkedin.NewPostgresWorlds(st.Pool())
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	cfg := linkedin.SimConfig{Seed: 11, DisconnectPerDay: -1, ReplyDelayMax: 6 * time.Hour}
	open := func(at time.Time) (*linkedin.Simulator, *outreach.VirtualClock) {
		t.Helper()
		clock := outreach.NewVirtualClock(at, 0)
		s, err := linkedin.OpenSimulator(ctx, clock, worlds, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s, clock
	}
	// The reference runs the whole story in one process, in memory.
	refClock := outreach.NewVirtualClock(t0, 0)
	ref, err := linkedin.NewSimulator(refClock, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, clock := open(t0)
	if n, _ := a.Replayed(); n != 0 {
		t.Fatalf("a new world replayed %d calls", n)
	}
	var acc string
	story := func(s *linkedin.Simulator, c *outreach.VirtualClock, from, to int) {
		t.Helper()
		for h := from; h < to; h++ {
			c.Set(t0.Add(time.Duration(h) * time.Hour))
			switch {
			case h == 0:
				got, err := s.ConnectAccount(ctx, "org_1", "Dana Seller")
				if err != nil {
					t.Fatal(err)
				}
				acc = got.ID
				for i := range 30 {
					ref := outreach.ProfileRef{ProfileKey: fmt.Sprintf("in:person-%d", i), Name: fmt.Sprintf("Person %d", i)}
					if _, err := s.SendInvite(ctx, acc, ref, "Hi!"); err != nil {
						t.Fatal(err)
					}
				}
			case h == 30:
				_ = s.InjectRateLimit(acc, 2*time.Hour)
			case h == 40:
				_, _ = s.InjectReply("in:person-1", "Is this an automated message?")
			}
			rs, err := s.Poll(ctx, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				if r.Kind == outreach.ReportInviteAccepted && r.At.Equal(c.Now()) {
					if _, _, err := s.SendMessage(ctx, acc, r.ProfileKey, "Thanks for connecting!"); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	story(ref, refClock, 0, 120)
	story(a, clock, 0, 50)
	before := reports(t, a)

	// "Restart": a new simulator on the same store, with a clock that went on from there.
	b, clock := open(t0.Add(50 * time.Hour))
	if n, last := b.Replayed(); n == 0 || last.After(t0.Add(50*time.Hour)) {
		t.Fatalf("replayed %d calls, last at %s", n, last)
	}
	after := reports(t, b)
	if len(before) == 0 || !reflect.DeepEqual(before, after) {
		for i := range min(len(before), len(after)) {
			if !reflect.DeepEqual(before[i], after[i]) {
				t.Errorf("report %d: %+v\nafter restart: %+v", i, before[i], after[i])
			}
		}
		t.Fatalf("the reports before the restart (%d) differ from those after it (%d)", len(before), len(after))
	}
	if !b.KnowsInvite(acc, "in:person-3") || b.KnowsInvite(acc, "in:nobody") {
		t.Fatal("the restarted world does not know its invitations")
	}
	story(b, clock, 50, 120)
	got, want := reports(t, b), reports(t, ref)
	if len(got) <= len(before) {
		t.Fatalf("nothing happened after the restart (%d reports before, %d after)", len(before), len(got))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("a restarted world diverged from one that never stopped: %d vs %d reports", len(got), len(want))
	}

	// The clock is saved with the world; another seed is another, empty world.
	if err := worlds.SaveSimClock(ctx, b.World(), t0.Add(200*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if at, ok, err := worlds.SimClock(ctx, b.World()); err != nil || !ok || !at.Equal(t0.Add(200*time.Hour)) {
		t.Fatalf("SimClock = %s, %v, %v", at, ok, err)
	}
	other, err := linkedin.OpenSimulator(ctx, clock, worlds, linkedin.SimConfig{Seed: 12})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := other.Replayed(); n != 0 || other.World() == b.World() {
		t.Fatalf("seed 12 replayed %d calls of world %s", n, other.World())
	}
	if _, ok, _ := worlds.SimClock(ctx, other.World()); ok {
		t.Fatal("an unused world has a clock")
	}

	// A world deleted is replaced by a new, empty one under a new name (a new report sequence).
	if _, err := st.Pool().Exec(ctx, `DELETE FROM sim_worlds WHERE world = $1`, b.World()); err != nil {
		t.Fatal(err)
	}
	fresh, _ := open(t0.Add(300 * time.Hour))
	if n, _ := fresh.Replayed(); n != 0 || fresh.World() == b.World() || !strings.HasPrefix(fresh.World(), linkedin.WorldBase(11)+"/") {
		t.Fatalf("after deleting %s: world %s replayed %d calls", b.World(), fresh.World(), n)
	}
	if again, _ := open(t0.Add(300 * time.Hour)); again.World() != fresh.World() {
		t.Fatalf("the current world changed from %s to %s", fresh.World(), again.World())
	}
}

// reports is every report of s, with times in UTC (a replayed time comes back from PostgreSQL
// in the local zone; the instant is what must be the same).
func reports(t *testing.T, s *linkedin.Simulator) []outreach.LinkedInReport {
	t.Helper()
	rs, err := s.Poll(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rs {
		rs[i].At = rs[i].At.UTC()
	}
	return rs
}
