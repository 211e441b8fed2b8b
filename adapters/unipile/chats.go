package unipile

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Chat is one conversation of a seat.
type Chat struct {
	ID                 string    `json:"id"`
	AccountID          string    `json:"account_id"`
	AccountType        string    `json:"account_type"`
	ProviderID         string    `json:"provider_id"`          // LinkedIn's id of the conversation
	AttendeeProviderID string    `json:"attendee_provider_id"` // the other member of a 1:1 chat
	Name               string    `json:"name"`                 // often empty for a 1:1 chat: see ListChatAttendees
	Type               int       `json:"type"`                 // 0 one-to-one, 1 group, 2 channel
	Timestamp          Timestamp `json:"timestamp"`            // the last activity
	UnreadCount        int       `json:"unread_count"`
	Archived           Flag      `json:"archived"`
	ReadOnly           int       `json:"read_only"`
	ContentType        string    `json:"content_type"` // "inmail", "sponsored", … or ""
	// LastMessage is filled by GetChat only.
	LastMessage *Message `json:"lastMessage"`
}

// Message is one message of a chat.
type Message struct {
	ID               string    `json:"id"`
	AccountID        string    `json:"account_id"`
	ChatID           string    `json:"chat_id"`
	ChatProviderID   string    `json:"chat_provider_id"`
	ProviderID       string    `json:"provider_id"`
	SenderID         string    `json:"sender_id"` // the sender's member id
	SenderAttendeeID string    `json:"sender_attendee_id"`
	Text             string    `json:"text"`
	Timestamp        Timestamp `json:"timestamp"`
	// IsSender is true for a message the seat's owner sent (through the API or by hand).
	IsSender    Flag              `json:"is_sender"`
	Seen        Flag              `json:"seen"`
	Hidden      Flag              `json:"hidden"`
	Deleted     Flag              `json:"deleted"`
	IsEvent     Flag              `json:"is_event"`
	Attachments []json.RawMessage `json:"attachments"`
}

// ChatListOptions selects and pages a seat's chats.
type ChatListOptions struct {
	ListOptions
	// After and Before keep chats whose last activity is inside the window; zero: no bound.
	After, Before time.Time
	// Unread, when set, keeps only unread (true) or read (false) chats.
	Unread *bool
}

// ListChats lists one page of a seat's chats, the most recent activity first.
func (c *Client) ListChats(ctx context.Context, accountID string, opts ChatListOptions) (Page[Chat], error) {
	if err := required("list chats", "account id", accountID); err != nil {
		return Page[Chat]{}, err
	}
	q := window(opts.ListOptions.query(url.Values{"account_id": {accountID}}), opts.After, opts.Before)
	if opts.Unread != nil {
		q.Set("unread", strconv.FormatBool(*opts.Unread))
	}
	return list[Chat](ctx, c, call{method: http.MethodGet, path: "/chats", query: q, object: "ChatList"})
}

// window adds after/before bounds to a list query.
func window(q url.Values, after, before time.Time) url.Values {
	if !after.IsZero() {
		q.Set("after", FormatTime(after))
	}
	if !before.IsZero() {
		q.Set("before", FormatTime(before))
	}
	return q
}

// GetChat reads one chat with its last message.
func (c *Client) GetChat(ctx context.Context, chatID string) (Chat, error) {
	if err := required("get chat", "chat id", chatID); err != nil {
		return Chat{}, err
	}
	var ch Chat
	err := c.do(ctx, call{method: http.MethodGet, path: pathOf("chats", chatID), object: "Chat"}, &ch)
	return ch, err
}

// MessageListOptions selects and pages a chat's messages.
type MessageListOptions struct {
	ListOptions
	After, Before time.Time
}

// ListMessages lists one page of a chat's messages, the newest first.
func (c *Client) ListMessages(ctx context.Context, chatID string, opts MessageListOptions) (Page[Message], error) {
	if err := required("list messages", "chat id", chatID); err != nil {
		return Page[Message]{}, err
	}
	q := window(opts.ListOptions.query(nil), opts.After, opts.Before)
	return list[Message](ctx, c, call{method: http.MethodGet, path: pathOf("chats", chatID, "messages"), query: q, object: "MessageList"})
}

// ChatAttendee is a member taking part in a chat; the seat's owner is one (IsSelf).
type ChatAttendee struct {
	ID         string `json:"id"`
	AccountID  string `json:"account_id"`
	ProviderID string `json:"provider_id"`
	Name       string `json:"name"`
	IsSelf     Flag   `json:"is_self"`
	PictureURL string `json:"picture_url"`
	ProfileURL string `json:"profile_url"`
}

// ListChatAttendees lists a chat's attendees (one answer, no paging).
func (c *Client) ListChatAttendees(ctx context.Context, chatID string) ([]ChatAttendee, error) {
	if err := required("list chat attendees", "chat id", chatID); err != nil {
		return nil, err
	}
	p, err := list[ChatAttendee](ctx, c, call{method: http.MethodGet, path: pathOf("chats", chatID, "attendees"), object: "ChatAttendeeList"})
	return p.Items, err
}

// StartedChat is what starting a chat answers.
type StartedChat struct {
	ChatID    string `json:"chat_id"`
	MessageID string `json:"message_id"` // may be empty: Unipile does not always know it yet
}

func (s *StartedChat) check() error {
	return (&idAnswer{field: "chat_id", id: s.ChatID}).check()
}

// StartChat writes text to members of the seat's network, in a new chat or the 1:1 chat it
// already has with them. Unipile takes this as a multipart form, attendees_ids repeated per
// member; a member who is not a 1st-degree connection fails with ClassNotConnected.
func (c *Client) StartChat(ctx context.Context, accountID string, attendeeProviderIDs []string, text string) (StartedChat, error) {
	if err := required("start chat", "account id", accountID, "text", text); err != nil {
		return StartedChat{}, err
	}
	if len(attendeeProviderIDs) == 0 {
		return StartedChat{}, required("start chat", "an attendee", "")
	}
	form := []formField{{"account_id", accountID}, {"text", text}}
	for _, id := range attendeeProviderIDs {
		if err := required("start chat", "attendee id", id); err != nil {
			return StartedChat{}, err
		}
		form = append(form, formField{"attendees_ids", id})
	}
	var s StartedChat
	err := c.do(ctx, call{method: http.MethodPost, path: "/chats", form: form, object: "ChatStarted"}, &s)
	return s, err
}

// SendMessage writes text into an existing chat (a multipart form, like StartChat) and
// returns the new message's id, which may be empty when Unipile does not know it yet.
func (c *Client) SendMessage(ctx context.Context, chatID, text string) (string, error) {
	if err := required("send message", "chat id", chatID, "text", text); err != nil {
		return "", err
	}
	var a struct {
		MessageID string `json:"message_id"`
	}
	err := c.do(ctx, call{method: http.MethodPost, path: pathOf("chats", chatID, "messages"), form: []formField{{"text", text}}, object: "MessageSent"}, &a)
	return a.MessageID, err
}
