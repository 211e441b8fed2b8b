package main_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"outreachd/adapters/unipile/unipilefake"
	"outreachd/internal/testenv"
)

// webhookBook counts what the service keeps of Unipile's webhooks: the webhooks stored and the
// reports they made.
type webhookBook struct{ webhooks, reports int }

func (u *unipileRun) webhookBook() webhookBook {
	u.t.Helper()
	var b webhookBook
	if err := u.db.Pool().QueryRow(context.Background(), `SELECT (SELECT count(*) FROM provider_webhooks),
		(SELECT count(*) FROM provider_reports)`).Scan(&b.webhooks, &b.reports); err != nil {
		u.t.Fatal(err)
	}
	return b
}

// storedWebhooks counts the stored webhooks of a kind.
func (u *unipileRun) storedWebhooks(kind string) int {
	u.t.Helper()
	var n int
	if err := u.db.Pool().QueryRow(context.Background(), `SELECT count(*) FROM provider_webhooks WHERE kind = $1`, kind).Scan(&n); err != nil {
		u.t.Fatal(err)
	}
	return n
}

// TestUnipileWebhooksFromOutside posts to the service's Unipile webhook what the internet may:
// forged calls (no secret, a wrong one, the secret twice) are 401 and leave nothing behind, so
// the real webhook that follows is the first of its kind; malformed bodies are 400, oversized
// ones 413, and also leave nothing; the same webhook twice (Unipile retrying, or replayed) has
// one effect; an event kind outreachd does not know is stored, answered 200 and otherwise
// ignored, with one log line.
func TestUnipileWebhooksFromOutside(t *testing.T) {
	t.Parallel()
	u := startUnipile(t)
	org, _ := u.orgWithSeat()
	sink := newEventSink(t, u.srv.DBURL, org.ID, "connection_accepted", "message_sent", "reply_received")
	ada := people(t, u.fake, "ada", 1)[0]
	cid := launchCampaign(t, org, u.srv.DBURL, "Webhooks")
	lead := pushPeople(t, org, cid, []unipilefake.Person{ada})[0]
	waitStatus(t, org.Read, cid, []string{lead}, "connection_sent")

	relation, _ := json.Marshal(map[string]any{"event": "new_relation", "account_id": u.seat.ID, "account_type": "LINKEDIN",
		"webhook_name": "outreachd users", "user_full_name": "Ada N00", "user_provider_id": ada.ProviderID,
		"user_public_identifier": ada.PublicIdentifier, "user_profile_url": "https://www.linkedin.com/in/" + ada.PublicIdentifier + "/"})
	pad := func(n int) []byte { // a JSON object of an unknown kind, exactly n bytes long
		head := `{"event":"padding","account_id":"` + u.seat.ID + `","pad":"`
		return []byte(head + strings.Repeat("x", n-len(head)-2) + `"}`)
	}
	const limit = 256 << 10
	before := u.webhookBook()
	for _, c := range []struct {
		name   string
		body   []byte
		auth   []string
		status int
		code   string
	}{
		{"no Unipile-Auth", relation, nil, 401, "unauthenticated"},
		{"a wrong secret", relation, []string{"not-the-secret-at-all"}, 401, "unauthenticated"},
		{"the secret with a prefix", relation, []string{"Bearer " + e2eSecret}, 401, "unauthenticated"},
		{"the secret and another value", relation, []string{e2eSecret, "x"}, 401, "unauthenticated"},
		{"a wrong secret on an oversized body", pad(limit + 1), []string{"nope-nope-nope-nope"}, 401, "unauthenticated"},
		{"not JSON", []byte(`{"event":"new_relation",`), []string{e2eSecret}, 400, "invalid_request"},
		{"an empty body", nil, []string{e2eSecret}, 400, "invalid_request"},
		{"a JSON array", []byte(`[` + string(relation) + `]`), []string{e2eSecret}, 400, "invalid_request"},
		{"a relation without its member", []byte(`{"event":"new_relation","account_id":"` + u.seat.ID + `"}`), []string{e2eSecret}, 400, "invalid_request"},
		{"a message without its id", []byte(`{"event":"message_received","account_id":"` + u.seat.ID + `","chat_id":"c1","message":"hi",` +
			`"sender":{"attendee_provider_id":"` + ada.ProviderID + `"}}`), []string{e2eSecret}, 400, "invalid_request"},
		{"one byte over 256 KB", pad(limit + 1), []string{e2eSecret}, 413, "payload_too_large"},
		{"two megabytes", pad(2 << 20), []string{e2eSecret}, 413, "payload_too_large"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, answer := postWebhook(t, u.srv.URL, c.body, c.auth...)
			code, _ := answer["error"].(map[string]any)["code"].(string)
			if status != c.status || code != c.code {
				t.Errorf("answered %d %v, want %d %s", status, answer, c.status, c.code)
			}
			if after := u.webhookBook(); after != before {
				t.Errorf("a refused webhook left something behind: %+v, was %+v", after, before)
			}
		})
	}
	if got := statuses(t, org.Read, cid)[lead]; got != "connection_sent" {
		t.Fatalf("after the refused webhooks Ada is %s", got)
	}

	// A body of exactly 256 KB is taken (an event outreachd does not know: stored, ignored).
	if status, answer := postWebhook(t, u.srv.URL, pad(limit), e2eSecret); status != 200 || answer["duplicate"] != false {
		t.Errorf("a body of exactly 256 KB: %d %v", status, answer)
	}

	// Unipile delivers the acceptance twice, at once; then it is replayed: one effect, and the
	// forged copies before did not make the first real one a duplicate.
	u.fake.DuplicateWebhooks(1)
	if err := u.fake.AcceptInvitation(u.seat.ID, ada.ProviderID, unipilefake.AcceptOptions{}); err != nil {
		t.Fatal(err)
	}
	u.fake.WaitWebhooks()
	var real []byte
	for _, d := range u.fake.Deliveries() {
		if d.Event == "new_relation" {
			if d.Status != 200 {
				t.Errorf("Unipile's new_relation answered %d (%s)", d.Status, d.Err)
			}
			real = d.Body
		}
	}
	if status, answer := postWebhook(t, u.srv.URL, real, e2eSecret); status != 200 || answer["duplicate"] != true {
		t.Errorf("the acceptance replayed: %d %v, want 200 and a duplicate", status, answer)
	}
	if n := u.storedWebhooks("new_relation"); n != 1 {
		t.Errorf("%d new_relation webhooks stored, want 1", n)
	}
	waitStatus(t, org.Read, cid, []string{lead}, "messaged")

	// The reply comes twice too, and is replayed twice more, concurrently.
	u.fake.DuplicateWebhooks(1)
	if _, err := u.fake.Reply(u.seat.ID, ada.ProviderID, "Could you send me an email with the details?"); err != nil {
		t.Fatal(err)
	}
	u.fake.WaitWebhooks()
	var reply []byte
	for _, d := range u.fake.Deliveries() {
		if d.Event == "message_received" && strings.Contains(string(d.Body), "send me an email") {
			reply = d.Body
		}
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if status, answer := postWebhook(t, u.srv.URL, reply, e2eSecret); status != 200 || answer["duplicate"] != true {
				t.Errorf("the reply replayed: %d %v, want 200 and a duplicate", status, answer)
			}
		})
	}
	wg.Wait()
	testenv.EventuallyTrue(t, 30*time.Second, "the reply in needs-human", func() bool {
		items, _ := org.Read.Do(t, "GET", "/api/v1/needs-human", nil).JSON["data"].([]any)
		return len(items) > 0
	})

	// An event kind outreachd does not act on: stored, 200, ignored, logged once.
	unknown := []byte(`{"event":"post_liked","account_id":"` + u.seat.ID + `","post_id":"7001"}`)
	book := u.webhookBook()
	for i, wantDup := range []bool{false, true} {
		if status, answer := postWebhook(t, u.srv.URL, unknown, e2eSecret); status != 200 || answer["duplicate"] != wantDup {
			t.Errorf("unknown kind, call %d: %d %v", i+1, status, answer)
		}
	}
	if after := u.webhookBook(); after.webhooks != book.webhooks+1 || after.reports != book.reports {
		t.Errorf("an unknown kind: %+v, was %+v; want one more webhook and no report", after, book)
	}
	testenv.EventuallyTrue(t, 10*time.Second, "the unknown kind's log line", func() bool {
		return strings.Contains(u.srv.Logs(), "event=post_liked")
	})
	if n := strings.Count(u.srv.Logs(), "event=post_liked"); n != 1 {
		t.Errorf("the unknown kind was logged %d times, want once", n)
	}

	sink.settled(t, u.db)
	items, _ := org.Read.Do(t, "GET", "/api/v1/needs-human", nil).JSON["data"].([]any)
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"connection_accepted events", sink.count("connection_accepted", lead), 1},
		{"message_sent events", sink.count("message_sent", lead), 1},
		{"reply_received events", sink.count("reply_received", lead), 1},
		{"needs-human items", len(items), 1},
		{"messages Unipile got for Ada", u.fake.SentMessages(u.seat.ID, ada.ProviderID), 1},
		// The invitation's note and the first message (the seat's own), and the reply.
		{"stored message_received webhooks", u.storedWebhooks("message_received"), 3},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
	for _, d := range u.fake.Deliveries() {
		if d.Status != http.StatusOK {
			t.Errorf("webhook %s answered %d (%s)", d.Event, d.Status, d.Err)
		}
	}
}
