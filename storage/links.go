package storage

import (
	"context"
	"fmt"
	"time"

	"outreachd/outreach"
)

// The keyed resources that links in event payloads point at (inbox_url, reconnect_url,
// share_url): one conversation, one LinkedIn seat, one report period.

// Conversation is one chat of an organization with its latest messages.
type Conversation struct {
	ID                 string
	AccountID          string
	AttendeeName       string
	AttendeeProviderID string
	UnreadCount        int
	RepliesStopped     bool
	ProspectID         *string
	CreatedAt          time.Time
	// Messages are the latest ones, oldest first.
	Messages []outreach.ConversationTurn
}

// GetConversation reads chat id of orgID with its last n messages; another organization's or an
// unknown chat is outreach.ErrNotFound.
func (s *Store) GetConversation(ctx context.Context, orgID, id string, n int) (Conversation, error) {
	var c Conversation
	err := s.pool.QueryRow(ctx, `SELECT id, account_id, attendee_name, attendee_provider_id, unread_count,
			replies_stopped_at IS NOT NULL, prospect_id, created_at
		FROM chats WHERE org_id = $1 AND id = $2`, orgID, id).Scan(&c.ID, &c.AccountID, &c.AttendeeName,
		&c.AttendeeProviderID, &c.UnreadCount, &c.RepliesStopped, &c.ProspectID, &c.CreatedAt)
	if err != nil {
		return Conversation{}, notFound(err, "conversation "+id)
	}
	if c.Messages, err = s.RecentTurns(ctx, id, n); err != nil {
		return Conversation{}, fmt.Errorf("conversation %s: %w", id, err)
	}
	if c.Messages == nil {
		c.Messages = []outreach.ConversationTurn{}
	}
	return c, nil
}

// GetOrgLinkedInAccount reads one seat of orgID; another organization's is outreach.ErrNotFound.
func (s *Store) GetOrgLinkedInAccount(ctx context.Context, orgID, id string) (LinkedInAccount, error) {
	a, err := scanLinkedInAccount(s.pool.QueryRow(ctx, `SELECT `+linkedInAccountColumns+`
		FROM linkedin_accounts WHERE org_id = $1 AND id = $2`, orgID, id))
	if err != nil {
		return LinkedInAccount{}, notFound(err, "account "+id)
	}
	return a, nil
}

// OrgPeriodCounts sums the organization's campaign activity counters over the UTC days
// [from, to], as the daily digest and the reports count them.
func (s *Store) OrgPeriodCounts(ctx context.Context, orgID string, from, to time.Time) (outreach.ReportStats, error) {
	var st outreach.ReportStats
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		st, err = tx.PeriodCounts(ctx, orgID, from, to)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("period counts: %w", err)
	}
	return st, nil
}
