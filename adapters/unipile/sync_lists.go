package unipile

import (
	"context"
	"slices"
	"strings"
	"time"

	"outreachd/outreach"
)

// The lists one seat's reconciliation reads.

// acceptances finds the invitations accepted since the last run: the relations made after
// since, and the members whose invitation was pending at the last run and is not any more and
// who are now relations (new_relation can come hours late, or never). Unipile lists relations
// newest first, as LinkedIn's "recently added" does; the walk stops at the first relation older
// than since once every vanished invitation is accounted for, and at MaxPages at the latest. It
// returns the acceptances and the member ids of the invitations pending now.
func (s *Sync) acceptances(ctx context.Context, st outreach.SeatSync, since time.Time) ([]outreach.LinkedInReport, []string, error) {
	var pending []string
	var members []outreach.MemberHandle
	for inv, err := range s.p.sentInvitations(ctx, st.AccountID) {
		if err != nil {
			return nil, nil, err
		}
		pending = append(pending, inv.InvitedUserID)
		members = append(members, outreach.MemberHandle{MemberID: inv.InvitedUserID, PublicIdentifier: handleOf(inv.InvitedUserPublicID)})
	}
	vanished := map[string]bool{}
	for _, id := range st.Pending {
		if !slices.Contains(pending, id) {
			vanished[id] = true
		}
	}
	var found []outreach.LinkedInReport
	for rel, err := range s.p.relations(ctx, st.AccountID) {
		if err != nil {
			return nil, nil, err
		}
		recent := rel.CreatedAt().After(since)
		if !recent && len(vanished) == 0 {
			break
		}
		if !recent && !vanished[rel.MemberID] {
			continue
		}
		delete(vanished, rel.MemberID)
		handle := handleOf(rel.PublicIdentifier)
		members = append(members, outreach.MemberHandle{MemberID: rel.MemberID, PublicIdentifier: handle})
		name := strings.TrimSpace(rel.FirstName + " " + rel.LastName)
		found = append(found, acceptReport(st.AccountID, rel.MemberID, handle, name, rel.CreatedAt()))
	}
	if err := s.store.RememberMembers(ctx, members); err != nil {
		return nil, nil, err
	}
	return found, pending, nil
}

// messages finds the messages written in the seat's one-to-one chats since since: the other
// member's (replies) and the seat's own.
func (s *Sync) messages(ctx context.Context, accountID string, since time.Time) ([]outreach.LinkedInReport, error) {
	var out []outreach.LinkedInReport
	for ch, err := range All(ctx, s.p.cfg.MaxPages, func(ctx context.Context, cursor string) (Page[Chat], error) {
		return s.p.c.ListChats(ctx, accountID, ChatListOptions{ListOptions: ListOptions{Limit: 100, Cursor: cursor}, After: since})
	}) {
		if err != nil {
			return nil, err
		}
		if ch.Type != 0 || ch.AttendeeProviderID == "" {
			continue
		}
		for m, err := range All(ctx, s.p.cfg.MaxPages, func(ctx context.Context, cursor string) (Page[Message], error) {
			return s.p.c.ListMessages(ctx, ch.ID, MessageListOptions{ListOptions: ListOptions{Limit: 100, Cursor: cursor}, After: since})
		}) {
			if err != nil {
				return nil, err
			}
			if m.IsEvent || m.Deleted {
				continue
			}
			at := m.Timestamp.Time
			if at.IsZero() { // Unipile did not say when: the moment it was found
				at = s.cfg.Now()
			}
			rep, ok := messageReport(message{AccountID: accountID, ChatID: ch.ID, MessageID: m.ID, Text: m.Text, At: at,
				FromSeat: bool(m.IsSender), Member: ch.AttendeeProviderID, Name: ch.Name})
			if ok {
				out = append(out, rep)
			}
		}
	}
	return out, nil
}
