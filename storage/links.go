package storage

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

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
	if c.Messages, err = RecentTurns(ctx, s.pool, id, n); err != nil {
		return Conversation{}, fmt.Errorf("conversation %s: %w", id, err)
	}
	if c.Messages == nil {
		c.Messages = []outreach.ConversationTurn{}
	}
	return c, nil
}

// GetOrgLinkedInAccount reads one seat of orgID; another organization's is outreach.ErrNotFound.
func (s *Store) GetOrgLinkedInAccount(ctx context.Context, orgID, id string) (LinkedInAccount, error) {
	a, err := ScanLinkedInAccount(s.pool.QueryRow(ctx, `SELECT `+LinkedInAccountColumns+`
		FROM linkedin_accounts WHERE org_id = $1 AND id = $2`, orgID, id))
	if err != nil {
		return LinkedInAccount{}, notFound(err, "account "+id)
	}
	return a, nil
}

// OrgPeriodCounts sums the organization's campaign activity counters over the UTC days
// [from, to], as the daily digest and the reports count them.
func (s *Store) OrgPeriodCounts(ctx context.Context, orgID string, from, to time.Time) (outreach.ReportStats, error) {
	st, err := PeriodCounts(ctx, s.pool, orgID, from, to)
	if err != nil {
		return st, fmt.Errorf("period counts: %w", err)
	}
	return st, nil
}

// PeriodCounts sums the eight daily counters of an organization's campaign activity over the
// UTC days from..to inclusive.
func PeriodCounts(ctx context.Context, q Querier, orgID string, from, to time.Time) (outreach.ReportStats, error) {
	var st outreach.ReportStats
	err := q.QueryRow(ctx, `SELECT `+activityTotalsSQL+`, coalesce(sum(invites_withdrawn), 0)
		FROM activity_daily WHERE org_id = $1 AND day >= $2::date AND day <= $3::date`,
		orgID, from.Format(time.DateOnly), to.Format(time.DateOnly)).
		Scan(append(activityTotalsDest(&st.ActivityTotals), &st.InvitesWithdrawn)...)
	return st, err
}

// RecentTurns returns the last n messages of a chat, oldest first; in a transaction it sees the
// transaction's own messages.
func RecentTurns(ctx context.Context, q Querier, chatID string, n int) ([]outreach.ConversationTurn, error) {
	rows, err := q.Query(ctx, `SELECT from_me, text, at FROM messages WHERE chat_id = $1 ORDER BY at DESC, id DESC LIMIT $2`, chatID, n)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (outreach.ConversationTurn, error) {
		var t outreach.ConversationTurn
		var at time.Time
		err := r.Scan(&t.FromMe, &t.Text, &at)
		t.At = outreach.FormatTime(at)
		return t, err
	})
	slices.Reverse(out)
	return out, err
}
