package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// openNeedsHuman is a needs-human item locked for a person's decision.
type openNeedsHuman struct {
	ID         string
	OrgID      string
	ProspectID *string
	ChatID     string
	AIDraft    string
	DraftID    *string
}

// lockNeedsHuman locks one open item of the organization's queue for a person's decision. An
// unknown item, or another organization's, is outreach.ErrNotFound; one already decided
// (approved or dismissed) is outreach.ErrConflict.
func lockNeedsHuman(ctx context.Context, tx pgx.Tx, orgID, id string) (openNeedsHuman, error) {
	var n openNeedsHuman
	var resolved bool
	err := tx.QueryRow(ctx, `SELECT id, org_id, prospect_id, chat_id, ai_draft, draft_id, resolved_at IS NOT NULL
		FROM needs_human WHERE id = $1 AND org_id = $2 FOR UPDATE`, id, orgID).
		Scan(&n.ID, &n.OrgID, &n.ProspectID, &n.ChatID, &n.AIDraft, &n.DraftID, &resolved)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return n, outreach.NotFound("needs-human item %s", id)
	case err != nil:
		return n, fmt.Errorf("lock needs-human item: %w", err)
	case resolved:
		return n, outreach.Conflictf("needs-human item %s was already approved or dismissed", n.ID)
	}
	return n, nil
}

// resolveNeedsHuman closes an item with its resolution ("approved", "dismissed") and who decided.
func resolveNeedsHuman(ctx context.Context, tx pgx.Tx, id, resolution, actor string, at time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE needs_human SET resolved_at = $2, resolution = $3, resolved_by = $4 WHERE id = $1`,
		id, at, resolution, actor)
	return err
}

// releaseDraft sets the text of a held draft and the time the engine's sender may take it (due);
// ok is false when the draft is no longer pending (sent or dismissed meanwhile).
func releaseDraft(ctx context.Context, tx pgx.Tx, id, text string, due, now time.Time) (bool, error) {
	tag, err := tx.Exec(ctx, `UPDATE reply_drafts SET text = $2, auto_send_at = $3, updated_at = $4
		WHERE id = $1 AND status = 'pending'`, id, text, due, now)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// draftStatus reads a draft's status (pending, sent, dismissed).
func draftStatus(ctx context.Context, q storage.Querier, id string) (string, error) {
	var st string
	err := q.QueryRow(ctx, `SELECT status FROM reply_drafts WHERE id = $1`, id).Scan(&st)
	return st, err
}
