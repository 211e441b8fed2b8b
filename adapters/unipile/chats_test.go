package unipile_test

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"outreachd/adapters/unipile"
)

func TestStartChatAndSend(t *testing.T) {
	e := newEnv(t)
	_, err := e.c.StartChat(e.ctx, e.seat.ID, []string{e.ada.ProviderID}, "Hi Ada")
	mustClass(t, err, unipile.ClassNotConnected)

	e.connected(t, e.ada)
	started, err := e.c.StartChat(e.ctx, e.seat.ID, []string{e.ada.ProviderID}, "Hi Ada")
	if err != nil {
		t.Fatal(err)
	}
	if started.ChatID == "" || started.MessageID == "" {
		t.Fatalf("started = %+v", started)
	}
	req := e.fake.Requests()[len(e.fake.Requests())-1]
	if req.ContentType != "multipart/form-data" || req.Fields.Get("account_id") != e.seat.ID ||
		!slices.Equal(req.Fields["attendees_ids"], []string{e.ada.ProviderID}) || req.Fields.Get("text") != "Hi Ada" {
		t.Fatalf("start chat arrived as %s %v", req.ContentType, req.Fields)
	}
	// Starting again reuses the 1:1 chat.
	again, err := e.c.StartChat(e.ctx, e.seat.ID, []string{e.ada.ProviderID}, "Second")
	if err != nil || again.ChatID != started.ChatID {
		t.Fatalf("second start = %+v, %v (first chat %s)", again, err, started.ChatID)
	}
	msgID, err := e.c.SendMessage(e.ctx, started.ChatID, "Third")
	if err != nil || msgID == "" {
		t.Fatalf("send = %q, %v", msgID, err)
	}
	req = e.fake.Requests()[len(e.fake.Requests())-1]
	if req.ContentType != "multipart/form-data" || req.Pattern != "/api/v1/chats/{id}/messages" || req.Fields.Get("text") != "Third" {
		t.Fatalf("send arrived as %s %s %v", req.ContentType, req.Pattern, req.Fields)
	}
	if n := e.fake.SentMessages(e.seat.ID, e.ada.ProviderID); n != 3 {
		t.Fatalf("fake holds %d messages sent through the API", n)
	}

	// attendees_ids is repeated once per attendee (the fake itself refuses group chats).
	_, err = e.c.StartChat(e.ctx, e.seat.ID, []string{e.ada.ProviderID, e.bob.ProviderID}, "group")
	mustClass(t, err, unipile.ClassRejected)
	if got := e.fake.Requests()[len(e.fake.Requests())-1].Fields["attendees_ids"]; !slices.Equal(got, []string{e.ada.ProviderID, e.bob.ProviderID}) {
		t.Fatalf("attendees_ids = %v", got)
	}
	_, err = e.c.SendMessage(e.ctx, "no-such-chat", "x")
	mustClass(t, err, unipile.ClassNotFound)
	for _, bad := range [][]string{nil, {""}} {
		_, err = e.c.StartChat(e.ctx, e.seat.ID, bad, "x")
		mustClass(t, err, unipile.ClassRejected)
	}
}

// The fake refuses a JSON body on a route Unipile reads as multipart, as Unipile does.
func TestChatRoutesRefuseJSON(t *testing.T) {
	e := newEnv(t)
	e.connected(t, e.ada)
	body := []byte(`{"account_id":"` + e.seat.ID + `","attendees_ids":["` + e.ada.ProviderID + `"],"text":"hi"}`)
	req, _ := http.NewRequest(http.MethodPost, e.fake.URL()+"/api/v1/chats", bytes.NewReader(body))
	req.Header.Set("X-API-KEY", testKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || e.fake.SentMessages(e.seat.ID, e.ada.ProviderID) != 0 {
		t.Fatalf("a JSON chat start answered %d and wrote %d messages", resp.StatusCode, e.fake.SentMessages(e.seat.ID, e.ada.ProviderID))
	}
}

func TestReadChats(t *testing.T) {
	e := newEnv(t)
	e.connected(t, e.ada)
	e.connected(t, e.bob)
	ada, err := e.c.StartChat(e.ctx, e.seat.ID, []string{e.ada.ProviderID}, "Hi Ada")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.fake.Reply(e.seat.ID, e.ada.ProviderID, "Hello back"); err != nil {
		t.Fatal(err)
	}
	mark := e.clock.advance(time.Minute)
	e.clock.advance(time.Second)
	if _, err := e.fake.Reply(e.seat.ID, e.bob.ProviderID, "Bob writes first"); err != nil {
		t.Fatal(err)
	}

	chats := collectChats(t, e, unipile.ChatListOptions{})
	if len(chats) != 2 || chats[0].AttendeeProviderID != e.bob.ProviderID || chats[1].ID != ada.ChatID {
		t.Fatalf("chats = %+v", chats)
	}
	if chats[0].UnreadCount != 1 || chats[1].UnreadCount != 1 || chats[0].Timestamp.IsZero() || chats[0].AccountType != "LINKEDIN" {
		t.Fatalf("chat fields = %+v", chats)
	}
	recent := collectChats(t, e, unipile.ChatListOptions{After: mark})
	if len(recent) != 1 || recent[0].AttendeeProviderID != e.bob.ProviderID {
		t.Fatalf("chats after %s = %+v", mark, recent)
	}
	if got := e.fake.Requests()[len(e.fake.Requests())-1].Query.Get("after"); got != unipile.FormatTime(mark) {
		t.Fatalf("after sent as %q", got)
	}

	one, err := e.c.GetChat(e.ctx, ada.ChatID)
	if err != nil {
		t.Fatal(err)
	}
	if one.LastMessage == nil || one.LastMessage.Text != "Hello back" || bool(one.LastMessage.IsSender) {
		t.Fatalf("chat %+v, last message %+v", one, one.LastMessage)
	}

	msgs, err := unipile.Collect(e.ctx, 10, func(ctx context.Context, cursor string) (unipile.Page[unipile.Message], error) {
		return e.c.ListMessages(ctx, ada.ChatID, unipile.MessageListOptions{ListOptions: unipile.ListOptions{Limit: 1, Cursor: cursor}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Text != "Hello back" || msgs[0].IsSender || msgs[0].SenderID != e.ada.ProviderID ||
		msgs[1].Text != "Hi Ada" || !msgs[1].IsSender || msgs[1].SenderID != e.seat.Owner.ProviderID || msgs[1].ID != ada.MessageID {
		t.Fatalf("messages = %+v", msgs)
	}

	attendees, err := e.c.ListChatAttendees(e.ctx, ada.ChatID)
	if err != nil {
		t.Fatal(err)
	}
	if len(attendees) != 2 || attendees[0].Name != "Ada Lovelace" || attendees[0].IsSelf || attendees[0].ProviderID != e.ada.ProviderID || !attendees[1].IsSelf {
		t.Fatalf("attendees = %+v", attendees)
	}
}

func collectChats(t *testing.T, e *env, opts unipile.ChatListOptions) []unipile.Chat {
	t.Helper()
	all, err := unipile.Collect(e.ctx, 10, func(ctx context.Context, cursor string) (unipile.Page[unipile.Chat], error) {
		o := opts
		o.Cursor = cursor
		return e.c.ListChats(ctx, e.seat.ID, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}
