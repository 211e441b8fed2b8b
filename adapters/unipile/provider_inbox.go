package unipile

import (
	"context"
	"sync"

	"outreachd/outreach"
)

// inboxWorkers bounds the calls one inbox read makes at once for the chats' details.
const inboxWorkers = 8

// ListChats reads a seat's chats live, the most recent activity first, at most limit (<= 0:
// as many as MaxPages pages hold): what GET /inbox shows. Unipile's chat list carries neither
// the last message nor, for most one-to-one chats, the other member's name, so the first
// InboxDetails chats get one more call for the last message and, when the chat has no name,
// one for its attendees; later chats come without a last message, and a name only when the
// chat has one.
func (p *Provider) ListChats(ctx context.Context, accountID string, limit int) ([]outreach.Chat, error) {
	var chats []Chat
	for ch, err := range All(ctx, p.cfg.MaxPages, func(ctx context.Context, cursor string) (Page[Chat], error) {
		size := 100
		if limit > 0 {
			size = min(size, limit-len(chats))
		}
		return p.c.ListChats(ctx, accountID, ChatListOptions{ListOptions: ListOptions{Limit: size, Cursor: cursor}})
	}) {
		if err != nil {
			return nil, p.portError(ctx, accountID, opRead, err)
		}
		chats = append(chats, ch)
		if limit > 0 && len(chats) >= limit {
			break
		}
	}
	out := make([]outreach.Chat, len(chats))
	for i, ch := range chats {
		out[i] = outreach.Chat{ID: ch.ID, AccountID: accountID, AttendeeName: ch.Name,
			AttendeeProviderID: ch.AttendeeProviderID, UnreadCount: ch.UnreadCount}
	}
	if err := p.chatDetails(ctx, accountID, chats, out); err != nil {
		return nil, err
	}
	return out, nil
}

// chatDetails fills the last message and the other member's name of the first InboxDetails
// chats, inboxWorkers calls at a time; the first failure is returned.
func (p *Provider) chatDetails(ctx context.Context, accountID string, chats []Chat, out []outreach.Chat) error {
	n := min(len(chats), p.cfg.InboxDetails)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
		next  = make(chan int)
	)
	for range min(n, inboxWorkers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := p.chatDetail(ctx, accountID, chats[i], &out[i]); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	return first
}

// chatDetail reads one chat's last message and, when the chat has no name, its attendees.
func (p *Provider) chatDetail(ctx context.Context, accountID string, ch Chat, out *outreach.Chat) error {
	if ctx.Err() != nil {
		return nil
	}
	last, err := p.c.ListMessages(ctx, ch.ID, MessageListOptions{ListOptions: ListOptions{Limit: 1}})
	if err != nil {
		return p.portError(ctx, accountID, opChat, err)
	}
	if len(last.Items) > 0 {
		m := chatMessage(last.Items[0])
		out.LastMessage = &m
	}
	if out.AttendeeName != "" {
		return nil
	}
	attendees, err := p.c.ListChatAttendees(ctx, ch.ID)
	if err != nil {
		return p.portError(ctx, accountID, opChat, err)
	}
	for _, a := range attendees {
		if !a.IsSelf && (ch.AttendeeProviderID == "" || a.ProviderID == ch.AttendeeProviderID) {
			out.AttendeeName = a.Name
			break
		}
	}
	return nil
}
