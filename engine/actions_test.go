package engine_test

import (
	"testing"
	"time"

	"outreachd/engine"
	"outreachd/outreach"
	"outreachd/storage"
)

// A step's action whose answer was lost, or whose process died between the call and recording
// it, is checked with the provider before anything is sent again: each person gets exactly one
// invitation, message, withdrawal or reply, recorded once.

// passes runs the world's engine n times at the same moment.
func (w *world) passes(n int) {
	w.t.Helper()
	for range n {
		w.pass()
	}
}

// run makes one pass that may die mid-call (a crash fault), and lets the dead instance's leases
// go when it did.
func (w *world) run(ft fault) {
	w.t.Helper()
	if ft == crashAfter || ft == crashBefore {
		w.crashingPass(w.eng)
		w.restart()
		return
	}
	w.pass()
}

func (w *world) countKind(kind outreach.EventKind) int {
	return len(only(w.events(), kind))
}

func TestInviteNeverTwice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault fault
		calls int // SendInvite calls in all
	}{
		{"answer lost after the invitation went out", loseAnswer, 1},
		{"process died after the invitation went out", crashAfter, 1},
		{"process died before the call", crashBefore, 2},
		{"provider refused, nothing sent", refuse, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, monday, worldOpt{})
			li := w.useFaulty(engineCfg(""))
			cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
			pid := w.push(cid, "ada")[0]
			li.inject("SendInvite", tc.fault)
			w.run(tc.fault)
			if tc.fault == refuse {
				w.clock.Advance(time.Hour) // a refusal is tried again an hour later
			}
			w.passes(3)
			if got := li.count(li.performed, "SendInvite"); got != 1 {
				t.Fatalf("%d invitations carried out, want 1", got)
			}
			if got := li.count(li.calls, "SendInvite"); got != tc.calls {
				t.Fatalf("%d SendInvite calls, want %d", got, tc.calls)
			}
			if got := w.countKind(outreach.EventInviteSent); got != 1 {
				t.Fatalf("%d invite_sent events, want 1", got)
			}
			rel, err := w.sim.Relation(w.ctx, w.acc.ProviderAccountID, outreach.ProfileRef{ProfileKey: key("ada")})
			if err != nil {
				t.Fatal(err)
			}
			p := w.prospect(pid)
			if p.Status != outreach.ProspectConnectionSent || p.InviteID == nil || *p.InviteID != rel.InvitationID {
				t.Fatalf("prospect %s invite %v; pending invitation %q", p.Status, p.InviteID, rel.InvitationID)
			}
			if n := w.count(`SELECT count(*) FROM activities WHERE prospect_id = $1 AND kind = 'invite_sent'`, pid); n != 1 {
				t.Fatalf("%d invite_sent activities", n)
			}
			if n := w.count(`SELECT count(*) FROM linkedin_actions WHERE prospect_id = $1 AND kind = 'invite' AND state = 'done'`, pid); n != 1 {
				t.Fatalf("%d invitations recorded done", n)
			}
		})
	}
}

// connected brings one person to the moment their first message is due.
func (w *world) connected(handle string) (cid, pid string) {
	w.t.Helper()
	cid = w.campaign("", outreach.Schedule{}, threeSteps, 0)
	pid = w.push(cid, handle)[0]
	w.pass()
	if err := w.sim.InjectAccept(key(handle)); err != nil {
		w.t.Fatal(err)
	}
	w.pass()
	w.clock.Advance(25 * time.Hour)
	return cid, pid
}

// simMessages returns what the seat sent a person on the simulated LinkedIn.
func (w *world) simMessages(handle string) []string {
	w.t.Helper()
	rel, err := w.sim.Relation(w.ctx, w.acc.ProviderAccountID, outreach.ProfileRef{ProfileKey: key(handle)})
	if err != nil || rel.ChatID == "" {
		w.t.Fatalf("no chat with %s: %v", handle, err)
	}
	ms, err := w.sim.Messages(w.ctx, rel.ChatID)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		if m.FromMe {
			out = append(out, m.Text)
		}
	}
	return out
}

func TestMessageNeverTwice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault fault
	}{
		{"answer lost after the message went out", loseAnswer},
		{"process died after the message went out", crashAfter},
		{"process died before the call", crashBefore},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, monday, worldOpt{})
			li := w.useFaulty(engineCfg(""))
			_, pid := w.connected("bea")
			li.inject("SendMessage", tc.fault)
			w.run(tc.fault)
			w.passes(3)
			if got := w.simMessages("bea"); len(got) != 1 || got[0] != "Thanks for connecting, Person! Worth a chat?" {
				t.Fatalf("the seat sent %q, want the first message once", got)
			}
			if got := w.countKind(outreach.EventMessageSent); got != 1 {
				t.Fatalf("%d message_sent events, want 1", got)
			}
			p := w.prospect(pid)
			if p.Status != outreach.ProspectMessaged || p.CurrentStep != 2 || p.ChatID == nil {
				t.Fatalf("prospect %s step %d chat %v", p.Status, p.CurrentStep, p.ChatID)
			}
			if n := w.count(`SELECT count(*) FROM messages WHERE prospect_id = $1 AND from_me`, pid); n != 1 {
				t.Fatalf("%d messages recorded", n)
			}
		})
	}
}

func TestWithdrawAndReplyNeverTwice(t *testing.T) {
	t.Parallel()
	t.Run("withdrawal whose answer was lost", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, monday, worldOpt{})
		li := w.useFaulty(engineCfg(""))
		cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
		pid := w.push(cid, "cyril")[0]
		w.pass()
		w.clock.Advance(21*24*time.Hour + time.Minute)
		li.inject("WithdrawInvite", loseAnswer)
		w.passes(3)
		if got := li.count(li.performed, "WithdrawInvite"); got != 1 {
			t.Fatalf("%d withdrawals carried out", got)
		}
		if got := w.countKind(outreach.EventInviteWithdrawn); got != 1 {
			t.Fatalf("%d invite_withdrawn events", got)
		}
		if p := w.prospect(pid); p.Status != outreach.ProspectCompleted || p.WithdrawnAt == nil {
			t.Fatalf("prospect %s withdrawn %v", p.Status, p.WithdrawnAt)
		}
	})
	t.Run("reply whose answer was lost", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, monday, worldOpt{})
		li := w.useFaulty(engineCfg(""))
		w.connected("dee")
		w.pass()
		n := w.countKind(outreach.EventMessageSent)
		li.inject("SendMessage", loseAnswer)
		w.reply("dee", "Sounds interesting, tell me more.")
		w.passes(2)
		sent := w.simMessages("dee")
		if len(sent) != 2 {
			t.Fatalf("the seat sent %q, want the first message and one reply", sent)
		}
		if got := w.countKind(outreach.EventMessageSent) - n; got != 1 {
			t.Fatalf("%d message_sent events for the reply", got)
		}
		if c := w.count(`SELECT count(*) FROM reply_drafts WHERE org_id = $1 AND status = 'sent'`, w.org); c != 1 {
			t.Fatalf("%d drafts sent", c)
		}
	})
}

// TestOwnMessageWhoseAnswerWasLost: a provider reports the seat's own messages back; a reply
// whose answer was lost, reported before the engine checked it, is recognised as the engine's
// own (by the action recorded before the call), not as one written by hand, so the person's
// automatic steps go on and the reply is recorded once.
func TestOwnMessageWhoseAnswerWasLost(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	li := w.useFaulty(engine.Config{SeatMessageGrace: -1})
	_, pid := w.connected("own-words")
	w.pass()
	li.inject("SendMessage", loseAnswer)
	w.reply("own-words", "Sounds interesting, tell me more.")
	sent := w.simMessages("own-words")
	if len(sent) != 2 {
		t.Fatalf("the seat sent %q", sent)
	}
	inbox, err := engine.NewProviderInbox(w.st, "unipile")
	if err != nil {
		t.Fatal(err)
	}
	var chat string
	if err := w.st.Pool().QueryRow(w.ctx, `SELECT provider_chat_id FROM chats WHERE prospect_id = $1`, pid).Scan(&chat); err != nil {
		t.Fatal(err)
	}
	if _, err := inbox.RecordReports(w.ctx, []outreach.LinkedInReport{{Kind: outreach.ReportSeatMessaged,
		AccountID: w.acc.ProviderAccountID, ProfileKey: key("own-words"), ChatID: chat, MessageID: "seat-1",
		Text: sent[1], At: w.clock.Now(), DedupeKey: "message:own-words:1"}}); err != nil {
		t.Fatal(err)
	}
	w.passes(2)
	if n := w.count(`SELECT count(*) FROM chats WHERE prospect_id = $1 AND replies_stopped_at IS NOT NULL`, pid); n != 0 {
		t.Fatal("the engine's own reply was taken for one written by hand: the person's replies were stopped")
	}
	if n := w.count(`SELECT count(*) FROM reply_drafts WHERE prospect_id = $1 AND status = 'sent'`, pid); n != 1 {
		t.Fatalf("%d replies recorded sent, want 1", n)
	}
	if n := w.count(`SELECT count(*) FROM messages WHERE prospect_id = $1 AND from_me`, pid); n != 2 {
		t.Fatalf("%d messages of the seat recorded, want 2", n)
	}
}

// TestReplyLostThenStopped: a reply whose answer was lost is checked with the provider even when
// the person was stopped meanwhile: it went out, so it is recorded as sent, not dismissed.
func TestReplyLostThenStopped(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	li := w.useFaulty(engineCfg(""))
	_, pid := w.connected("stop-after")
	w.pass()
	li.inject("SendMessage", loseAnswer)
	w.reply("stop-after", "Sounds interesting, tell me more.")
	if _, err := w.st.StopPeople(w.ctx, w.org, []storage.PersonRef{{Key: key("stop-after")}}, "", w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	w.passes(2)
	if got := w.simMessages("stop-after"); len(got) != 2 {
		t.Fatalf("the seat sent %q", got)
	}
	if n := w.count(`SELECT count(*) FROM reply_drafts WHERE prospect_id = $1 AND status = 'sent'`, pid); n != 1 {
		t.Fatalf("%d replies recorded sent, want the one that went out", n)
	}
}
