package storage

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// ChatMessage is one message the engine records: sent by us or received from a person.
// The chat's id is the provider's chat id, which is also what GET /inbox shows.
type ChatMessage struct {
	OrgID              string
	AccountID          string // ours
	ProviderChatID     string
	LeadKey            string
	ProspectID         *string
	AttendeeName       string
	AttendeeProviderID string
	FromMe             bool
	Text               string
	Sentiment          *string
	ProviderMessageID  string
	At                 time.Time
}

// RecordChatMessage upserts the chat and appends the message. It returns the chat id and
// whether replies in it were stopped (POST /inbox/stop or /inbox/block, on this chat or, before
// it existed, on the person's prospect rows).
func (tx *Tx) RecordChatMessage(ctx context.Context, m ChatMessage) (string, bool, error) {
	var id string
	var stopped bool
	// A person stopped before this chat existed (POST /inbox/stop stamps their prospect rows)
	// gets the chat stopped from its first message.
	err := tx.QueryRow(ctx, `INSERT INTO chats (id, org_id, account_id, provider_chat_id, lead_key, prospect_id,
			attendee_name, attendee_provider_id, unread_count, last_message_text, last_message_at, last_message_from_me,
			replies_stopped_at)
		VALUES ($1, $2, $3, $1, $4, $5, $6, $7, CASE WHEN $8 THEN 0 ELSE 1 END, $9, $10, $8,
			(SELECT min(p.replies_stopped_at) FROM prospects p WHERE p.org_id = $2
				AND (p.id = $5 OR p.lead_key = $4) AND p.replies_stopped_at IS NOT NULL))
		ON CONFLICT (account_id, provider_chat_id) DO UPDATE SET
			replies_stopped_at = coalesce(chats.replies_stopped_at, excluded.replies_stopped_at),
			lead_key = coalesce(chats.lead_key, excluded.lead_key),
			prospect_id = coalesce(excluded.prospect_id, chats.prospect_id),
			attendee_name = CASE WHEN excluded.attendee_name <> '' THEN excluded.attendee_name ELSE chats.attendee_name END,
			attendee_provider_id = CASE WHEN excluded.attendee_provider_id <> '' THEN excluded.attendee_provider_id ELSE chats.attendee_provider_id END,
			unread_count = CASE WHEN $8 THEN 0 ELSE chats.unread_count + 1 END,
			last_message_text = excluded.last_message_text, last_message_at = excluded.last_message_at,
			last_message_from_me = excluded.last_message_from_me
		RETURNING id, replies_stopped_at IS NOT NULL`,
		m.ProviderChatID, m.OrgID, m.AccountID, engNullable(m.LeadKey), m.ProspectID, m.AttendeeName, m.AttendeeProviderID,
		m.FromMe, m.Text, m.At).Scan(&id, &stopped)
	if err != nil {
		return "", false, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO messages (org_id, chat_id, prospect_id, from_me, text, sentiment, provider_message_id, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, m.OrgID, id, m.ProspectID, m.FromMe, m.Text, m.Sentiment,
		engNullable(m.ProviderMessageID), m.At)
	return id, stopped, err
}

// ChatRepliesStopped reports whether replies in a chat were stopped.
func (tx *Tx) ChatRepliesStopped(ctx context.Context, chatID string) (bool, error) {
	var stopped bool
	err := tx.QueryRow(ctx, `SELECT replies_stopped_at IS NOT NULL FROM chats WHERE id = $1`, chatID).Scan(&stopped)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return stopped, err
}

// RecentTurns returns the last n messages of a chat, oldest first.
func (s *Store) RecentTurns(ctx context.Context, chatID string, n int) ([]outreach.ConversationTurn, error) {
	return recentTurns(ctx, s.pool, chatID, n)
}

// RecentTurns in a transaction sees the transaction's own messages.
func (tx *Tx) RecentTurns(ctx context.Context, chatID string, n int) ([]outreach.ConversationTurn, error) {
	return recentTurns(ctx, tx.Tx, chatID, n)
}

// querier is what pgxpool.Pool and pgx.Tx share for reading.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func recentTurns(ctx context.Context, q querier, chatID string, n int) ([]outreach.ConversationTurn, error) {
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

// ReplyDraft is a drafted answer to a person's message.
type ReplyDraft struct {
	ID         string
	OrgID      string
	ProspectID *string
	ChatID     string
	Text       string
	AutoSendAt *time.Time // set when the guardrails let it through and the engine sends it
}

// InsertDraft stores a draft as pending.
func (tx *Tx) InsertDraft(ctx context.Context, d ReplyDraft) error {
	_, err := tx.Exec(ctx, `INSERT INTO reply_drafts (id, org_id, prospect_id, chat_id, text, auto_send_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, d.ID, d.OrgID, d.ProspectID, d.ChatID, d.Text, d.AutoSendAt)
	return err
}

// DueAutoDrafts lists drafts the engine should send now.
func (s *Store) DueAutoDrafts(ctx context.Context, now time.Time, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM reply_drafts WHERE status = 'pending' AND auto_send_at <= $1
		ORDER BY auto_send_at, id LIMIT $2`, now, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// DraftToSend is a pending auto-send draft with what sending it needs.
type DraftToSend struct {
	ReplyDraft
	AccountID         string
	ProviderAccountID string
	ProviderChatID    string
	RepliesStopped    bool
}

// LockDraftToSend locks a pending auto-send draft; ok is false when it is gone or taken.
func (tx *Tx) LockDraftToSend(ctx context.Context, id string) (DraftToSend, bool, error) {
	var d DraftToSend
	err := tx.QueryRow(ctx, `SELECT d.id, d.org_id, d.prospect_id, d.chat_id, d.text, d.auto_send_at,
			c.account_id, a.provider_account_id, c.provider_chat_id, c.replies_stopped_at IS NOT NULL
		FROM reply_drafts d JOIN chats c ON c.id = d.chat_id JOIN linkedin_accounts a ON a.id = c.account_id
		WHERE d.id = $1 AND d.status = 'pending' AND d.auto_send_at IS NOT NULL FOR UPDATE OF d SKIP LOCKED`, id).
		Scan(&d.ID, &d.OrgID, &d.ProspectID, &d.ChatID, &d.Text, &d.AutoSendAt, &d.AccountID, &d.ProviderAccountID,
			&d.ProviderChatID, &d.RepliesStopped)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, false, nil
	}
	return d, err == nil, err
}

// SetDraftStatus marks a draft sent or dismissed.
func (tx *Tx) SetDraftStatus(ctx context.Context, id, status string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE reply_drafts SET status = $2, updated_at = $3 WHERE id = $1`, id, status, now)
	return err
}

// NewNeedsHuman is a new entry of the needs-human queue.
type NewNeedsHuman struct {
	ID           string
	OrgID        string
	CampaignID   *string
	ProspectID   *string
	ChatID       string
	Name         string
	Message      string
	AIDraft      string
	Intent       *string
	Reason       string
	WaitingSince time.Time
	// DraftID is the held draft a person may approve (nil when the drafter gave nothing).
	DraftID *string
}

// InsertNeedsHuman queues an item for a person.
func (tx *Tx) InsertNeedsHuman(ctx context.Context, n NewNeedsHuman) error {
	_, err := tx.Exec(ctx, `INSERT INTO needs_human (id, org_id, campaign_id, prospect_id, chat_id, name, message,
		ai_draft, intent, reason, waiting_since, draft_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		n.ID, n.OrgID, n.CampaignID, n.ProspectID, n.ChatID, n.Name, n.Message, n.AIDraft, n.Intent, n.Reason, n.WaitingSince,
		n.DraftID)
	return err
}

// OpenFollowup records the sequence's next scheduled message for a prospect (stop and block
// close these), closing any earlier open one.
func (tx *Tx) OpenFollowup(ctx context.Context, orgID, prospectID string, chatID *string, due time.Time, step int) error {
	if err := tx.CloseFollowups(ctx, prospectID, due); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `INSERT INTO followups (id, org_id, prospect_id, chat_id, due_at, step) VALUES ($1, $2, $3, $4, $5, $6)`,
		outreach.NewID("fup"), orgID, prospectID, chatID, due, step)
	return err
}

// CloseFollowups closes a prospect's open follow-ups.
func (tx *Tx) CloseFollowups(ctx context.Context, prospectID string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE followups SET closed_at = $2 WHERE prospect_id = $1 AND closed_at IS NULL`, prospectID, now)
	return err
}

// ResolveStalls closes a prospect's open stalls: something happened in the conversation.
func (tx *Tx) ResolveStalls(ctx context.Context, prospectID string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE stalls SET resolved_at = $2 WHERE prospect_id = $1 AND resolved_at IS NULL`, prospectID, now)
	return err
}
