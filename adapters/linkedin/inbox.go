package linkedin

import (
	"context"

	"outreachd/api"
)

// ForInbox lets GET /inbox read chats live through a Provider, as api.InboxReader, without the
// api package importing this one. It is the one copy of this glue: `serve` and the API's tests
// both use it.
type ForInbox struct{ P Provider }

var _ api.InboxReader = ForInbox{}

// ListChats lists an account's chats in the API's types, most recent first.
func (l ForInbox) ListChats(ctx context.Context, providerAccountID string, limit int) ([]api.InboxChat, error) {
	chats, err := l.P.ListChats(ctx, providerAccountID, limit)
	if err != nil {
		return nil, err
	}
	out := make([]api.InboxChat, len(chats))
	for i, c := range chats {
		out[i] = api.InboxChat{ID: c.ID, AttendeeName: c.AttendeeName, AttendeeProviderID: c.AttendeeProviderID,
			ProfileKey: c.ProfileKey, UnreadCount: c.UnreadCount}
		if m := c.LastMessage; m != nil {
			out[i].LastMessage = &api.InboxMessage{Text: m.Text, At: m.At, FromMe: m.FromMe}
		}
	}
	return out, nil
}
