package engine_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"outreachd/adapters/drafter"
	"outreachd/adapters/linkedin"
	"outreachd/engine"
	"outreachd/outreach"
	"outreachd/storage"
)

func handles(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%03d", prefix, i)
	}
	return out
}

func (w *world) invites(cid string) int {
	return w.count(`SELECT count(*) FROM activities WHERE campaign_id = $1 AND kind = 'invite_sent'`, cid)
}

// TestScheduleWindow: nothing is sent outside the campaign's window, judged in its time zone
// and on its working days; at the opening the due prospects go out.
func TestScheduleWindow(t *testing.T) {
	t.Parallel()
	ny, _ := time.LoadLocation("America/New_York")
	// Saturday 28 Nov 2026, 12:00 in New York.
	w := newWorld(t, time.Date(2026, 11, 28, 12, 0, 0, 0, ny), worldOpt{})
	sched := outreach.Schedule{Timezone: "America/New_York", WorkingDays: []string{"monday", "tuesday", "wednesday", "thursday", "friday"},
		StartTime: "09:00", EndTime: "17:00"}
	cid := w.campaign("", sched, nil, 0)
	w.push(cid, handles("tz", 3)...)
	steps := []struct {
		name string
		at   time.Time
		want int
	}{
		{"Saturday noon (not a working day)", time.Date(2026, 11, 28, 12, 0, 0, 0, ny), 0},
		{"Sunday noon", time.Date(2026, 11, 29, 12, 0, 0, 0, ny), 0},
		{"Monday 08:59 New York (13:59 UTC, after 09:00 in London)", time.Date(2026, 11, 30, 8, 59, 0, 0, ny), 0},
		{"Monday 09:00 New York", time.Date(2026, 11, 30, 9, 0, 0, 0, ny), 3},
	}
	for _, s := range steps {
		w.clock.Set(s.at)
		w.pass()
		if got := w.invites(cid); got != s.want {
			t.Fatalf("%s: %d invites, want %d", s.name, got, s.want)
		}
	}
	// The activities carry the engine clock's time, inside the window.
	if got := w.count(`SELECT count(*) FROM activities WHERE campaign_id = $1 AND at = $2`, cid, time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)); got != 3 {
		t.Fatalf("activities at the opening: %d", got)
	}
}

// TestDailyLimit: a campaign never sends more than its daily limit in its local day, also with
// two engine instances working at once; the next local day continues.
func TestDailyLimit(t *testing.T) {
	t.Parallel()
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	// 10:00 in Tokyo on a Monday.
	w := newWorld(t, time.Date(2026, 11, 23, 10, 0, 0, 0, tokyo), worldOpt{})
	sched := outreach.Schedule{Timezone: "Asia/Tokyo", WorkingDays: []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"},
		StartTime: "08:00", EndTime: "20:00"}
	cid := w.campaign("", sched, nil, 5)
	w.push(cid, handles("lim", 12)...)

	second := w.newEngine(draftAdapter{drafter.Builtin{}}, engineCfg("second"))
	var wg sync.WaitGroup
	for _, e := range []*engine.Engine{w.eng, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.Pass(w.ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := w.invites(cid); got != 5 {
		t.Fatalf("two instances at once sent %d invites, limit 5", got)
	}
	w.clock.Advance(3 * time.Hour)
	w.pass()
	if got := w.invites(cid); got != 5 {
		t.Fatalf("later the same day: %d invites", got)
	}
	// 23:30 UTC is 08:30 the next morning in Tokyo: a new local day.
	w.clock.Set(time.Date(2026, 11, 24, 8, 30, 0, 0, tokyo))
	w.pass()
	if got := w.invites(cid); got != 10 {
		t.Fatalf("next local day: %d invites, want 10", got)
	}
	if got := w.count(`SELECT count(*) FROM prospects WHERE campaign_id = $1 AND status = 'connection_sent'`, cid); got != 10 {
		t.Fatalf("prospects invited: %d", got)
	}
	// Replies the engine sends do not use up the limit; nothing else was sent.
	if got := w.count(`SELECT count(DISTINCT prospect_id) FROM activities WHERE campaign_id = $1 AND kind = 'invite_sent'`, cid); got != 10 {
		t.Fatalf("a prospect was invited twice")
	}
}

// TestBlacklistRecheck: a person put on the do-not-contact list after entering the campaign is
// never contacted; by profile and by company.
func TestBlacklistRecheck(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	ids := w.push(cid, "keep-me", "block-person", "block-company")
	if _, err := w.st.AddBlacklist(w.ctx, w.org, []storage.BlacklistEntry{
		{Type: "account", Key: "in:block-person", Value: "https://www.linkedin.com/in/block-person"},
		{Type: "company", Key: "name:" + outreach.NormalizeCompanyName("Company block-company"), Value: "Company block-company"},
	}); err != nil {
		t.Fatal(err)
	}
	w.pass()
	if got := w.invites(cid); got != 1 {
		t.Fatalf("%d invites, want 1", got)
	}
	for i, want := range []string{"connection_sent", "opted_out", "opted_out"} {
		if p := w.prospect(ids[i]); p.Status != want || (want == "opted_out" && p.NextStepAt != nil) {
			t.Fatalf("prospect %d: status %s next %v, want %s", i, p.Status, p.NextStepAt, want)
		}
	}
	// Mid-sequence: the kept person accepts, then their company is blacklisted: no message.
	if err := w.sim.InjectAccept(key("keep-me")); err != nil {
		t.Fatal(err)
	}
	w.pass()
	if _, err := w.st.AddBlacklist(w.ctx, w.org, []storage.BlacklistEntry{
		{Type: "company", Key: "name:" + outreach.NormalizeCompanyName("Company keep-me"), Value: "Company keep-me"}}); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(25 * time.Hour)
	w.pass()
	if got := w.count(`SELECT count(*) FROM activities WHERE campaign_id = $1 AND kind = 'message_sent'`, cid); got != 0 {
		t.Fatalf("%d messages sent to a blacklisted person", got)
	}
	if p := w.prospect(ids[0]); p.Status != "opted_out" {
		t.Fatalf("status %s", p.Status)
	}
}

// TestStopsHonoured: stop, block, lost and booked each end outreach at once, mid-sequence.
func TestStopsHonoured(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	names := []string{"go-on", "stopped", "blocked", "lost", "booked"}
	ids := w.push(cid, names...)
	w.pass()
	for _, n := range names {
		if err := w.sim.InjectAccept(key(n)); err != nil {
			t.Fatal(err)
		}
	}
	w.pass()
	ref := func(h string) storage.PersonRef {
		return storage.PersonRef{Key: key(h), Value: "https://www.linkedin.com/in/" + h}
	}
	if _, err := w.st.StopPeople(w.ctx, w.org, []storage.PersonRef{ref("stopped")}, "", w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.st.BlockPeople(w.ctx, w.org, []storage.PersonRef{ref("blocked")}, nil, "", w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.st.SetProspectOutcome(w.ctx, w.org, ids[3], outreach.OutcomeLost); err != nil {
		t.Fatal(err)
	}
	if _, err := w.st.SetProspectOutcome(w.ctx, w.org, ids[4], outreach.OutcomeBooked); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(10 * 24 * time.Hour)
	w.pass()
	for i, n := range names {
		got := w.count(`SELECT count(*) FROM activities WHERE prospect_id = $1 AND kind = 'message_sent'`, ids[i])
		want := 0
		if n == "go-on" {
			want = 2 // both message steps, the second two days after the first
		}
		if n == "go-on" {
			w.clock.Advance(3 * 24 * time.Hour)
			w.pass()
			got = w.count(`SELECT count(*) FROM activities WHERE prospect_id = $1 AND kind = 'message_sent'`, ids[i])
		}
		if got != want {
			t.Errorf("%s: %d messages, want %d", n, got, want)
		}
	}
	// The stopped prospect keeps its position for an undo.
	if p := w.prospect(ids[1]); p.PausedAt == nil || p.CurrentStep != 1 {
		t.Errorf("stopped prospect: paused %v step %d", p.PausedAt, p.CurrentStep)
	}
}

// invitations is the simulator, noting the invitations it sent and those it was asked to withdraw.
type invitations struct {
	*linkedin.Simulator
	mu              sync.Mutex
	sent, withdrawn []string
}

func (l *invitations) SendInvite(ctx context.Context, accountID string, p outreach.ProfileRef, note string) (string, error) {
	id, err := l.Simulator.SendInvite(ctx, accountID, p, note)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent = append(l.sent, id)
	return id, err
}

func (l *invitations) WithdrawInvite(ctx context.Context, accountID, inviteID string, p outreach.ProfileRef) error {
	l.mu.Lock()
	l.withdrawn = append(l.withdrawn, inviteID)
	l.mu.Unlock()
	return l.Simulator.WithdrawInvite(ctx, accountID, inviteID, p)
}

// TestInviteWithdrawn: an invitation nobody answers is withdrawn after InviteExpiry, by the id
// the provider gave it, with its event and activity, and the sequence ends.
func TestInviteWithdrawn(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{cfg: engineCfg("")})
	li := &invitations{Simulator: w.sim}
	eng, err := engine.New(w.st, li, draftAdapter{drafter.Builtin{}}, w.clock, nil, engine.Config{PublicURL: "https://app.test",
		ActionSpacing: engine.Spacing{Immediate: true}})
	if err != nil {
		t.Fatal(err)
	}
	w.eng = eng
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	ids := w.push(cid, "never-answers")
	w.pass()
	if p := w.prospect(ids[0]); len(li.sent) != 1 || li.sent[0] == "" || p.InviteID == nil || *p.InviteID != li.sent[0] {
		t.Fatalf("invitations sent %q; the prospect keeps %v", li.sent, p.InviteID)
	}
	n := len(w.events())
	w.clock.Advance(20 * 24 * time.Hour)
	w.pass()
	for _, e := range w.since(n) {
		if e.Kind == outreach.EventInviteWithdrawn {
			t.Fatal("withdrawn too early")
		}
	}
	w.clock.Advance(24*time.Hour + time.Minute)
	w.pass()
	got := 0
	for _, e := range w.since(n) {
		if e.Kind == outreach.EventInviteWithdrawn {
			got++
		}
	}
	if got != 1 {
		t.Fatalf("invite_withdrawn events: %d", got)
	}
	p := w.prospect(ids[0])
	if p.Status != "completed" || p.WithdrawnAt == nil || p.NextStepAt != nil {
		t.Fatalf("after withdrawal: %s %v %v", p.Status, p.WithdrawnAt, p.NextStepAt)
	}
	if c := w.count(`SELECT count(*) FROM activities WHERE prospect_id = $1 AND kind = 'invite_withdrawn'`, ids[0]); c != 1 {
		t.Fatalf("invite_withdrawn activities: %d", c)
	}
	if !slices.Equal(li.withdrawn, li.sent) {
		t.Fatalf("withdrew %q; sent %q", li.withdrawn, li.sent)
	}
}
