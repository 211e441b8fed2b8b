package main

import (
	"context"

	"outreachd/adapters/linkedin"
	"outreachd/api"
)

// linkedinInbox lets GET /inbox read chats through the LinkedIn provider without the api
// package importing the adapter: wire it with a.apiDeps.Inbox = linkedinInbox{p: provider}.
type linkedinInbox struct{ p linkedin.Provider }

func (l linkedinInbox) ListChats(ctx context.Context, providerAccountID string, limit int) ([]api.InboxChat, error) {
	chats, err := l.p.ListChats(ctx, providerAccountID, limit)
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

var _ api.InboxReader = linkedinInbox{}
