package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// SendReply sends a reply a person wrote themselves in a conversation of the inbox, at once and
// through the same path as an approved draft: the reply is stored as a draft of theirs
// (reply_drafts.author) released for sending, and sendDraft checks stop, block and opt-out again
// right before it goes out. The answer is ApproveDraft's: sent; scheduled (the seat is busy, the
// engine sends it when it is back); or dismissed (nothing was sent: the person is stopped,
// blocked or opted out, or LinkedIn refused it). Once sent, the conversation's open needs-human
// items are answered by it: they close as "answered" by the same person, their held drafts
// dismissed, so no second answer goes out from the desk.
func (e *Engine) SendReply(ctx context.Context, r outreach.ReplyRequest) (outreach.DraftOutcome, error) {
	if e.li == nil {
		return outreach.DraftOutcome{}, ErrNoProvider
	}
	text := strings.TrimSpace(r.Text)
	if text == "" {
		return outreach.DraftOutcome{}, outreach.Invalidf("the reply is empty; write the text to send")
	}
	if n := utf8.RuneCountInString(text); n > outreach.MaxReplyText {
		return outreach.DraftOutcome{}, outreach.Invalidf("the reply is %d characters; at most %d are allowed", n, outreach.MaxReplyText)
	}
	var out outreach.DraftOutcome
	err := e.store.InTx(ctx, func(tx *storage.Tx) error {
		var prospectID *string
		err := tx.QueryRow(ctx, `SELECT prospect_id FROM chats WHERE org_id = $1 AND id = $2`, r.OrgID, r.ChatID).Scan(&prospectID)
		if errors.Is(err, pgx.ErrNoRows) {
			return outreach.NotFound("conversation %s", r.ChatID)
		}
		if err != nil {
			return err
		}
		now := e.clock.Now()
		due := now.Add(time.Duration(float64(approvalGrace) * e.cfg.ClockSpeed))
		id := outreach.NewID("drf")
		out = outreach.DraftOutcome{DraftID: id, ChatID: r.ChatID, Text: text, At: now}
		return insertDraft(ctx, tx, replyDraft{ID: id, OrgID: r.OrgID, ProspectID: prospectID, ChatID: r.ChatID,
			Text: text, AutoSendAt: &due, Author: &r.Actor})
	})
	if err != nil {
		return outreach.DraftOutcome{}, fmt.Errorf("send reply: %w", err)
	}
	if out, err = e.sendReleased(ctx, out); err != nil || out.Status != outreach.DraftSent {
		return out, err
	}
	if _, err := e.db.Exec(context.WithoutCancel(ctx), `WITH answered AS (
			UPDATE needs_human SET resolved_at = $3, resolution = 'answered', resolved_by = $4
			WHERE org_id = $1 AND chat_id = $2 AND resolved_at IS NULL RETURNING draft_id)
		UPDATE reply_drafts SET status = 'dismissed', updated_at = $3
		WHERE id IN (SELECT draft_id FROM answered) AND status = 'pending'`,
		r.OrgID, r.ChatID, out.At, r.Actor); err != nil {
		return out, fmt.Errorf("send reply: close the conversation's needs-human items: %w", err)
	}
	return out, nil
}
