package engine_test

import (
	"testing"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// TestStopSticksBeforeAConversation: POST /inbox/stop on a known prospect who has no
// conversation yet stops everything automatic for that person, now and later: the stop reports
// replies_stopped, and when the person later accepts and replies, no automatic answer is drafted
// or sent and the sequence sends nothing more.
func TestStopSticksBeforeAConversation(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	pid := w.push(cid, "erin")[0]
	w.pass() // the invitation goes out; no chat exists yet
	if n := w.count(`SELECT count(*) FROM chats WHERE prospect_id = $1`, pid); n != 0 {
		t.Fatalf("setup: %d chats before any message", n)
	}
	res, err := w.st.StopPeople(w.ctx, w.org, []storage.PersonRef{{Key: key("erin")}}, "", w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !res[0].Found || !res[0].RepliesStopped {
		t.Fatalf("stop result = %+v, want found and replies_stopped", res)
	}
	if err := w.sim.InjectAccept(key("erin")); err != nil {
		t.Fatal(err)
	}
	w.pass()
	w.clock.Advance(3 * 24 * time.Hour)
	w.pass()
	evs := w.reply("erin", "Sounds interesting, tell me more.")
	if len(only(evs, outreach.EventReplyReceived)) != 1 {
		t.Fatalf("the reply was not recorded: %v", kinds(evs))
	}
	w.clock.Advance(10 * 24 * time.Hour)
	w.pass()
	w.pass()
	if n := w.count(`SELECT count(*) FROM reply_drafts WHERE prospect_id = $1`, pid); n != 0 {
		t.Fatalf("%d automatic reply drafts for a stopped person", n)
	}
	if n := w.count(`SELECT count(*) FROM activities WHERE prospect_id = $1 AND kind = 'message_sent'`, pid); n != 0 {
		t.Fatalf("%d automatic messages sent to a stopped person", n)
	}
	if n := w.count(`SELECT count(*) FROM chats WHERE prospect_id = $1 AND replies_stopped_at IS NULL`, pid); n != 0 {
		t.Fatalf("the person's new chat is not stopped")
	}
}
