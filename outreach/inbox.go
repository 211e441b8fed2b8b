package outreach

import (
	"context"
	"sort"
	"sync"
	"unicode/utf8"
)

// The inbox: the live conversations of an organization's seats, read from the LinkedIn provider
// at call time and merged in one order, whoever shows them (GET /inbox, the application's
// Inbox), and a reply a person writes there.

const (
	// InboxSeats is how many of an organization's connected seats an inbox reads: the first five.
	InboxSeats = 5
	// InboxCampaignScan is how many recent chats per seat an inbox of campaign people reads
	// before it keeps only campaign people, so that strangers at the top of an inbox do not
	// crowd them out.
	InboxCampaignScan = 500
	// MaxBlockReason is the longest reason a block takes, in characters.
	MaxBlockReason = 500
)

// CheckBlockReason refuses a block reason longer than MaxBlockReason.
func CheckBlockReason(reason string) error {
	if n := utf8.RuneCountInString(reason); n > MaxBlockReason {
		return Invalidf("reason must be at most %d characters, got %d", MaxBlockReason, n)
	}
	return nil
}

// InboxChat is one conversation of an organization's inbox: a chat and the seat it is on.
type InboxChat struct {
	AccountID string // ours (the seat's id in the service)
	Chat      Chat
}

// ChatLister reads one seat's chats, most recent first (limit <= 0: all).
type ChatLister func(ctx context.Context, providerAccountID string, limit int) ([]Chat, error)

// InboxSeat is a seat whose inbox is read: its id (ours) and the provider's.
type InboxSeat struct {
	ID                string // ours (linkedin_accounts.id), what the API shows as account_id
	ProviderAccountID string // the provider's, what the LinkedIn adapter is asked about
}

// ReadInboxes reads the chats of every seat at once and merges them: most recent message first,
// chats without a message last, ties by chat id. It reads every seat or fails: when a seat's read
// fails it returns that seat's id (ours) and the error, never a silently partial inbox. It does
// no I/O of its own; list does.
func ReadInboxes(ctx context.Context, list ChatLister, seats []InboxSeat, perAccount int) ([]InboxChat, string, error) {
	lists := make([][]Chat, len(seats))
	errs := make([]error, len(seats))
	var wg sync.WaitGroup
	for i := range seats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i], errs[i] = list(ctx, seats[i].ProviderAccountID, perAccount)
		}()
	}
	wg.Wait()
	var out []InboxChat
	for i, seat := range seats {
		if errs[i] != nil {
			return nil, seat.ID, errs[i]
		}
		for _, c := range lists[i] {
			out = append(out, InboxChat{AccountID: seat.ID, Chat: c})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Chat.LastMessage, out[j].Chat.LastMessage
		switch {
		case a == nil || b == nil:
			return a != nil && b == nil
		case !a.At.Equal(b.At):
			return a.At.After(b.At)
		}
		return out[i].Chat.ID < out[j].Chat.ID
	})
	return out, "", nil
}

// ReplyRequest is a reply a person wrote themselves in a conversation of the inbox, sent at once
// through the same path as an approved draft.
type ReplyRequest struct {
	OrgID  string
	ChatID string // ours (a chat the engine recorded)
	Text   string
	// Actor names who wrote it ("user:usr_…"); it is recorded with the reply.
	Actor string
}
