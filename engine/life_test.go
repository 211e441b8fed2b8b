package engine_test

import (
	"testing"
	"time"

	"outreachd/outreach"
)

var threeSteps = []outreach.SequenceStep{
	{Type: outreach.StepConnect, Text: "Hi {first_name}, glad to connect."},
	{Type: outreach.StepMessage, DelayDays: 1, Text: "Thanks for connecting, {first_name}! Worth a chat?"},
	{Type: outreach.StepMessage, DelayDays: 2, Text: "Following up on my note, {first_name}."},
}

// TestCampaignLife drives one lead through a campaign's whole life on the virtual clock and
// checks every event in order: push -> enrich -> invite -> accept -> message -> reply ->
// needs-human -> booked.
func TestCampaignLife(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	ids := w.push(cid, "ada-lovelace")
	pid := ids[0]
	wantKinds(t, w.events(), "campaign_started", "prospect_added", "lead_accepted")
	n := len(w.events())

	// The pass admits the accepted lead and sends the invitation with the connect step's note.
	st := w.pass()
	if st.Admitted != 1 || st.Sends != 1 {
		t.Fatalf("first pass: %+v", st)
	}
	p := w.prospect(pid)
	if p.Status != "connection_sent" || p.InvitedAt == nil || p.CurrentStep != 1 || !p.Contacted {
		t.Fatalf("after invite: status %s step %d invited %v", p.Status, p.CurrentStep, p.InvitedAt)
	}
	evs := w.since(n)
	wantKinds(t, evs, "invite_sent")
	if evs[0].Data.Prospect.LeadID != pid || evs[0].Data.Campaign.ID != cid {
		t.Fatalf("invite_sent blocks: %+v", evs[0].Data)
	}
	n += len(evs)

	// LinkedIn reports the acceptance; the first message is due a day later.
	w.clock.Advance(2 * time.Hour)
	if err := w.sim.InjectAccept(key("ada-lovelace")); err != nil {
		t.Fatal(err)
	}
	w.pass()
	wantKinds(t, w.since(n), "connection_accepted")
	n++
	p = w.prospect(pid)
	if p.Status != "connected" || p.NextStepAt == nil || !p.NextStepAt.Equal(monday.Add(2*time.Hour+24*time.Hour)) {
		t.Fatalf("after accept: status %s next %v", p.Status, p.NextStepAt)
	}
	w.clock.Advance(23 * time.Hour) // not yet
	w.pass()
	wantKinds(t, w.since(n))
	w.clock.Advance(time.Hour)
	w.pass()
	evs = w.since(n)
	wantKinds(t, evs, "message_sent")
	if got := evs[0].Data.Message.Text; got != "Thanks for connecting, Person! Worth a chat?" {
		t.Fatalf("message text %q", got)
	}
	n++
	p = w.prospect(pid)
	if p.Status != "messaged" || p.CurrentStep != 2 || p.ChatID == nil {
		t.Fatalf("after message: status %s step %d chat %v", p.Status, p.CurrentStep, p.ChatID)
	}

	// The person asks for a call: reply events, an automatic booking that counts at once, and
	// the needs-human item asking a person to confirm it.
	w.clock.Advance(3 * time.Hour)
	chat, err := w.sim.InjectReply(key("ada-lovelace"), "Happy to chat. Does Tuesday work? Send me a calendar invite.")
	if err != nil {
		t.Fatal(err)
	}
	w.pass()
	evs = w.since(n)
	n += len(evs)
	// The campaign's only prospect is done, so the campaign completes in the same pass; the
	// pass runs after 13:05 UTC on Tuesday, so Monday's digest goes out too.
	wantKinds(t, evs, "reply_received", "reply_positive", "auto_booking_created", "call_booked", "needs_human",
		"campaign_completed", "daily_digest")
	if d := evs[6].Data.Report; d.Period != "2026-11-23" || d.Stats.InvitesSent != 1 || d.Stats.ConnectionsAccepted != 1 ||
		d.Stats.MessagesSent != 0 || d.Stats.Replies != 0 {
		t.Fatalf("Monday's digest: %+v %+v", d, d.Stats)
	}
	if s := evs[5].Data.Campaign.Stats; s == nil || s.Bookings != 1 || s.Replies != 1 {
		t.Fatalf("campaign_completed stats: %+v", s)
	}
	if m := evs[0].Data.Message; m.ChatID != chat || m.Sentiment != outreach.SentimentPositive || len(m.RecentConversation) != 2 {
		t.Fatalf("reply message block: %+v", m)
	}
	nh := evs[4].Data.NeedsHuman
	if nh.Reason != outreach.ReasonAutoBooked || nh.ReasonLabel == "" || nh.AIDraft == "" ||
		nh.InboxURL != "https://app.test/api/v1/conversations/"+chat || evs[4].Data.Campaign == nil {
		t.Fatalf("needs_human block: %+v", nh)
	}
	if b := evs[2].Data.Booking; b.StartTime == "" || b.Provider == "" {
		t.Fatalf("booking block: %+v", b)
	}
	if evs[3].Data.Manual {
		t.Fatal("an automatic booking is not manual")
	}
	p = w.prospect(pid)
	if p.Status != "replied" || p.BookedAt == nil || p.NextStepAt != nil || p.SequenceEndedAt == nil {
		t.Fatalf("after reply: status %s booked %v next %v", p.Status, p.BookedAt, p.NextStepAt)
	}

	// Nothing more is sent: the follow-up step is never reached, the open follow-up is closed.
	w.clock.Advance(5 * 24 * time.Hour)
	w.pass()
	for _, e := range w.since(n) {
		if e.Kind == outreach.EventMessageSent || e.Kind == outreach.EventInviteSent {
			t.Fatalf("sent after the reply: %s", e.Kind)
		}
	}
	if c := w.count(`SELECT count(*) FROM followups WHERE prospect_id = $1 AND closed_at IS NULL`, pid); c != 0 {
		t.Fatalf("%d follow-ups still open", c)
	}
	// The activity log analytics counts: one of each.
	for kind, want := range map[string]int{"invite_sent": 1, "connection_accepted": 1, "message_sent": 1, "reply": 1, "booking": 1} {
		if got := w.count(`SELECT count(*) FROM activities WHERE prospect_id = $1 AND kind = $2`, pid, kind); got != want {
			t.Errorf("activities %s = %d, want %d", kind, got, want)
		}
	}
	if got := w.count(`SELECT count(*) FROM needs_human WHERE prospect_id = $1 AND reason = 'auto_booked'`, pid); got != 1 {
		t.Errorf("needs_human rows = %d", got)
	}
}
