package engine

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// chatRecord is one message the engine records: sent by us or received from a person.
// The chat's id is the provider's chat id, which is also what GET /inbox shows.
type chatRecord struct {
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

// recordChatMessage upserts the chat and appends the message. It returns the chat id and
// whether replies in it were stopped (POST /inbox/stop or /inbox/block, on this chat or, before
// it existed, on the person's prospect rows).
func recordChatMessage(ctx context.Context, tx pgx.Tx, m chatRecord) (string, bool, error) {
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
		m.ProviderChatID, m.OrgID, m.AccountID, nullable(m.LeadKey), m.ProspectID, m.AttendeeName, m.AttendeeProviderID,
		m.FromMe, m.Text, m.At).Scan(&id, &stopped)
	if err != nil {
		return "", false, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO messages (org_id, chat_id, prospect_id, from_me, text, sentiment, provider_message_id, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, m.OrgID, id, m.ProspectID, m.FromMe, m.Text, m.Sentiment,
		nullable(m.ProviderMessageID), m.At)
	return id, stopped, err
}

// replyDraft is a drafted answer to a person's message.
type replyDraft struct {
	ID         string
	OrgID      string
	ProspectID *string
	ChatID     string
	Text       string
	AutoSendAt *time.Time // set when the guardrails let it through and the engine sends it
	Author     *string    // who wrote it ("user:<id>"); nil for the drafter's
}

// insertDraft stores a draft as pending.
func insertDraft(ctx context.Context, tx pgx.Tx, d replyDraft) error {
	_, err := tx.Exec(ctx, `INSERT INTO reply_drafts (id, org_id, prospect_id, chat_id, text, auto_send_at, author)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, d.ID, d.OrgID, d.ProspectID, d.ChatID, d.Text, d.AutoSendAt, d.Author)
	return err
}

// dueAutoDrafts lists drafts the engine should send now.
func dueAutoDrafts(ctx context.Context, q storage.Querier, now time.Time, limit int) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT id FROM reply_drafts WHERE status = 'pending' AND auto_send_at <= $1
		ORDER BY auto_send_at, id LIMIT $2`, now, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// draftToSend is a pending auto-send draft with what sending it needs.
type draftToSend struct {
	replyDraft
	AccountID         string
	ProviderAccountID string
	ProviderChatID    string
	RepliesStopped    bool
}

const draftToSendQuery = `SELECT d.id, d.org_id, d.prospect_id, d.chat_id, d.text, d.auto_send_at,
		c.account_id, a.provider_account_id, c.provider_chat_id, c.replies_stopped_at IS NOT NULL
	FROM reply_drafts d JOIN chats c ON c.id = d.chat_id JOIN linkedin_accounts a ON a.id = c.account_id
	WHERE d.id = $1`

func scanDraftToSend(row pgx.Row) (draftToSend, error) {
	var d draftToSend
	err := row.Scan(&d.ID, &d.OrgID, &d.ProspectID, &d.ChatID, &d.Text, &d.AutoSendAt, &d.AccountID, &d.ProviderAccountID,
		&d.ProviderChatID, &d.RepliesStopped)
	return d, err
}

// lockDraftToSend locks a pending auto-send draft; ok is false when it is gone or taken.
func lockDraftToSend(ctx context.Context, tx pgx.Tx, id string) (draftToSend, bool, error) {
	d, err := scanDraftToSend(tx.QueryRow(ctx, draftToSendQuery+` AND d.status = 'pending' AND d.auto_send_at IS NOT NULL
		FOR UPDATE OF d SKIP LOCKED`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return d, false, nil
	}
	return d, err == nil, err
}

// lockDraft locks a draft whatever its status (a reply sent while someone dismissed it is still
// recorded as sent).
func lockDraft(ctx context.Context, tx pgx.Tx, id string) (draftToSend, error) {
	d, err := scanDraftToSend(tx.QueryRow(ctx, draftToSendQuery+` FOR UPDATE OF d`, id))
	return d, storage.NotFound(err, "reply draft "+id)
}

// postponeDraft makes an auto-send draft due again at at.
func postponeDraft(ctx context.Context, tx pgx.Tx, id string, at time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE reply_drafts SET auto_send_at = $2 WHERE id = $1`, id, at)
	return err
}

// setDraftStatus marks a draft sent or dismissed.
func setDraftStatus(ctx context.Context, tx pgx.Tx, id, status string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE reply_drafts SET status = $2, updated_at = $3 WHERE id = $1`, id, status, now)
	return err
}

// newNeedsHuman is a new entry of the needs-human queue.
type newNeedsHuman struct {
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

// insertNeedsHuman queues an item for a person.
func insertNeedsHuman(ctx context.Context, tx pgx.Tx, n newNeedsHuman) error {
	_, err := tx.Exec(ctx, `INSERT INTO needs_human (id, org_id, campaign_id, prospect_id, chat_id, name, message,
		ai_draft, intent, reason, waiting_since, draft_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		n.ID, n.OrgID, n.CampaignID, n.ProspectID, n.ChatID, n.Name, n.Message, n.AIDraft, n.Intent, n.Reason, n.WaitingSince,
		n.DraftID)
	return err
}

// openFollowup records the sequence's next scheduled message for a prospect (stop and block
// close these), closing any earlier open one.
func openFollowup(ctx context.Context, tx pgx.Tx, orgID, prospectID string, chatID *string, due time.Time, step int) error {
	if err := closeFollowups(ctx, tx, prospectID, due); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `INSERT INTO followups (id, org_id, prospect_id, chat_id, due_at, step) VALUES ($1, $2, $3, $4, $5, $6)`,
		outreach.NewID("fup"), orgID, prospectID, chatID, due, step)
	return err
}

// closeFollowups closes a prospect's open follow-ups.
func closeFollowups(ctx context.Context, tx pgx.Tx, prospectID string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE followups SET closed_at = $2 WHERE prospect_id = $1 AND closed_at IS NULL`, prospectID, now)
	return err
}

// resolveStalls closes a prospect's open stalls: something happened in the conversation.
func resolveStalls(ctx context.Context, tx pgx.Tx, prospectID string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE stalls SET resolved_at = $2 WHERE prospect_id = $1 AND resolved_at IS NULL`, prospectID, now)
	return err
}
