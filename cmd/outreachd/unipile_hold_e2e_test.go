package main_test

import (
	"net/http"
	"testing"
	"time"

	"outreachd/adapters/unipile/unipilefake"
	"outreachd/internal/testenv"
)

// acceptedAndHeld pushes people to a new campaign, waits for their invitations, and has them
// accept while the campaign is paused, so that each one's first message is due and waits for
// the campaign to be launched again. It returns the campaign and the lead ids.
func (u *unipileRun) acceptedAndHeld(org testenv.Org, ps []unipilefake.Person) (string, []string) {
	u.t.Helper()
	cid := launchCampaign(u.t, org, u.srv.DBURL, "Held")
	leads := pushPeople(u.t, org, cid, ps)
	waitStatus(u.t, org.Read, cid, leads, "connection_sent")
	setCampaignStatus(u.t, u.srv.DBURL, cid, "paused")
	for _, p := range ps {
		if err := u.fake.AcceptInvitation(u.seat.ID, p.ProviderID, unipilefake.AcceptOptions{}); err != nil {
			u.t.Fatal(err)
		}
	}
	waitStatus(u.t, org.Read, cid, leads, "connected")
	return cid, leads
}

// chatsStarted counts the POST /chats calls Unipile got for a member, answered or not.
func chatsStarted(fake *unipilefake.Fake, member string) int {
	return fake.Calls(http.MethodPost, "/api/v1/chats", "attendees_ids", member)
}

// TestUnipileStopAndBlockBeforeAStep: one person is stopped and another blocked after accepting
// and before their first message: when the campaign runs, neither gets anything while a third
// gets their message; the stopped one, resumed, gets it once.
func TestUnipileStopAndBlockBeforeAStep(t *testing.T) {
	t.Parallel()
	u := startUnipile(t)
	org, _ := u.orgWithSeat()
	sink := newEventSink(t, u.srv.DBURL, org.ID, "connection_accepted", "message_sent")
	ps := people(t, u.fake, "hold", 3)
	stopped, blocked, other := ps[0], ps[1], ps[2]
	cid, leads := u.acceptedAndHeld(org, ps)
	url := func(p unipilefake.Person) string { return "https://www.linkedin.com/in/" + p.PublicIdentifier }

	r := org.Write.Do(t, "POST", "/api/v1/inbox/stop", map[string]any{"linkedin_url": url(stopped)})
	if d, _ := r.JSON["data"].([]any); r.Status != 200 || len(d) != 1 || d[0].(map[string]any)["campaigns_paused"] != float64(1) {
		t.Fatalf("stop: %d %s", r.Status, r.Body)
	}
	r = org.Write.Do(t, "POST", "/api/v1/inbox/block", map[string]any{"linkedin_url": url(blocked), "reason": "asked us not to"})
	if r.Status != 200 || r.JSON["blocked"] != float64(1) {
		t.Fatalf("block: %d %s", r.Status, r.Body)
	}
	setCampaignStatus(t, u.srv.DBURL, cid, "active")
	waitStatus(t, org.Read, cid, leads[2:], "messaged")
	waitEnginePass(t, u.db)
	for _, p := range []unipilefake.Person{stopped, blocked} {
		if n := chatsStarted(u.fake, p.ProviderID); n != 0 {
			t.Errorf("%s: %d POST /chats, want none", p.PublicIdentifier, n)
		}
	}

	r = org.Write.Do(t, "POST", "/api/v1/inbox/resume", map[string]any{"linkedin_url": url(stopped)})
	if r.Status != 200 || r.JSON["resumed"] != float64(1) {
		t.Fatalf("resume: %d %s", r.Status, r.Body)
	}
	waitStatus(t, org.Read, cid, leads[:1], "messaged")
	waitEnginePass(t, u.db)
	sink.settled(t, u.db)
	for _, c := range []struct {
		who             unipilefake.Person
		lead            string
		messages, chats int
	}{{stopped, leads[0], 1, 1}, {blocked, leads[1], 0, 0}, {other, leads[2], 1, 1}} {
		if got := u.fake.SentMessages(u.seat.ID, c.who.ProviderID); got != c.messages {
			t.Errorf("%s got %d messages, want %d", c.who.PublicIdentifier, got, c.messages)
		}
		if got := chatsStarted(u.fake, c.who.ProviderID); got != c.chats {
			t.Errorf("%s: %d POST /chats, want %d", c.who.PublicIdentifier, got, c.chats)
		}
		if got := sink.count("message_sent", c.lead); got != c.messages {
			t.Errorf("%s: %d message_sent events, want %d", c.who.PublicIdentifier, got, c.messages)
		}
		if got := sink.count("connection_accepted", c.lead); got != 1 {
			t.Errorf("%s: %d connection_accepted events, want 1", c.who.PublicIdentifier, got)
		}
	}
	if got := statuses(t, org.Read, cid)[leads[1]]; got != "opted_out" {
		t.Errorf("the blocked person is %s, want opted_out", got)
	}
}

// TestUnipileDisconnectAndReconnect: Unipile reports the seat disconnected (its webhook, and
// 401 on its calls) while a first message is due: one account_disconnected, and no call to send
// while it is down; reconnected (its webhook), one account_reconnected and the message goes out
// once. The seat then drops and comes back a second time within minutes, an invitation due:
// each time is told, and the invitation waits for the seat.
func TestUnipileDisconnectAndReconnect(t *testing.T) {
	t.Parallel()
	u := startUnipile(t)
	org, accountID := u.orgWithSeat()
	sink := newEventSink(t, u.srv.DBURL, org.ID, "account_disconnected", "account_reconnected", "message_sent")
	ps := people(t, u.fake, "dora", 2)
	cid, leads := u.acceptedAndHeld(org, ps[:1])

	down := func(round int) {
		t.Helper()
		if err := u.fake.Disconnect(u.seat.ID); err != nil {
			t.Fatal(err)
		}
		testenv.EventuallyTrue(t, 20*time.Second, "account_disconnected", func() bool {
			return sink.count("account_disconnected", accountID) == round
		})
		if row := u.seatRow(org.ID); row["status"] != "disconnected" || row["disconnected_at"] == nil {
			t.Errorf("round %d: the seat is %v, disconnected at %v", round, row["status"], row["disconnected_at"])
		}
	}
	up := func(round int) {
		t.Helper()
		if err := u.fake.Reconnect(u.seat.ID); err != nil {
			t.Fatal(err)
		}
		testenv.EventuallyTrue(t, 20*time.Second, "account_reconnected", func() bool {
			return sink.count("account_reconnected", accountID) == round
		})
	}

	down(1)
	setCampaignStatus(t, u.srv.DBURL, cid, "active")
	waitEnginePass(t, u.db)
	if n := chatsStarted(u.fake, ps[0].ProviderID); n != 0 {
		t.Errorf("%d POST /chats while the seat is disconnected, want none", n)
	}
	up(1)
	waitStatus(t, org.Read, cid, leads, "messaged")

	// Down and up again within minutes, an invitation due: each time is news.
	setCampaignStatus(t, u.srv.DBURL, cid, "paused")
	second := pushPeople(t, org, cid, ps[1:])
	testenv.EventuallyTrue(t, 20*time.Second, "the second lead looked up", func() bool {
		return org.Read.Do(t, "GET", "/api/v1/leads/"+second[0], nil).JSON["data"].(map[string]any)["enrichment_status"] == "done"
	})
	down(2)
	setCampaignStatus(t, u.srv.DBURL, cid, "active")
	waitEnginePass(t, u.db)
	if n := u.fake.Calls(http.MethodPost, "/api/v1/users/invite", "provider_id", ps[1].ProviderID); n != 0 {
		t.Errorf("%d POST /users/invite while the seat is disconnected, want none", n)
	}
	up(2)
	waitStatus(t, org.Read, cid, second, "connection_sent")

	waitEnginePass(t, u.db)
	sink.settled(t, u.db)
	if row := u.seatRow(org.ID); row["status"] != "connected" || row["disconnected_at"] != nil {
		t.Errorf("after the reconnection the seat is %v, disconnected at %v", row["status"], row["disconnected_at"])
	}
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"account_disconnected events", sink.count("account_disconnected", accountID), 2},
		{"account_reconnected events", sink.count("account_reconnected", accountID), 2},
		{"message_sent events", sink.count("message_sent", leads[0]), 1},
		{"messages Unipile got", u.fake.SentMessages(u.seat.ID, ps[0].ProviderID), 1},
		{"POST /chats", chatsStarted(u.fake, ps[0].ProviderID), 1},
		{"invitations to the second person", u.fake.SentInvitations(u.seat.ID, ps[1].ProviderID), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
}
