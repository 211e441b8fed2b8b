package unipile_test

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"outreachd/adapters/unipile"
)

const (
	messageBody = `{"account_id":"acc1","account_type":"LINKEDIN","event":"message_received","chat_id":"chat1",
"timestamp":"2023-09-24T13:49:07.965Z","webhook_name":"wh","message_id":"msg1","message":"Hello World !",
"sender":{"attendee_id":"att1","attendee_name":"Kim","attendee_provider_id":"ACoAAkim","attendee_profile_url":"https://www.linkedin.com/in/ACoAAkim/"},
"attendees":[{"attendee_id":"att2","attendee_name":"Bastien","attendee_provider_id":"ACoAAbas","attendee_profile_url":"u"}],
"attachments":{"id":"a1","size":{"height":"150","width":"150"},"sticker":"false","type":"img"}}`
	relationBody = `{"event":"new_relation","account_id":"acc1","account_type":"LINKEDIN","webhook_name":"wh",
"user_full_name":"Ada Lovelace","user_provider_id":"ACoAAada","user_public_identifier":"ada","user_profile_url":"u","user_picture_url":"p"}`
	statusBody   = `{"AccountStatus":{"account_id":"acc1","account_type":"LINKEDIN","message":"CREDENTIALS"}}`
	callbackBody = `{"status":"CREATION_SUCCESS","account_id":"acc9","name":"link-42"}`
)

func TestParseWebhook(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		kind       unipile.EventKind
		eventName  string
		err        error
	}{
		{"message", messageBody, unipile.EventMessageReceived, "message_received", nil},
		{"message without text", `{"event":"message_received","account_id":"a","chat_id":"c","message_id":"m","message":null,"sender":{"attendee_provider_id":"p"}}`, unipile.EventMessageReceived, "message_received", nil},
		{"relation", relationBody, unipile.EventNewRelation, "new_relation", nil},
		{"account status", statusBody, unipile.EventAccountStatus, "CREDENTIALS", nil},
		{"hosted call-back", callbackBody, unipile.EventAccountCallback, "CREATION_SUCCESS", nil},
		{"other messaging event", `{"event":"message_reaction","account_id":"a","reaction":"x"}`, unipile.EventUnknown, "message_reaction", nil},
		{"a future event", `{"event":"post_liked","whatever":[1,2,3]}`, unipile.EventUnknown, "post_liked", nil},
		{"an object of no known shape", `{"hello":"world"}`, unipile.EventUnknown, "", nil},
		{"surrounding spaces", " \n" + relationBody + "\n ", unipile.EventNewRelation, "new_relation", nil},

		{"empty", ``, "", "", unipile.ErrWebhookMalformed},
		{"not JSON", `account_id=acc1&event=new_relation`, "", "", unipile.ErrWebhookMalformed},
		{"an array", `[` + relationBody + `]`, "", "", unipile.ErrWebhookMalformed},
		{"null", `null`, "", "", unipile.ErrWebhookMalformed},
		{"two objects", relationBody + relationBody, "", "", unipile.ErrWebhookMalformed},
		{"event not a string", `{"event":5}`, "", "", unipile.ErrWebhookMalformed},
		{"relation without the member", `{"event":"new_relation","account_id":"a","user_provider_id":"  "}`, "", "", unipile.ErrWebhookMalformed},
		{"relation with a number id", `{"event":"new_relation","account_id":"a","user_provider_id":7}`, "", "", unipile.ErrWebhookMalformed},
		{"message without sender", `{"event":"message_received","account_id":"a","chat_id":"c","message_id":"m"}`, "", "", unipile.ErrWebhookMalformed},
		{"message with a list for sender", `{"event":"message_received","account_id":"a","chat_id":"c","message_id":"m","sender":[]}`, "", "", unipile.ErrWebhookMalformed},
		{"message text a number", `{"event":"message_received","account_id":"a","chat_id":"c","message_id":"m","message":1,"sender":{"attendee_provider_id":"p"}}`, "", "", unipile.ErrWebhookMalformed},
		{"status not an object", `{"AccountStatus":"OK"}`, "", "", unipile.ErrWebhookMalformed},
		{"status without account", `{"AccountStatus":{"message":"OK"}}`, "", "", unipile.ErrWebhookMalformed},
		{"call-back without account", `{"status":"CREATION_SUCCESS","account_id":""}`, "", "", unipile.ErrWebhookMalformed},
		{"too large", `{"event":"new_relation","pad":"` + strings.Repeat("x", 1100) + `"}`, "", "", unipile.ErrWebhookTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := unipile.ParseWebhook(strings.NewReader(tc.body), 1024)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind != tc.kind || ev.Name != tc.eventName {
				t.Fatalf("kind %q name %q, want %q %q", ev.Kind, ev.Name, tc.kind, tc.eventName)
			}
		})
	}
}

func TestParseWebhookFields(t *testing.T) {
	ev, err := unipile.ParseWebhook(strings.NewReader(messageBody), 4096)
	if err != nil {
		t.Fatal(err)
	}
	m := ev.Message
	if m.AccountID != "acc1" || m.ChatID != "chat1" || m.MessageID != "msg1" || m.Text != "Hello World !" || m.WebhookName != "wh" ||
		m.Sender.Name != "Kim" || m.Sender.ID != "att1" || len(m.Attendees) != 1 || m.Attendees[0].ProviderID != "ACoAAbas" {
		t.Fatalf("message = %+v", m)
	}
	if !m.FromSeat("ACoAAkim") || m.FromSeat("ACoAAbas") || m.FromSeat("") {
		t.Fatal("FromSeat does not compare the sender with the owner")
	}
	if at, ok := m.At(); !ok || at.UnixMilli() != 1695563347965 {
		t.Fatalf("At = %v %v", at, ok)
	}
	ev, err = unipile.ParseWebhook(strings.NewReader(relationBody), 4096)
	if err != nil || ev.Relation.UserFullName != "Ada Lovelace" || ev.Relation.UserPublicIdentifier != "ada" || ev.Relation.UserProviderID != "ACoAAada" {
		t.Fatalf("relation = %+v, %v", ev.Relation, err)
	}
	ev, err = unipile.ParseWebhook(strings.NewReader(callbackBody), 4096)
	if err != nil || ev.Callback.Name != "link-42" || ev.Callback.AccountID != "acc9" {
		t.Fatalf("call-back = %+v, %v", ev.Callback, err)
	}
	if _, err := unipile.ParseWebhook(strings.NewReader(relationBody), 0); err == nil {
		t.Fatal("a zero limit was accepted")
	}
	if _, err := unipile.ParseWebhook(iotest.ErrReader(errors.New("boom")), 10); err == nil || errors.Is(err, unipile.ErrWebhookMalformed) {
		t.Fatalf("a read error = %v", err)
	}
}

// FuzzParseWebhook: whatever arrives, the parser does not panic, fails only with its two
// errors, and what it accepts carries the fields its kind promises.
func FuzzParseWebhook(f *testing.F) {
	for _, seed := range []string{messageBody, relationBody, statusBody, callbackBody, `{"event":"x"}`, `{}`, `[]`, `{"AccountStatus":{}}`, `{"status":1,"account_id":2}`, "\xff\xfe"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := unipile.ParseWebhook(strings.NewReader(string(body)), 2048)
		if err != nil {
			if !errors.Is(err, unipile.ErrWebhookMalformed) && !errors.Is(err, unipile.ErrWebhookTooLarge) {
				t.Fatalf("unexpected error %v", err)
			}
			if ev != (unipile.Event{}) {
				t.Fatalf("an error came with an event: %+v", ev)
			}
			return
		}
		if len(body) > 2048 {
			t.Fatalf("a %d-byte body passed the 2048-byte limit", len(body))
		}
		set := 0
		for _, p := range []bool{ev.Message != nil, ev.Relation != nil, ev.Status != nil, ev.Callback != nil} {
			if p {
				set++
			}
		}
		switch ev.Kind {
		case unipile.EventMessageReceived:
			ok(t, set == 1 && ev.Message != nil && ev.Message.AccountID != "" && ev.Message.ChatID != "" && ev.Message.MessageID != "" && ev.Message.Sender.ProviderID != "", ev)
		case unipile.EventNewRelation:
			ok(t, set == 1 && ev.Relation != nil && ev.Relation.AccountID != "" && ev.Relation.UserProviderID != "", ev)
		case unipile.EventAccountStatus:
			ok(t, set == 1 && ev.Status != nil && ev.Status.AccountID != "" && ev.Status.Message != "", ev)
		case unipile.EventAccountCallback:
			ok(t, set == 1 && ev.Callback != nil && ev.Callback.AccountID != "" && ev.Callback.Status != "", ev)
		case unipile.EventUnknown:
			ok(t, set == 0, ev)
		default:
			t.Fatalf("kind %q", ev.Kind)
		}
	})
}

func ok(t *testing.T, cond bool, ev unipile.Event) {
	t.Helper()
	if !cond {
		t.Fatalf("event breaks its kind's promise: %+v", ev)
	}
}
