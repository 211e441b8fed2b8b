package unipile

import (
	"context"
	"fmt"
	"strings"

	"outreachd/outreach"
)

// The actions a seat takes on LinkedIn. None of them retries: a call whose answer was lost
// comes back as ErrProviderUnavailable with ErrOutcomeUnknown, and the engine looks (Relation,
// Messages) before it sends again, so that nobody gets the same invitation or message twice.

// SendInvite sends a connection request with an optional note (at most 300 characters as
// Unipile counts them) to the person's member id and returns the invitation's id, which
// withdrawing it needs.
func (p *Provider) SendInvite(ctx context.Context, accountID string, ref outreach.ProfileRef, note string) (string, error) {
	if n := NoteLength(note); n > MaxNoteLength {
		return "", fmt.Errorf("note of %d characters: %w", n, outreach.ErrNoteTooLong)
	}
	member, err := p.member(ctx, accountID, ref)
	if err != nil {
		return "", err
	}
	id, err := p.c.Invite(ctx, accountID, member, note)
	if err != nil {
		return "", p.portError(ctx, accountID, opInvite, err)
	}
	return id, nil
}

// WithdrawInvite withdraws the pending invitation inviteID to the person; with no id it looks
// the person's pending invitation up among the seat's sent ones. ErrNoPendingInvite when there
// is none.
func (p *Provider) WithdrawInvite(ctx context.Context, accountID, inviteID string, ref outreach.ProfileRef) error {
	if inviteID == "" {
		member, err := p.member(ctx, accountID, ref)
		if err != nil {
			return err
		}
		inv, found, err := p.pendingInvitation(ctx, accountID, member)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%s: %w", member, outreach.ErrNoPendingInvite)
		}
		inviteID = inv.ID
	}
	if err := p.c.CancelInvitation(ctx, accountID, inviteID); err != nil {
		return p.portError(ctx, accountID, opWithdraw, err)
	}
	return nil
}

// pendingInvitation finds the seat's pending invitation to a member among its sent ones.
func (p *Provider) pendingInvitation(ctx context.Context, accountID, member string) (SentInvitation, bool, error) {
	for inv, err := range p.sentInvitations(ctx, accountID) {
		if err != nil {
			return SentInvitation{}, false, p.portError(ctx, accountID, opRead, err)
		}
		if inv.InvitedUserID == member {
			return inv, true, nil
		}
	}
	return SentInvitation{}, false, nil
}

// SendMessage writes text into a chat (chatOrProfile is a chat id), or to a connection (a lead
// key "in:<handle>" / "id:<member id>", or a member id) in the seat's one-to-one chat with
// them, which Unipile opens when there is none. It returns the chat's id and the message's id
// ("" when Unipile did not know it yet).
func (p *Provider) SendMessage(ctx context.Context, accountID, chatOrProfile, text string) (string, string, error) {
	if strings.TrimSpace(text) == "" {
		return "", "", outreach.ErrEmptyMessage
	}
	if !isPersonRef(chatOrProfile) {
		id, err := p.c.SendMessage(ctx, chatOrProfile, text)
		if err != nil {
			return "", "", p.portError(ctx, accountID, opChat, err)
		}
		return chatOrProfile, id, nil
	}
	member, err := p.member(ctx, accountID, outreach.ProfileRef{ProfileKey: chatOrProfile})
	if err != nil {
		return "", "", err
	}
	started, err := p.c.StartChat(ctx, accountID, []string{member}, text)
	if err != nil {
		return "", "", p.portError(ctx, accountID, opMessage, err)
	}
	return started.ChatID, started.MessageID, nil
}

// isPersonRef tells a person (a lead key or a member id) from a chat id: Unipile's chat ids
// are neither.
func isPersonRef(s string) bool {
	return strings.HasPrefix(s, "in:") || strings.HasPrefix(s, "id:") || isMemberID(s)
}
