package engine_test

import (
	"testing"
	"time"

	"outreachd/engine"
	"outreachd/outreach"
)

// TestSeatMessageStopsAutomaticSteps: a provider reports the seat's own messages. The note of
// an invitation outreachd sent (an accepted invitation opens the chat with it) changes nothing;
// a message written by hand from the seat stops that prospect's automatic steps; and seat
// reports wait their grace before they are handled.
func TestSeatMessageStopsAutomaticSteps(t *testing.T) {
	w := newWorld(t, monday, worldOpt{cfg: engine.Config{SeatMessageGrace: -1}})
	camp := w.campaign("", outreach.Schedule{}, []outreach.SequenceStep{
		{Type: outreach.StepConnect, Text: "Hi {first_name}, let's connect"},
		{Type: outreach.StepMessage, DelayDays: 1, Text: "Thanks for connecting, {first_name}"},
		{Type: outreach.StepMessage, DelayDays: 3, Text: "Any thoughts?"},
	}, 20)
	ids := w.push(camp, "ann-a", "ben-b")
	w.pass()
	for _, id := range ids {
		if p := w.prospect(id); p.Status != outreach.ProspectConnectionSent {
			t.Fatalf("prospect %s: %s, want invited", id, p.Status)
		}
	}
	inbox, err := engine.NewProviderInbox(w.st, "unipile")
	if err != nil {
		t.Fatal(err)
	}
	seat := w.acc.ProviderAccountID
	at := w.clock.Now()
	if _, err := inbox.RecordReports(w.ctx, []outreach.LinkedInReport{
		{Kind: outreach.ReportInviteAccepted, AccountID: seat, ProfileKey: key("ann-a"), At: at, DedupeKey: "accepted:ann"},
		{Kind: outreach.ReportInviteAccepted, AccountID: seat, ProfileKey: key("ben-b"), At: at, DedupeKey: "accepted:ben"},
		{Kind: outreach.ReportSeatMessaged, AccountID: seat, ProfileKey: key("ann-a"), ChatID: "chat-ann", MessageID: "m1",
			Text: "Hi Person, let's connect", At: at, DedupeKey: "message:ann:1"},
		{Kind: outreach.ReportSeatMessaged, AccountID: seat, ProfileKey: key("ben-b"), ChatID: "chat-ben", MessageID: "m2",
			Text: "Ben, I saw your talk yesterday: coffee?", At: at, DedupeKey: "message:ben:2"},
	}); err != nil {
		t.Fatal(err)
	}
	if st := w.pass(); st.Reports != 4 {
		t.Fatalf("handled %d reports, want 4", st.Reports)
	}
	ann, ben := w.prospect(ids[0]), w.prospect(ids[1])
	if ann.PausedAt != nil || ann.NextStepAt == nil || ann.Status != outreach.ProspectConnected {
		t.Errorf("ann, whose chat opened with outreachd's note: paused %v next %v status %s", ann.PausedAt, ann.NextStepAt, ann.Status)
	}
	if ben.PausedAt == nil || ben.NextStepAt != nil {
		t.Errorf("ben, written to by hand: paused %v next %v", ben.PausedAt, ben.NextStepAt)
	}
	if n := w.count(`SELECT count(*) FROM chats WHERE provider_chat_id = 'chat-ben' AND replies_stopped_at IS NOT NULL`); n != 1 {
		t.Error("ben's chat does not stop replies")
	}
	if n := w.count(`SELECT count(*) FROM messages m JOIN chats c ON c.id = m.chat_id
		WHERE c.provider_chat_id = 'chat-ben' AND m.from_me AND m.prospect_id = $1`, ids[1]); n != 1 {
		t.Error("the hand-written message is not in ben's conversation")
	}
	if n := w.count(`SELECT count(*) FROM chats WHERE provider_chat_id = 'chat-ann'`); n != 0 {
		t.Error("outreachd's own note was recorded again as a seat message")
	}
	// A day later the first message goes to ann only.
	w.clock.Set(monday.Add(25 * time.Hour))
	w.pass()
	if p := w.prospect(ids[0]); p.Status != outreach.ProspectMessaged {
		t.Errorf("ann after a day: %s", p.Status)
	}
	if p := w.prospect(ids[1]); p.Status == outreach.ProspectMessaged {
		t.Error("ben got an automatic message after someone wrote to him by hand")
	}

	// With the default grace, a seat report waits before it is handled.
	w.eng = w.newEngine(draftAdapter{}, engine.Config{})
	if _, err := inbox.RecordReports(w.ctx, []outreach.LinkedInReport{{Kind: outreach.ReportSeatMessaged, AccountID: seat,
		ProfileKey: key("ann-a"), ChatID: "chat-ann", MessageID: "m3", Text: "by hand", At: at, DedupeKey: "message:ann:3"}}); err != nil {
		t.Fatal(err)
	}
	w.pass()
	if n := w.count(`SELECT count(*) FROM provider_reports WHERE dedupe_key = 'message:ann:3' AND state = 'new'`); n != 1 {
		t.Error("a fresh seat report was handled before its grace")
	}
}
