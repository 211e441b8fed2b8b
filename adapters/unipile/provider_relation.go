package unipile

import (
	"context"
	"slices"

	"outreachd/outreach"
)

// Relation says what stands between the seat and a person now, as Unipile lists it: the
// seat's pending invitation to them (its sent invitations), whether they are a connection (its
// relations) and its one-to-one chat with them (its chats). Each list is walked at most
// MaxPages pages, newest first; a list that does not end within them is an error rather than
// an answer that may be wrong, since the engine sends again on a "nothing there".
func (p *Provider) Relation(ctx context.Context, accountID string, ref outreach.ProfileRef) (outreach.SeatRelation, error) {
	member, err := p.member(ctx, accountID, ref)
	if err != nil {
		return outreach.SeatRelation{}, err
	}
	var out outreach.SeatRelation
	inv, found, err := p.pendingInvitation(ctx, accountID, member)
	if err != nil {
		return out, err
	}
	if found {
		out.InvitationID = inv.ID
	}
	for rel, err := range p.relations(ctx, accountID) {
		if err != nil {
			return out, p.portError(ctx, accountID, opRead, err)
		}
		if rel.MemberID == member {
			out.Connected = true
			break
		}
	}
	chat, found, err := p.chatWith(ctx, accountID, member)
	if err != nil {
		return out, err
	}
	if found {
		out.ChatID = chat.ID
	}
	return out, nil
}

// chatWith finds the seat's one-to-one chat with a member.
func (p *Provider) chatWith(ctx context.Context, accountID, member string) (Chat, bool, error) {
	for ch, err := range All(ctx, p.cfg.MaxPages, func(ctx context.Context, cursor string) (Page[Chat], error) {
		return p.c.ListChats(ctx, accountID, ChatListOptions{ListOptions: ListOptions{Limit: 100, Cursor: cursor}})
	}) {
		if err != nil {
			return Chat{}, false, p.portError(ctx, accountID, opRead, err)
		}
		if ch.Type == 0 && ch.AttendeeProviderID == member {
			return ch, true, nil
		}
	}
	return Chat{}, false, nil
}

// Messages returns a chat's messages, oldest first (system events and deleted messages left
// out); a message the seat wrote is FromMe, with the seat's account id as its sender.
func (p *Provider) Messages(ctx context.Context, chatID string) ([]outreach.ChatMessage, error) {
	msgs, err := Collect(ctx, p.cfg.MaxPages, func(ctx context.Context, cursor string) (Page[Message], error) {
		return p.c.ListMessages(ctx, chatID, MessageListOptions{ListOptions: ListOptions{Limit: 100, Cursor: cursor}})
	})
	if err != nil {
		return nil, p.portError(ctx, "", opChat, err)
	}
	out := make([]outreach.ChatMessage, 0, len(msgs))
	for _, m := range slices.Backward(msgs) {
		if m.IsEvent || m.Deleted {
			continue
		}
		out = append(out, chatMessage(m))
	}
	return out, nil
}

// chatMessage is a Unipile message in the port's words.
func chatMessage(m Message) outreach.ChatMessage {
	cm := outreach.ChatMessage{ID: m.ID, ChatID: m.ChatID, Text: m.Text, At: m.Timestamp.Time,
		FromMe: bool(m.IsSender), SenderID: m.SenderID}
	if cm.FromMe {
		cm.SenderID = m.AccountID
	}
	return cm
}
