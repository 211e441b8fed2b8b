package unipilefake

import (
	"fmt"
	"mime"
	"net/http"
	"slices"
	"time"
)

// Where a message came from.
const (
	originAPI   = "api"   // the seat, through POST /chats or /chats/{id}/messages
	originNote  = "note"  // an accepted invitation's note
	originHand  = "hand"  // the seat's owner, by hand on LinkedIn
	originReply = "reply" // the other member
)

// form reads a multipart/form-data body; Unipile's chat routes refuse anything else.
func form(w http.ResponseWriter, r *http.Request) bool {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "multipart/form-data" {
		badRequest(w, "a multipart/form-data body is expected.")
		return false
	}
	if err := r.ParseMultipartForm(maxRequestBody); err != nil {
		badRequest(w, "the multipart body cannot be read: %v", err)
		return false
	}
	return true
}

// startChat writes to a member in the seat's 1:1 chat with them, opening it when needed.
func (f *Fake) startChat(w http.ResponseWriter, r *http.Request) {
	if !form(w, r) {
		return
	}
	attendees, text := r.MultipartForm.Value["attendees_ids"], r.FormValue("text")
	f.mu.Lock()
	a, ok := f.seat(w, r.FormValue("account_id"))
	if !ok {
		f.mu.Unlock()
		return
	}
	switch {
	case len(attendees) != 1:
		// Group chats are not part of this fake's LinkedIn.
		f.mu.Unlock()
		badRequest(w, "attendees_ids must name exactly one attendee in this fake.")
		return
	case text == "":
		f.mu.Unlock()
		badRequest(w, "text is required.")
		return
	case !f.st.isRelation(a.ID, attendees[0]):
		f.mu.Unlock()
		problem(w, http.StatusUnprocessableEntity, typeNoConnectionWithRecipient, "No connection with recipient",
			"The recipient appears not to be first degree connection.")
		return
	}
	out := f.write(a.ID, attendees[0], text, originAPI)
	c := f.st.chatWith(a.ID, attendees[0])
	m := c.messages[len(c.messages)-1]
	f.mu.Unlock()
	f.send(out)
	writeJSON(w, http.StatusCreated, map[string]any{"object": "ChatStarted", "chat_id": c.id, "message_id": m.id})
}

func (f *Fake) sendMessage(w http.ResponseWriter, r *http.Request) {
	if !form(w, r) {
		return
	}
	text := r.FormValue("text")
	f.mu.Lock()
	c := f.st.chat(r.PathValue("id"))
	if c == nil {
		f.mu.Unlock()
		notFound(w, "Chat")
		return
	}
	if _, ok := f.seat(w, c.accountID); !ok {
		f.mu.Unlock()
		return
	}
	if text == "" {
		f.mu.Unlock()
		badRequest(w, "text is required.")
		return
	}
	out := f.write(c.accountID, c.attendee, text, originAPI)
	m := c.messages[len(c.messages)-1]
	f.mu.Unlock()
	f.send(out)
	writeJSON(w, http.StatusCreated, map[string]any{"object": "MessageSent", "message_id": m.id})
}

// write adds a message to the seat's chat with a member (the seat writes unless origin is
// originReply) and builds its message_received webhooks, which Unipile sends for the seat's
// own messages too, while the seat is OK. Holds f.mu.
func (f *Fake) write(accountID, providerID, text, origin string) []outbound {
	a, p := f.st.account(accountID), f.st.people[providerID]
	sender, other := &a.Owner, p
	if origin == originReply {
		sender, other = p, &a.Owner
	}
	c, m := f.st.addMessage(accountID, providerID, sender.ProviderID, text, origin != originReply, f.now())
	m.origin = origin
	if a.status != "OK" {
		return nil
	}
	return f.webhookCalls("messaging", accountID, "message_received", func(name string) any {
		return map[string]any{
			"account_id": accountID, "account_type": "LINKEDIN", "event": "message_received",
			"chat_id": c.id, "timestamp": isoMillis(m.at), "webhook_name": name, "message_id": m.id,
			"message": text, "sender": webhookAttendee(accountID, sender),
			"attendees": []any{webhookAttendee(accountID, other)}, "attachments": []any{},
		}
	})
}

func webhookAttendee(accountID string, p *Person) map[string]any {
	return map[string]any{
		"attendee_id": attendeeID(accountID, p.ProviderID), "attendee_name": p.name(),
		"attendee_provider_id": p.ProviderID, "attendee_profile_url": p.profileURL(),
	}
}

// Reply plays the member writing to the seat (in their 1:1 chat, opened when needed); the
// messaging webhooks get message_received. It returns the message id.
func (f *Fake) Reply(accountID, providerID, text string) (string, error) {
	return f.control(accountID, providerID, text, originReply)
}

// WriteAsSeat plays the seat's owner writing to a member by hand on LinkedIn, outside the
// API; Unipile reports it as message_received with the owner as sender.
func (f *Fake) WriteAsSeat(accountID, providerID, text string) (string, error) {
	return f.control(accountID, providerID, text, originHand)
}

func (f *Fake) control(accountID, providerID, text, origin string) (string, error) {
	f.mu.Lock()
	if f.st.account(accountID) == nil || !f.st.isRelation(accountID, providerID) {
		f.mu.Unlock()
		return "", fmt.Errorf("unipilefake: %s is not a relation of account %s", providerID, accountID)
	}
	out := f.write(accountID, providerID, text, origin)
	c := f.st.chatWith(accountID, providerID)
	id := c.messages[len(c.messages)-1].id
	f.mu.Unlock()
	f.send(out)
	return id, nil
}

// SentMessages counts the messages the seat sent the member through the API (notes and
// hand-written messages aside): the count a test checks to prove nothing was sent twice.
func (f *Fake) SentMessages(accountID, providerID string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	if c := f.st.chatWith(accountID, providerID); c != nil {
		for _, m := range c.messages {
			if m.origin == originAPI {
				n++
			}
		}
	}
	return n
}

// listChats lists the seat's chats, the most recent activity first, after/before bounding
// the last activity.
func (f *Fake) listChats(w http.ResponseWriter, r *http.Request, a *account) {
	in, ok := window(w, r)
	if !ok {
		return
	}
	var chats []*chat
	for _, c := range f.st.chats {
		if c.accountID == a.ID && in(c.lastAt()) {
			chats = append(chats, c)
		}
	}
	slices.SortStableFunc(chats, func(x, y *chat) int { return y.lastAt().Compare(x.lastAt()) })
	answerList(f, w, r, "ChatList", chats, 250, func(c *chat) any { return renderChat(c) })
}

// window reads the after and before parameters (ISO 8601 UTC with milliseconds, as the
// reference has them) and returns the test of a time against them.
func window(w http.ResponseWriter, r *http.Request) (func(time.Time) bool, bool) {
	var bounds [2]time.Time
	for i, name := range []string{"after", "before"} {
		v := r.URL.Query().Get(name)
		if v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil || !expiresOnPattern.MatchString(v) {
			badRequest(w, "%s must be an ISO 8601 UTC date with milliseconds.", name)
			return nil, false
		}
		bounds[i] = t
	}
	after, before := bounds[0], bounds[1]
	return func(t time.Time) bool {
		return (after.IsZero() || t.After(after)) && (before.IsZero() || t.Before(before))
	}, true
}

func (f *Fake) getChat(w http.ResponseWriter, r *http.Request, c *chat) {
	out := renderChat(c)
	out["lastMessage"] = nil
	if len(c.messages) > 0 {
		out["lastMessage"] = renderMessage(c, c.messages[len(c.messages)-1])
	}
	writeJSON(w, http.StatusOK, out)
}

// listMessages lists a chat's messages, the newest first.
func (f *Fake) listMessages(w http.ResponseWriter, r *http.Request, c *chat) {
	in, ok := window(w, r)
	if !ok {
		return
	}
	msgs := newestFirst(c.messages, func(m *message) bool { return in(m.at) })
	answerList(f, w, r, "MessageList", msgs, 250, func(m *message) any { return renderMessage(c, m) })
}

// listAttendees lists a 1:1 chat's two members, the seat's owner marked is_self.
func (f *Fake) listAttendees(w http.ResponseWriter, r *http.Request, c *chat) {
	a := f.st.account(c.accountID)
	items := []any{renderAttendee(c.accountID, f.st.people[c.attendee], false), renderAttendee(c.accountID, &a.Owner, true)}
	writeJSON(w, http.StatusOK, map[string]any{"object": "ChatAttendeeList", "items": items})
}
