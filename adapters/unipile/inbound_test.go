package unipile_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"outreachd/adapters/unipile"
	"outreachd/adapters/unipile/unipilefake"
	"outreachd/outreach"
)

// post sends body to the webhook endpoint with the given Unipile-Auth value ("" for none).
func (e *penv) post(t *testing.T, path, auth string, body []byte) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set(unipile.AuthHeader, auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// register points the fake's webhooks at the test server.
func (e *penv) register(t *testing.T) {
	t.Helper()
	if _, err := unipile.EnsureWebhooks(e.ctx, e.c, e.inbox, e.srv.URL, testSecret); err != nil {
		t.Fatal(err)
	}
}

func TestWebhookRefusals(t *testing.T) {
	e := newProviderEnv(t)
	reply := []byte(`{"event":"message_received","account_id":"` + e.seat.ID + `","chat_id":"c1","message_id":"m1",
		"message":"hello","sender":{"attendee_provider_id":"` + e.bob.ProviderID + `"}}`)
	cases := []struct {
		name string
		auth string
		body []byte
		want int
	}{
		{"no secret", "", reply, http.StatusUnauthorized},
		{"wrong secret", "webhook-secret-0123456780", reply, http.StatusUnauthorized},
		{"secret with a suffix", testSecret + "x", reply, http.StatusUnauthorized},
		{"not JSON", testSecret, []byte(`{"event":`), http.StatusBadRequest},
		{"not an object", testSecret, []byte(`["event"]`), http.StatusBadRequest},
		{"a known event without its ids", testSecret, []byte(`{"event":"message_received","account_id":"a"}`), http.StatusBadRequest},
		{"over 256 KB", testSecret, []byte(`{"event":"x","pad":"` + strings.Repeat("a", 256<<10) + `"}`), http.StatusRequestEntityTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := e.post(t, unipile.WebhookPath, tc.auth, tc.body); got != tc.want {
				t.Errorf("status %d, want %d", got, tc.want)
			}
		})
	}
	if n := e.count(t, `SELECT count(*) FROM provider_webhooks`); n != 0 {
		t.Errorf("%d webhooks stored from refused calls", n)
	}
	if n := len(e.reports(t)); n != 0 {
		t.Errorf("%d reports from refused calls", n)
	}
	// The same body, authenticated, is stored; Unipile's missing Content-Type does not matter.
	if got := e.post(t, unipile.WebhookPath, testSecret, reply); got != http.StatusOK {
		t.Fatalf("authenticated webhook: %d", got)
	}
	if got := e.post(t, unipile.WebhookPath, testSecret, reply); got != http.StatusOK {
		t.Fatalf("the same webhook again: %d", got)
	}
	if n := e.count(t, `SELECT count(*) FROM provider_webhooks`); n != 1 {
		t.Errorf("%d webhooks stored, want 1", n)
	}
}

func TestWebhookEvents(t *testing.T) {
	e := newProviderEnv(t)
	e.register(t)
	e.connected(t, e.bob) // new_relation
	e.fake.WaitWebhooks()
	e.fake.DuplicateWebhooks(1)
	if _, err := e.fake.Reply(e.seat.ID, e.bob.ProviderID, "Tell me more"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.fake.WriteAsSeat(e.seat.ID, e.bob.ProviderID, "Written by hand"); err != nil {
		t.Fatal(err)
	}
	if err := e.fake.Disconnect(e.seat.ID); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	for _, d := range e.fake.Deliveries() {
		if d.Status != http.StatusOK || d.Header.Get(unipile.AuthHeader) != testSecret {
			t.Errorf("delivery %s to %s: %d (%s)", d.Event, d.URL, d.Status, d.Err)
		}
	}
	reps := e.reports(t)
	acc := reportsOf(reps, "invite_accepted")
	if len(acc) != 1 || acc[0].ProfileKey != "in:bob-babbage" || acc[0].ProviderID != e.bob.ProviderID {
		t.Errorf("acceptance: %+v", acc)
	}
	replies := reportsOf(reps, "message_received")
	if len(replies) != 1 || replies[0].Text != "Tell me more" || replies[0].ProfileKey != "in:bob-babbage" {
		t.Errorf("a reply delivered twice: %+v", replies)
	}
	own := reportsOf(reps, "seat_messaged")
	if len(own) != 1 || own[0].Text != "Written by hand" || own[0].ProviderID != e.bob.ProviderID || own[0].ProfileKey != "in:bob-babbage" {
		t.Errorf("the seat's own message: %+v", own)
	}
	if d := reportsOf(reps, "account_disconnected"); len(d) != 1 {
		t.Errorf("disconnection: %+v", d)
	}
	if err := e.fake.Reconnect(e.seat.ID); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	if r := reportsOf(e.reports(t), "account_reconnected"); len(r) != 2 { // RECONNECTED, then OK
		t.Errorf("reconnection: %+v", r)
	}
	// An event outreachd does not act on is stored and ignored.
	if got := e.post(t, unipile.WebhookPath, testSecret, []byte(`{"event":"message_reaction","account_id":"`+e.seat.ID+`"}`)); got != http.StatusOK {
		t.Errorf("unknown kind: %d", got)
	}
	if n := e.count(t, `SELECT count(*) FROM provider_webhooks WHERE kind = 'unknown'`); n != 1 {
		t.Errorf("%d unknown webhooks stored", n)
	}
	if n := len(e.reports(t)); n != len(reps)+2 {
		t.Errorf("%d reports after the unknown kind, want %d", n, len(reps)+2)
	}
}

// flakyInbox fails its first store, as a database that went away would.
type flakyInbox struct {
	unipile.Inbox
	calls atomic.Int32
}

func (f *flakyInbox) RecordWebhook(ctx context.Context, w outreach.InboundWebhook) (bool, error) {
	if f.calls.Add(1) == 1 {
		return false, errors.New("the database went away")
	}
	return f.Inbox.RecordWebhook(ctx, w)
}

// TestWebhookStoredBeforeAnswered: a webhook that could not be stored is not answered 2xx, so
// Unipile sends it again; once stored it is answered, and recorded once.
func TestWebhookStoredBeforeAnswered(t *testing.T) {
	e := newProviderEnv(t)
	e.connected(t, e.bob)
	e.srv.Close()
	flaky := &flakyInbox{Inbox: e.inbox}
	e.serve(t, flaky)
	e.register(t)
	if _, err := e.fake.Reply(e.seat.ID, e.bob.ProviderID, "Is this stored?"); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	var got []unipilefake.Delivery
	for _, d := range e.fake.Deliveries() {
		if d.Event == "message_received" {
			got = append(got, d)
		}
	}
	if len(got) != 1 || got[0].Attempts != 2 || got[0].Status != http.StatusOK {
		t.Fatalf("deliveries %+v; want one answered 200 at the second attempt", got)
	}
	if r := reportsOf(e.reports(t), "message_received"); len(r) != 1 {
		t.Errorf("reports %+v", r)
	}
}

// TestWebhookOfAnAccountUnipileDoesNotHold: kept, answered, and nothing reported.
func TestWebhookOfAnAccountUnipileDoesNotHold(t *testing.T) {
	e := newProviderEnv(t)
	body := []byte(`{"event":"message_received","account_id":"gone","chat_id":"c1","message_id":"m1",
		"message":"hello","sender":{"attendee_provider_id":"` + e.bob.ProviderID + `"}}`)
	if got := e.post(t, unipile.WebhookPath, testSecret, body); got != http.StatusOK {
		t.Fatalf("status %d", got)
	}
	if n := e.count(t, `SELECT count(*) FROM provider_webhooks`); n != 1 || len(e.reports(t)) != 0 {
		t.Errorf("%d webhooks, reports %+v", n, e.reports(t))
	}
}

// TestAccountStatusFlaps: a seat that drops, comes back and drops again within minutes is told
// each time (Unipile's status carries no id: the same status after another one is news), while
// the same status delivered again is still recorded once.
func TestAccountStatusFlaps(t *testing.T) {
	e := newProviderEnv(t)
	e.register(t)
	for range 2 {
		if err := e.fake.Disconnect(e.seat.ID); err != nil {
			t.Fatal(err)
		}
		e.fake.WaitWebhooks()
		if err := e.fake.Reconnect(e.seat.ID); err != nil {
			t.Fatal(err)
		}
		e.fake.WaitWebhooks()
	}
	reps := e.reports(t)
	if d, r := reportsOf(reps, "account_disconnected"), reportsOf(reps, "account_reconnected"); len(d) != 2 || len(r) != 4 {
		t.Fatalf("%d disconnections and %d reconnections reported, want 2 and 4 (RECONNECTED, then OK, twice)", len(d), len(r))
	}
	deliveries := e.fake.Deliveries()
	last := deliveries[len(deliveries)-1] // RECONNECTED or OK of the second reconnection
	if got := e.post(t, unipile.WebhookPath, testSecret, last.Body); got != http.StatusOK {
		t.Fatalf("the last status again: %d", got)
	}
	if n := len(e.reports(t)); n != len(reps) {
		t.Errorf("the last status delivered again made %d more reports", n-len(reps))
	}
}
