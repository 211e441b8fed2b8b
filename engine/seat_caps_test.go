package engine_test

import (
	"errors"
	"testing"
	"time"

	"outreachd/adapters/drafter"
	"outreachd/engine"
	"outreachd/outreach"
)

// A seat keeps a random pace between two actions and stays under its caps, whatever campaigns
// and instances act from it.

func (w *world) seatCaps() engine.SeatRow {
	w.t.Helper()
	caps, err := engine.SeatRows(w.ctx, w.st.Pool(), w.org, w.clock.Now())
	if err != nil || len(caps) != 1 {
		w.t.Fatalf("seat usage: %v (%d seats)", err, len(caps))
	}
	return caps[0]
}

func (w *world) setLimits(c engine.SeatLimitsChange) {
	w.t.Helper()
	if _, err := engine.SetSeatLimits(w.ctx, w.st.Pool(), w.org, w.acc.ID, c, w.clock.Now()); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) sends(kind string) int {
	return w.count(`SELECT count(*) FROM activities WHERE org_id = $1 AND kind = $2`, w.org, kind)
}

// pacedPair gives the world an engine that keeps a 2 to 5 minutes gap between two actions of a
// seat, and returns a second instance with the same pace.
func (w *world) pacedPair() *engine.Engine {
	w.t.Helper()
	cfg := engine.Config{ActionSpacing: engine.Spacing{Min: 2 * time.Minute, Max: 5 * time.Minute}}
	w.eng = w.newEngine(draftAdapter{drafter.Builtin{}}, cfg)
	cfg.InstanceID = "second"
	return w.newEngine(draftAdapter{drafter.Builtin{}}, cfg)
}

func TestSpacing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	second := w.pacedPair()
	w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), handles("pace", 3)...)
	w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), handles("pace-b", 3)...)
	w.together(w.eng, second)
	w.together(w.eng, second)
	if got := w.sends("invite_sent"); got != 1 {
		t.Fatalf("%d invitations at one moment, want 1", got)
	}
	if w.seatCaps().NextActionAt == nil {
		t.Fatal("no next action time after an action")
	}
	var next time.Time
	if err := w.st.Pool().QueryRow(w.ctx, `SELECT next_action_at FROM linkedin_accounts WHERE id = $1`, w.acc.ID).Scan(&next); err != nil {
		t.Fatal(err)
	}
	if gap := next.Sub(w.clock.Now()); gap < 2*time.Minute || gap > 5*time.Minute {
		t.Fatalf("gap %s, want 2m-5m", gap)
	}
	w.clock.Set(next.Add(-time.Second))
	w.together(w.eng, second)
	if got := w.sends("invite_sent"); got != 1 {
		t.Fatalf("%d invitations before the gap ended", got)
	}
	w.clock.Set(next)
	w.together(w.eng, second)
	if got := w.sends("invite_sent"); got != 2 {
		t.Fatalf("%d invitations once the gap ended, want 2", got)
	}
}

func TestSpacingParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want engine.Spacing
		ok   bool
	}{
		{"2m-5m", engine.Spacing{Min: 2 * time.Minute, Max: 5 * time.Minute}, true},
		{"30s-30s", engine.Spacing{Min: 30 * time.Second, Max: 30 * time.Second}, true},
		{"0", engine.Spacing{Immediate: true}, true},
		{"0s-0s", engine.Spacing{Immediate: true}, true},
		{"5m-2m", engine.Spacing{}, false},
		{"2m", engine.Spacing{}, false},
		{"two-five", engine.Spacing{}, false},
		{"", engine.Spacing{}, false},
	} {
		got, err := engine.ParseSpacing(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseSpacing(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

func TestSeatCaps(t *testing.T) {
	t.Parallel()
	tuesday := monday.Add(21 * time.Hour) // 06:00 UTC, the default schedule's opening
	for _, tc := range []struct {
		name   string
		limits engine.SeatLimitsChange
		run    func(w *world)
	}{
		{"invitations per day", engine.SeatLimitsChange{InvitesPerDay: new(2)}, func(w *world) {
			w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), handles("day", 5)...)
			w.passes(2)
			w.want("invite_sent", 2)
			w.clock.Set(tuesday)
			w.passes(2)
			w.want("invite_sent", 4)
		}},
		{"invitations per week", engine.SeatLimitsChange{InvitesPerWeek: new(3)}, func(w *world) {
			w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), handles("week", 5)...)
			w.passes(2)
			w.want("invite_sent", 3)
			w.clock.Set(tuesday)
			w.pass()
			w.want("invite_sent", 3)
			w.clock.Set(monday.AddDate(0, 0, 7).Add(time.Minute))
			w.pass()
			w.want("invite_sent", 5)
		}},
		{"pending invitations", engine.SeatLimitsChange{MaxPending: new(2)}, func(w *world) {
			w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), "pend-a", "pend-b", "pend-c")
			w.passes(2)
			w.want("invite_sent", 2)
			if err := w.sim.InjectAccept(key("pend-a")); err != nil {
				w.t.Fatal(err)
			}
			w.pass()
			w.clock.Advance(time.Hour)
			w.pass()
			w.want("invite_sent", 3)
		}},
		{"messages per day", engine.SeatLimitsChange{MessagesPerDay: new(1)}, func(w *world) {
			hs := []string{"msg-a", "msg-b", "msg-c"}
			w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), hs...)
			w.pass()
			for _, h := range hs {
				if err := w.sim.InjectAccept(key(h)); err != nil {
					w.t.Fatal(err)
				}
			}
			w.pass()
			w.clock.Set(tuesday.Add(4 * time.Hour)) // the first messages are due a day after acceptance
			w.passes(2)
			w.want("message_sent", 1)
			w.clock.Set(tuesday.AddDate(0, 0, 1))
			w.pass()
			w.want("message_sent", 2)
		}},
		{"profile views per day (a look-up before an invitation)", engine.SeatLimitsChange{ProfileViewsPerDay: new(2)}, func(w *world) {
			w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), handles("view", 4)...)
			w.passes(2)
			w.want("invite_sent", 2)
			if used := w.seatCaps().Used; used.ProfileViewsToday != 2 || used.InvitesToday != 2 || used.PendingInvites != 2 {
				w.t.Fatalf("used %+v", used)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, monday, worldOpt{})
			w.setLimits(tc.limits)
			tc.run(w)
		})
	}
}

func (w *world) want(kind string, n int) {
	w.t.Helper()
	if got := w.sends(kind); got != n {
		w.t.Fatalf("%d %s, want %d", got, kind, n)
	}
}

// TestSeatCapAcrossEngines: two instances working two campaigns of one seat at once stay
// under the seat's daily cap together.
func TestSeatCapAcrossEngines(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	second := w.newEngine(draftAdapter{drafter.Builtin{}}, engine.Config{InstanceID: "second", CampaignBatch: 1})
	w.eng = w.newEngine(draftAdapter{drafter.Builtin{}}, engine.Config{InstanceID: "first", CampaignBatch: 1})
	w.setLimits(engine.SeatLimitsChange{InvitesPerDay: new(3)})
	w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), handles("cap-a", 4)...)
	w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), handles("cap-b", 4)...)
	for range 3 {
		w.together(w.eng, second)
	}
	w.want("invite_sent", 3)
	if used := w.seatCaps().Used; used.InvitesToday != 3 || used.InvitesThisWeek != 3 {
		t.Fatalf("used %+v", used)
	}
}

// TestSeatToldRateLimited: a seat whose invitation LinkedIn refuses for a rate limit cools
// down until the provider's retry time, to the second, with one account_rate_limited alert, and
// invites again after it.
func TestSeatToldRateLimited(t *testing.T) {
	t.Parallel()
	for _, wait := range []time.Duration{6 * time.Hour, 30 * time.Second} {
		t.Run(wait.String(), func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, monday, worldOpt{})
			li := w.useFaulty(engineCfg(""))
			w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), handles("cool", 3)...)
			until := monday.Add(wait)
			li.refuseNext("SendInvite", &outreach.LinkedInError{Kind: outreach.ErrRateLimited, RetryAt: until, Err: errors.New("429 from the test")})
			w.passes(2)
			w.want("invite_sent", 0)
			if got := w.countKind(outreach.EventAccountRateLimited); got != 1 {
				t.Fatalf("%d account_rate_limited events, want 1", got)
			}
			var status string
			var cooldown time.Time
			if err := w.st.Pool().QueryRow(w.ctx, `SELECT status, cooldown_until FROM linkedin_accounts WHERE id = $1`, w.acc.ID).
				Scan(&status, &cooldown); err != nil || status != "rate_limited" || !cooldown.Equal(until) {
				t.Fatalf("seat %s until %s (%v), want rate_limited until %s", status, cooldown, err, until)
			}
			w.clock.Set(until.Add(time.Minute))
			w.passes(2)
			w.want("invite_sent", 3)
		})
	}
}

// TestSeatBackWakesCampaigns: a campaign that found its seat down is put off by a quarter of an
// hour, but the seat's reconnection has the sequencer look at it again at once.
func TestSeatBackWakesCampaigns(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	li := w.useFaulty(engineCfg(""))
	w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), handles("back", 2)...)
	li.refuseNext("SendInvite", &outreach.LinkedInError{Kind: outreach.ErrAccountDisconnected, Err: errors.New("401 from the test")})
	w.passes(2)
	w.want("invite_sent", 0)
	if got := w.countKind(outreach.EventAccountDisconnected); got != 1 {
		t.Fatalf("%d account_disconnected events, want 1", got)
	}
	w.clock.Set(monday.Add(time.Minute))
	if _, err := w.cliEngine().Simulate(w.ctx, engine.OperatorReport{Kind: outreach.ReportAccountReconnected, AccountID: w.acc.ID}, 0); err != nil {
		t.Fatal(err)
	}
	w.passes(2)
	w.want("invite_sent", 2)
}

func TestSeatLimitsValidated(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	for _, c := range []engine.SeatLimitsChange{{InvitesPerDay: new(-1)}, {MaxPending: new(1_000_000)}} {
		if _, err := engine.SetSeatLimits(w.ctx, w.st.Pool(), w.org, w.acc.ID, c, w.clock.Now()); !errors.Is(err, outreach.ErrInvalid) {
			t.Errorf("%+v: %v, want invalid", c, err)
		}
	}
	if _, err := engine.SetSeatLimits(w.ctx, w.st.Pool(), "org_other", w.acc.ID, engine.SeatLimitsChange{}, w.clock.Now()); !errors.Is(err, outreach.ErrNotFound) {
		t.Errorf("another organization's seat: %v, want not found", err)
	}
	caps := w.seatCaps()
	if caps.Limits != engine.DefaultSeatLimits() || caps.DayZone != "UTC" {
		t.Fatalf("caps %+v", caps)
	}
	tokyo := outreach.Schedule{Timezone: "Asia/Tokyo", WorkingDays: []string{"monday"}, StartTime: "09:00", EndTime: "17:00"}
	w.campaign("", tokyo, threeSteps, 0)
	if z := w.seatCaps().DayZone; z != "Asia/Tokyo" {
		t.Fatalf("day zone %s, want the campaign's", z)
	}
}
