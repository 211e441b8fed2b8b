package engine_test

import (
	"errors"
	"testing"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// TestSendReply: a person's own reply goes out at once through the approved-draft path, is
// recorded as theirs and answers the conversation's open needs-human item; stop and block are
// checked again before sending; an unknown or another organization's conversation is not found.
func TestSendReply(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	item, chat, _ := w.queued("ada", "Could you send me an email with the details?")
	n := len(w.events())
	text := "Sure — I'll email you the overview today. <b>Thanks</b>!"
	out, err := w.eng.SendReply(w.ctx, outreach.ReplyRequest{OrgID: w.org, ChatID: chat, Text: "  " + text + "\n", Actor: "user:usr_me"})
	if err != nil || out.Status != outreach.DraftSent || out.Text != text || out.ChatID != chat {
		t.Fatalf("send: %+v %v", out, err)
	}
	if got, fromMe := w.lastSimMessage(chat); !fromMe || got != text {
		t.Fatalf("LinkedIn's last message %q from_me=%v, want the person's text", got, fromMe)
	}
	wantKinds(t, w.since(n), "message_sent")
	if w.count(`SELECT count(*) FROM reply_drafts WHERE id = $1 AND author = 'user:usr_me' AND status = 'sent'`, out.DraftID) != 1 {
		t.Fatal("the reply is not recorded as the person's")
	}
	if w.count(`SELECT count(*) FROM needs_human WHERE id = $1 AND resolution = 'answered' AND resolved_by = 'user:usr_me'`, item) != 1 {
		t.Fatal("the open needs-human item was not closed as answered")
	}
	if w.count(`SELECT count(*) FROM reply_drafts WHERE chat_id = $1 AND status = 'pending'`, chat) != 0 {
		t.Fatal("the item's held draft is still pending")
	}
	if _, err := w.eng.ApproveDraft(w.ctx, outreach.DraftDecision{OrgID: w.org, ItemID: item}); !errors.Is(err, outreach.ErrConflict) {
		t.Fatalf("approving the answered item: %v, want a conflict", err)
	}

	bad := []struct {
		name string
		r    outreach.ReplyRequest
		want error
	}{
		{"empty", outreach.ReplyRequest{OrgID: w.org, ChatID: chat, Text: " \n "}, outreach.ErrInvalid},
		{"too long", outreach.ReplyRequest{OrgID: w.org, ChatID: chat, Text: string(make([]rune, outreach.MaxReplyText+1))}, outreach.ErrInvalid},
		{"unknown conversation", outreach.ReplyRequest{OrgID: w.org, ChatID: "chat_nope", Text: "hi"}, outreach.ErrNotFound},
		{"another organization's", outreach.ReplyRequest{OrgID: "org_other", ChatID: chat, Text: "hi"}, outreach.ErrNotFound},
	}
	for _, c := range bad {
		if _, err := w.eng.SendReply(w.ctx, c.r); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}

	// Stopped: nothing goes out.
	if _, err := w.st.StopPeople(w.ctx, w.org, []storage.PersonRef{{Key: key("ada")}}, "user:usr_me", w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	n = len(w.events())
	out, err = w.eng.SendReply(w.ctx, outreach.ReplyRequest{OrgID: w.org, ChatID: chat, Text: "One more thing", Actor: "user:usr_me"})
	if err != nil || out.Status != outreach.DraftDismissed {
		t.Fatalf("send to a stopped person: %+v %v", out, err)
	}
	if got, _ := w.lastSimMessage(chat); got != text {
		t.Fatalf("a message reached a stopped person: %q", got)
	}
	wantKinds(t, w.since(n))
}

// TestAcceptWhileStopped: an invitation accepted while the person is stopped schedules nothing,
// and the resume gives the first message its full wait, counted from the resume.
func TestAcceptWhileStopped(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	pid := w.push(cid, "ivy")[0]
	w.pass() // invited
	if _, err := w.st.StopPeople(w.ctx, w.org, []storage.PersonRef{{Key: key("ivy")}}, "", w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Hour)
	if err := w.sim.InjectAccept(key("ivy")); err != nil {
		t.Fatal(err)
	}
	w.pass()
	if p := w.prospect(pid); p.ConnectedAt == nil || p.NextStepAt != nil || p.PausedAt == nil {
		t.Fatalf("accepted while stopped: connected %v next %v paused %v", p.ConnectedAt, p.NextStepAt, p.PausedAt)
	}
	w.clock.Advance(4 * 24 * time.Hour)
	resumeAt := w.clock.Now()
	if _, err := w.st.ResumePeople(w.ctx, w.org, []storage.PersonRef{{Key: key("ivy")}}, resumeAt); err != nil {
		t.Fatal(err)
	}
	want := resumeAt.Add(24 * time.Hour) // the first message step waits a day after acceptance
	if p := w.prospect(pid); p.NextStepAt == nil || !p.NextStepAt.Equal(want) || p.CurrentStep != 1 {
		t.Fatalf("after the resume: next %v step %d, want %s and step 1", p.NextStepAt, p.CurrentStep, want)
	}
	w.clock.Set(want.Add(time.Minute))
	w.pass()
	if p := w.prospect(pid); p.Status != "messaged" || p.CurrentStep != 2 {
		t.Fatalf("the sequence did not continue: status %s step %d", p.Status, p.CurrentStep)
	}
}
