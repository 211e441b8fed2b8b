package engine_test

import (
	"sync"
	"testing"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// TestStopDuringTheCall: a stop or block that lands while a message is on its way cannot stop
// that message, but it is honoured when the message is recorded: the sequence goes no further
// (a stopped person keeps the next step's time for an undo), and nothing more is sent.
func TestStopDuringTheCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		act    func(w *world, ref storage.PersonRef) error
		status string
		paused bool
	}{
		{"stop", func(w *world, ref storage.PersonRef) error {
			_, err := w.st.StopPeople(w.ctx, w.org, []storage.PersonRef{ref}, "", w.clock.Now())
			return err
		}, outreach.ProspectMessaged, true},
		{"block", func(w *world, ref storage.PersonRef) error {
			_, err := w.st.BlockPeople(w.ctx, w.org, []storage.PersonRef{ref}, nil, "", w.clock.Now())
			return err
		}, outreach.ProspectOptedOut, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, monday, worldOpt{})
			li := w.useFaulty(engineCfg(""))
			_, pid := w.connected("mid-call")
			var once sync.Once
			li.before = func(method string) {
				if method == "SendMessage" {
					once.Do(func() {
						if err := tc.act(w, storage.PersonRef{Key: key("mid-call")}); err != nil {
							t.Error(err)
						}
					})
				}
			}
			w.pass()
			if got := w.simMessages("mid-call"); len(got) != 1 {
				t.Fatalf("the seat sent %q", got)
			}
			if got := w.countKind(outreach.EventMessageSent); got != 1 {
				t.Fatalf("%d message_sent events for the message that went out", got)
			}
			p := w.prospect(pid)
			if p.Status != tc.status || p.NextStepAt != nil || p.CurrentStep != 2 {
				t.Fatalf("prospect %s next %v step %d; want %s, nothing due, step 2", p.Status, p.NextStepAt, p.CurrentStep, tc.status)
			}
			if tc.paused && (p.PausedAt == nil || p.PausedNextStepAt == nil || p.PausedNextStepAt.Sub(*p.PausedAt) != 48*time.Hour) {
				t.Fatalf("paused at %v, next step %v: want the next step's two days kept for the resume", p.PausedAt, p.PausedNextStepAt)
			}
			if n := w.count(`SELECT count(*) FROM followups WHERE prospect_id = $1 AND closed_at IS NULL`, pid); n != 0 {
				t.Fatalf("%d follow-ups open", n)
			}
			w.clock.Advance(5 * 24 * time.Hour)
			w.passes(2)
			if got := w.simMessages("mid-call"); len(got) != 1 {
				t.Fatalf("after the %s the seat sent %q", tc.name, got)
			}
		})
	}
}

// TestLookUpOnce: a person known by handle only is looked up once before their invitation
// (a profile view), their member id is kept, and the invitation tried again later goes by it
// with no second look-up.
func TestLookUpOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	li := w.useFaulty(engineCfg(""))
	pid := w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), "look-me-up")[0]
	li.inject("SendInvite", refuse)
	w.pass()
	p := w.prospect(pid)
	m, err := w.sim.LookUpProfile(w.ctx, w.acc.ProviderAccountID, outreach.ProfileRef{ProfileKey: key("look-me-up")})
	if err != nil {
		t.Fatal(err)
	}
	if p.MemberID == nil || *p.MemberID != m.ProviderID || p.InvitedAt != nil {
		t.Fatalf("after a refused invitation: member id %v (want %s), invited %v", p.MemberID, m.ProviderID, p.InvitedAt)
	}
	w.clock.Advance(time.Hour)
	w.passes(2)
	if calls, invites := li.count(li.calls, "LookUpProfile"), li.count(li.performed, "SendInvite"); calls != 1 || invites != 1 {
		t.Fatalf("%d look-ups and %d invitations, want 1 and 1", calls, invites)
	}
	if used := w.seatCaps().Used; used.ProfileViewsToday != 1 {
		t.Fatalf("%d profile views counted, want 1", used.ProfileViewsToday)
	}
	// A person pushed by member id needs no look-up at all.
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	res, err := w.st.PushLeads(w.ctx, storage.PushRequest{OrgID: w.org, CampaignID: cid, BatchID: "by-id", DefaultSource: outreach.SourceAPI,
		Leads: []storage.PushLead{{Input: outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/ACoAAB3xYz0BcDeFgHiJkLmNoPqRsTuVwXyZ12",
			Name: "By Id"}}}})
	if err != nil || len(res.Accepted) != 1 {
		t.Fatalf("push by member id: %v %+v", err, res.Rejected)
	}
	w.enrich()
	w.passes(2)
	if calls, invites := li.count(li.calls, "LookUpProfile"), li.count(li.performed, "SendInvite"); calls != 1 || invites != 2 {
		t.Fatalf("%d look-ups and %d invitations after a lead pushed by member id, want 1 and 2", calls, invites)
	}
}

// TestOpenActionOfStoppedPerson: an invitation whose answer was lost, or whose instance died,
// for a person stopped meanwhile is still checked with the provider: one that went out is
// recorded (once), one that did not stays unsent, and nothing is sent again.
func TestOpenActionOfStoppedPerson(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		fault    fault
		invited  bool
		attempts int
	}{
		{"answer lost, the invitation went out", loseAnswer, true, 1},
		{"died after the call", crashAfter, true, 1},
		{"died before the call", crashBefore, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, monday, worldOpt{})
			li := w.useFaulty(engineCfg(""))
			pid := w.push(w.campaign("", outreach.Schedule{}, threeSteps, 0), "stopped-meanwhile")[0]
			li.inject("SendInvite", tc.fault)
			w.run(tc.fault)
			if _, err := w.st.StopPeople(w.ctx, w.org, []storage.PersonRef{{Key: key("stopped-meanwhile")}}, "", w.clock.Now()); err != nil {
				t.Fatal(err)
			}
			w.restart()
			w.passes(2)
			p := w.prospect(pid)
			if got := li.count(li.calls, "SendInvite"); got != tc.attempts {
				t.Fatalf("%d invitation calls, want %d", got, tc.attempts)
			}
			if invited := p.InvitedAt != nil; invited != tc.invited || w.countKind(outreach.EventInviteSent) != map[bool]int{true: 1}[tc.invited] {
				t.Fatalf("invited %v (%d invite_sent events), want %v", invited, w.countKind(outreach.EventInviteSent), tc.invited)
			}
			if p.NextStepAt != nil || p.PausedAt == nil {
				t.Fatalf("the stopped person is due again: next %v paused %v", p.NextStepAt, p.PausedAt)
			}
			if tc.invited && (p.PausedNextStepAt == nil || p.PausedNextStepAt.Sub(*p.PausedAt) != 21*24*time.Hour) {
				t.Fatalf("the wait until the withdrawal kept for the resume: %v - %v", p.PausedNextStepAt, p.PausedAt)
			}
			if n := w.count(`SELECT count(*) FROM linkedin_actions WHERE prospect_id = $1 AND state IN ('started', 'unknown')`, pid); n != 0 {
				t.Fatalf("%d actions still open", n)
			}
		})
	}
}
