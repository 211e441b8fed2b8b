package unipile_test

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"testing"

	"outreachd/adapters/unipile"
	"outreachd/adapters/unipile/unipilefake"
)

func TestWebhookRegistrations(t *testing.T) {
	e := newEnv(t)
	rc := e.receiver(t)
	ids := map[string]string{}
	for _, source := range []string{unipile.WebhookMessaging, unipile.WebhookUsers, unipile.WebhookAccountStatus} {
		id, err := e.c.CreateWebhook(e.ctx, unipile.NewWebhook{
			Source: source, RequestURL: rc.URL(), Name: "outreachd-" + source,
			Headers: []unipile.Header{{Key: "Unipile-Auth", Value: "s3cret"}, {Key: "Content-Type", Value: "application/json"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		ids[source] = id
	}
	req := e.fake.Requests()[len(e.fake.Requests())-1]
	if req.ContentType != "application/json" || req.Fields.Get("source") != "account_status" || req.Fields.Get("request_url") != rc.URL() {
		t.Fatalf("create arrived as %s %v", req.ContentType, req.Fields)
	}
	all, err := unipile.Collect(e.ctx, 10, func(ctx context.Context, cursor string) (unipile.Page[unipile.Webhook], error) {
		return e.c.ListWebhooks(ctx, unipile.ListOptions{Cursor: cursor})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[1].ID != ids[unipile.WebhookUsers] || all[1].Name != "outreachd-users" || all[1].RequestURL != rc.URL() ||
		!all[1].Enabled || len(all[1].Headers) != 2 || all[1].Headers[0] != (unipile.Header{Key: "Unipile-Auth", Value: "s3cret"}) {
		t.Fatalf("webhooks = %+v", all)
	}
	if err := e.c.DeleteWebhook(e.ctx, ids[unipile.WebhookUsers]); err != nil {
		t.Fatal(err)
	}
	err = e.c.DeleteWebhook(e.ctx, ids[unipile.WebhookUsers])
	mustClass(t, err, unipile.ClassNotFound)
	_, err = e.c.CreateWebhook(e.ctx, unipile.NewWebhook{Source: "nonsense", RequestURL: rc.URL()})
	mustClass(t, err, unipile.ClassRejected)
}

// register adds a webhook of source to rc, with the headers outreachd registers.
func (e *env) register(t *testing.T, source string, rc *unipilefake.Receiver, headers ...unipile.Header) {
	t.Helper()
	if headers == nil {
		headers = []unipile.Header{{Key: "Unipile-Auth", Value: "s3cret"}}
	}
	if _, err := e.c.CreateWebhook(e.ctx, unipile.NewWebhook{Source: source, RequestURL: rc.URL(), Name: "wh-" + source, Headers: headers}); err != nil {
		t.Fatal(err)
	}
}

// parse reads every call rc got.
func parse(t *testing.T, rc *unipilefake.Receiver) []unipile.Event {
	t.Helper()
	var out []unipile.Event
	for _, c := range rc.Calls() {
		ev, err := unipile.ParseWebhook(bytes.NewReader(c.Body), 64<<10)
		if err != nil {
			t.Fatalf("%s: %v", c.Body, err)
		}
		out = append(out, ev)
	}
	return out
}

// The webhooks that follow an invitation, its acceptance, messages both ways and a
// disconnection, as the provider will receive them.
func TestWebhooksOfAConversation(t *testing.T) {
	e := newEnv(t)
	messaging, users, status := e.receiver(t), e.receiver(t), e.receiver(t)
	e.register(t, unipile.WebhookMessaging, messaging)
	e.register(t, unipile.WebhookUsers, users)
	e.register(t, unipile.WebhookAccountStatus, status)

	if _, err := e.c.Invite(e.ctx, e.seat.ID, e.ada.ProviderID, "Hello Ada"); err != nil {
		t.Fatal(err)
	}
	if err := e.fake.AcceptInvitation(e.seat.ID, e.ada.ProviderID, unipilefake.AcceptOptions{}); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	rel := parse(t, users)
	if len(rel) != 1 || rel[0].Kind != unipile.EventNewRelation || rel[0].Relation.UserProviderID != e.ada.ProviderID ||
		rel[0].Relation.UserPublicIdentifier != "ada-lovelace" || rel[0].Relation.AccountID != e.seat.ID || rel[0].Relation.WebhookName != "wh-users" {
		t.Fatalf("new_relation = %+v", rel)
	}
	call := users.Calls()[0]
	if call.Header.Get("Unipile-Auth") != "s3cret" || call.Header.Get("Content-Type") != "" {
		t.Fatalf("headers sent = %v", call.Header)
	}
	// The accepted invitation's note opened a chat, reported as the seat's own message.
	note := parse(t, messaging)
	if len(note) != 1 || note[0].Message.Text != "Hello Ada" || !note[0].Message.FromSeat(e.seat.Owner.ProviderID) ||
		note[0].Message.Attendees[0].ProviderID != e.ada.ProviderID {
		t.Fatalf("note = %+v", note)
	}

	started, err := e.c.StartChat(e.ctx, e.seat.ID, []string{e.ada.ProviderID}, "Glad to connect")
	if err != nil {
		t.Fatal(err)
	}
	if started.ChatID != note[0].Message.ChatID {
		t.Fatalf("the first message went to chat %s, not the note's %s", started.ChatID, note[0].Message.ChatID)
	}
	replyID, err := e.fake.Reply(e.seat.ID, e.ada.ProviderID, "Likewise")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.fake.WriteAsSeat(e.seat.ID, e.ada.ProviderID, "Typed on LinkedIn"); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	byText := map[string]*unipile.MessageEvent{}
	for _, ev := range parse(t, messaging) {
		byText[ev.Message.Text] = ev.Message
	}
	own, reply, hand := byText["Glad to connect"], byText["Likewise"], byText["Typed on LinkedIn"]
	if own == nil || reply == nil || hand == nil || len(byText) != 4 {
		t.Fatalf("messages reported: %v", byText)
	}
	owner := e.seat.Owner.ProviderID
	if !own.FromSeat(owner) || own.MessageID != started.MessageID || !hand.FromSeat(owner) || reply.FromSeat(owner) {
		t.Fatalf("FromSeat: own %v, hand %v, reply %v", own.FromSeat(owner), hand.FromSeat(owner), reply.FromSeat(owner))
	}
	if reply.MessageID != replyID || reply.Sender.ProviderID != e.ada.ProviderID || reply.Sender.Name != "Ada Lovelace" ||
		reply.ChatID != started.ChatID || reply.WebhookName != "wh-messaging" {
		t.Fatalf("reply = %+v", reply)
	}
	if at, ok := reply.At(); !ok || !at.Equal(e.clock.now()) {
		t.Fatalf("reply time = %v, %v", at, ok)
	}

	if err := e.fake.Disconnect(e.seat.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.fake.Reply(e.seat.ID, e.ada.ProviderID, "while disconnected"); err != nil {
		t.Fatal(err)
	}
	if err := e.fake.Reconnect(e.seat.ID); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	var statuses []string
	for _, ev := range parse(t, status) {
		if ev.Kind != unipile.EventAccountStatus || ev.Status.AccountID != e.seat.ID {
			t.Fatalf("status event = %+v", ev)
		}
		statuses = append(statuses, ev.Status.Message)
	}
	// Reconnecting reports RECONNECTED and OK, in no promised order (each call is its own).
	slices.Sort(statuses)
	if !slices.Equal(statuses, []string{"CREDENTIALS", "OK", "RECONNECTED"}) {
		t.Fatalf("statuses = %v", statuses)
	}
	if n := len(messaging.Calls()); n != 4 {
		t.Fatalf("a message while disconnected was reported (%d calls)", n)
	}
}

// Webhooks get lost, come twice, are retried until answered 200, or (new_relation) never come.
func TestWebhookMisbehaviour(t *testing.T) {
	e := newEnv(t)
	// The receiver fails twice: Unipile tries again until it gets a 200.
	users := e.receiver(t, http.StatusInternalServerError, http.StatusCreated)
	e.register(t, unipile.WebhookUsers, users)
	e.connected(t, e.ada)
	e.fake.WaitWebhooks()
	if calls := users.Calls(); len(calls) != 3 || calls[2].Status != 200 {
		t.Fatalf("calls = %+v", calls)
	}

	e.fake.DuplicateWebhooks(1)
	e.connected(t, e.bob)
	e.fake.WaitWebhooks()
	if ev := parse(t, users); len(ev) != 5 || ev[3].Relation.UserProviderID != e.bob.ProviderID || ev[4].Relation.UserProviderID != e.bob.ProviderID {
		t.Fatalf("duplicated delivery: %+v", ev)
	}

	cy := e.person(t, unipilefake.Person{FirstName: "Cy"})
	e.fake.LoseWebhooks(1)
	e.connected(t, cy)
	dee := e.person(t, unipilefake.Person{FirstName: "Dee"})
	if _, err := e.c.Invite(e.ctx, e.seat.ID, dee.ProviderID, ""); err != nil {
		t.Fatal(err)
	}
	if err := e.fake.AcceptInvitation(e.seat.ID, dee.ProviderID, unipilefake.AcceptOptions{WithholdNewRelation: true}); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	if n := len(users.Calls()); n != 5 {
		t.Fatalf("a lost or withheld new_relation was delivered (%d calls)", n)
	}
	lost := 0
	for _, d := range e.fake.Deliveries() {
		if d.Lost {
			lost++
		}
	}
	if lost != 1 {
		t.Fatalf("%d deliveries marked lost", lost)
	}
	// Only listing relations finds them.
	rels, err := unipile.Collect(e.ctx, 10, func(ctx context.Context, cursor string) (unipile.Page[unipile.Relation], error) {
		return e.c.ListRelations(ctx, e.seat.ID, unipile.ListOptions{Cursor: cursor})
	})
	if err != nil || len(rels) != 4 || rels[0].MemberID != dee.ProviderID || rels[1].MemberID != cy.ProviderID {
		t.Fatalf("relations = %+v, %v", rels, err)
	}
}
