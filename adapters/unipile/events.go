package unipile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Errors of ParseWebhook.
var (
	// ErrWebhookTooLarge is a body over the caller's limit (answer 413).
	ErrWebhookTooLarge = errors.New("unipile: webhook body too large")
	// ErrWebhookMalformed is a body that is not one JSON object, or a known event with a
	// field of the wrong type or a required field missing (answer 400).
	ErrWebhookMalformed = errors.New("unipile: malformed webhook body")
)

// EventKind is what a body Unipile sent says happened.
type EventKind string

const (
	// EventMessageReceived: a message in one of the seat's chats, from the other member or
	// from the seat itself (see MessageEvent.FromSeat).
	EventMessageReceived EventKind = "message_received"
	// EventNewRelation: a member accepted the seat's invitation (can arrive hours late).
	EventNewRelation EventKind = "new_relation"
	// EventAccountStatus: an account's status changed ({"AccountStatus": …}).
	EventAccountStatus EventKind = "account_status"
	// EventAccountCallback: a hosted sign-in link's notify_url call ({status, account_id,
	// name}).
	EventAccountCallback EventKind = "account_callback"
	// EventUnknown: a well-formed JSON object of a kind this package does not know (another
	// messaging event, a future one). Store it and ignore it; it is not an error.
	EventUnknown EventKind = "unknown"
)

// Event is one parsed webhook body: Kind says which of the pointers is set (none for
// EventUnknown).
type Event struct {
	Kind EventKind
	// Name is the event as the body names it ("message_read", "CREDENTIALS", …), for logs.
	Name     string
	Message  *MessageEvent
	Relation *RelationEvent
	Status   *AccountStatusEvent
	Callback *AccountCallback
}

// Attendee is a member in a message event.
type Attendee struct {
	ID         string `json:"attendee_id"`
	Name       string `json:"attendee_name"`
	ProviderID string `json:"attendee_provider_id"` // the member id
	ProfileURL string `json:"attendee_profile_url"`
}

// MessageEvent is a message_received body.
type MessageEvent struct {
	AccountID   string     `json:"account_id"`
	AccountType string     `json:"account_type"`
	WebhookName string     `json:"webhook_name"`
	ChatID      string     `json:"chat_id"`
	MessageID   string     `json:"message_id"`
	Text        string     `json:"message"`
	Timestamp   string     `json:"timestamp"`
	Sender      Attendee   `json:"sender"`
	Attendees   []Attendee `json:"attendees"`
}

// FromSeat reports whether the seat itself wrote the message (Unipile reports the seat's own
// messages too, sent through the API or by hand on LinkedIn): the sender is the owner, whose
// member id is Account.OwnerID.
func (m MessageEvent) FromSeat(ownerID string) bool {
	return ownerID != "" && m.Sender.ProviderID == ownerID
}

// At is the message's time; false when the body gave none that could be read.
func (m MessageEvent) At() (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, m.Timestamp)
	return t, err == nil
}

// RelationEvent is a new_relation body: who accepted.
type RelationEvent struct {
	AccountID            string `json:"account_id"`
	AccountType          string `json:"account_type"`
	WebhookName          string `json:"webhook_name"`
	UserFullName         string `json:"user_full_name"`
	UserProviderID       string `json:"user_provider_id"`
	UserPublicIdentifier string `json:"user_public_identifier"`
	UserProfileURL       string `json:"user_profile_url"`
	UserPictureURL       string `json:"user_picture_url"`
}

// AccountStatusEvent is the inside of an {"AccountStatus": …} body. Message is OK, ERROR,
// STOPPED, CREDENTIALS, CONNECTING, DELETED, CREATION_SUCCESS, RECONNECTED, SYNC_SUCCESS, or a
// status Unipile adds later.
type AccountStatusEvent struct {
	AccountID   string `json:"account_id"`
	AccountType string `json:"account_type"`
	Message     string `json:"message"`
}

// AccountCallback is the call Unipile makes to a hosted sign-in link's notify_url. Status is
// CREATION_SUCCESS or RECONNECTED; Name is the name the link was made with.
type AccountCallback struct {
	Status    string `json:"status"`
	AccountID string `json:"account_id"`
	Name      string `json:"name"`
}

// ParseWebhook reads one body Unipile sent (a webhook or a hosted sign-in call-back) and
// says what it is. The body is hostile until parsed: at most maxBytes are read (more is
// ErrWebhookTooLarge), it must be exactly one JSON object, and a known event must have its
// fields of the documented types and its identifying fields present (else
// ErrWebhookMalformed). Unipile sends no JSON Content-Type by default, so none is expected.
func ParseWebhook(body io.Reader, maxBytes int64) (Event, error) {
	if maxBytes <= 0 {
		return Event{}, fmt.Errorf("unipile: parse webhook: limit %d must be positive", maxBytes)
	}
	raw, err := io.ReadAll(io.LimitReader(body, maxBytes+1))
	if err != nil {
		return Event{}, fmt.Errorf("unipile: read webhook: %w", err)
	}
	if int64(len(raw)) > maxBytes {
		return Event{}, fmt.Errorf("%w: over %d bytes", ErrWebhookTooLarge, maxBytes)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return Event{}, malformed("not a JSON object", err)
	}
	if inner, ok := top["AccountStatus"]; ok {
		var s AccountStatusEvent
		if err := decodeEvent(inner, &s, func() []string { return []string{"account_id", s.AccountID, "message", s.Message} }); err != nil {
			return Event{}, err
		}
		return Event{Kind: EventAccountStatus, Name: s.Message, Status: &s}, nil
	}
	if rawName, ok := top["event"]; ok {
		var name string
		if err := json.Unmarshal(rawName, &name); err != nil {
			return Event{}, malformed("event is not a string", err)
		}
		switch name {
		case string(EventMessageReceived):
			var m MessageEvent
			if err := decodeEvent(raw, &m, func() []string {
				return []string{"account_id", m.AccountID, "chat_id", m.ChatID, "message_id", m.MessageID, "sender.attendee_provider_id", m.Sender.ProviderID}
			}); err != nil {
				return Event{}, err
			}
			return Event{Kind: EventMessageReceived, Name: name, Message: &m}, nil
		case string(EventNewRelation):
			var r RelationEvent
			if err := decodeEvent(raw, &r, func() []string { return []string{"account_id", r.AccountID, "user_provider_id", r.UserProviderID} }); err != nil {
				return Event{}, err
			}
			return Event{Kind: EventNewRelation, Name: name, Relation: &r}, nil
		}
		return Event{Kind: EventUnknown, Name: name}, nil
	}
	_, hasStatus := top["status"]
	_, hasAccount := top["account_id"]
	if hasStatus && hasAccount {
		var c AccountCallback
		if err := decodeEvent(raw, &c, func() []string { return []string{"status", c.Status, "account_id", c.AccountID} }); err != nil {
			return Event{}, err
		}
		return Event{Kind: EventAccountCallback, Name: c.Status, Callback: &c}, nil
	}
	return Event{Kind: EventUnknown}, nil
}

// decodeEvent decodes raw into v, then requires the fields that identify the event (name,
// value pairs that required reads after decoding) to be non-blank.
func decodeEvent(raw json.RawMessage, v any, required func() []string) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return malformed("a field has the wrong type", err)
	}
	kv := required()
	for i := 0; i+1 < len(kv); i += 2 {
		if strings.TrimSpace(kv[i+1]) == "" {
			return malformed(kv[i]+" is missing", nil)
		}
	}
	return nil
}

func malformed(why string, err error) error {
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrWebhookMalformed, why, err)
	}
	return fmt.Errorf("%w: %s", ErrWebhookMalformed, why)
}
