package storage

import (
	"context"
	"fmt"
	"time"
)

// Undoing a stop or a block (POST /inbox/resume and /inbox/unblock, the application's Resume and
// Unblock): a resumed person's campaigns continue at the exact step where they stopped, with the
// time that was left until that step; an unblocked person may be contacted again from then on,
// while what the block ended (their sequences, dismissed drafts, closed needs-human items) stays
// ended.

// ResumeResult is what ResumePeople did for one person.
type ResumeResult struct {
	// Found is false when the person was not stopped (never, or resumed already).
	Found bool
	// SequencesResumed counts the campaign sequences that continue.
	SequencesResumed int
	// RepliesResumed is true when replies may be drafted and sent to them again (false while
	// they are on the do-not-contact list).
	RepliesResumed bool
}

// ResumePeople undoes StopPeople for every ref in one transaction. Each paused sequence whose
// prospect is still in it continues at its step: its next step is due after the time that was
// left when it stopped (paused_next_step_at - paused_at, counted from now; none for a prospect
// that had no step scheduled, which the engine then admits as it would have), the follow-ups the
// stop closed are open again and shifted by the pause, and the campaign is looked at by then.
// Replies in their conversations are drafted and sent again unless they are on the
// do-not-contact list. A sequence that ended while stopped (they replied, or were blocked) stays
// ended. now is on the engine's clock.
func (s *Store) ResumePeople(ctx context.Context, orgID string, refs []PersonRef, now time.Time) ([]ResumeResult, error) {
	out := make([]ResumeResult, len(refs))
	err := s.InTx(ctx, func(tx *Tx) error {
		for i, ref := range refs {
			tag, err := tx.Exec(ctx, `DELETE FROM person_stops WHERE org_id = $1 AND key = $2`, orgID, ref.Key)
			if err != nil {
				return fmt.Errorf("resume: %w", err)
			}
			if tag.RowsAffected() == 0 {
				continue
			}
			m, err := matchPerson(ctx, tx, orgID, ref)
			if err != nil {
				return fmt.Errorf("match person: %w", err)
			}
			r := ResumeResult{Found: true}
			if r.SequencesResumed, err = resumeSequences(ctx, tx, orgID, m.prospects, now); err != nil {
				return err
			}
			listed, err := onAccountList(ctx, tx, orgID, ref.Key)
			if err != nil {
				return err
			}
			if !listed {
				if err := liftReplyStop(ctx, tx, orgID, m); err != nil {
					return err
				}
				r.RepliesResumed = true
			}
			out[i] = r
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// resumeSequences un-pauses the prospect rows ids and returns how many sequences continue.
func resumeSequences(ctx context.Context, tx *Tx, orgID string, ids []string, now time.Time) (int, error) {
	var n int
	err := tx.QueryRow(ctx, `WITH old AS (
			SELECT id, campaign_id, paused_at, paused_next_step_at,
				sequence_ended_at IS NULL AND status NOT IN ('opted_out', 'completed') AS running
			FROM prospects WHERE org_id = $1 AND id = ANY($2) AND paused_at IS NOT NULL FOR UPDATE),
		resumed AS (
			UPDATE prospects p SET paused_at = NULL, paused_next_step_at = NULL, updated_at = $3,
				next_step_at = CASE WHEN o.running AND o.paused_next_step_at IS NOT NULL
					THEN $3::timestamptz + greatest(o.paused_next_step_at - o.paused_at, interval '0') END
			FROM old o WHERE p.id = o.id
			RETURNING p.id, p.campaign_id, p.next_step_at, o.paused_at, o.running),
		reopened AS (
			UPDATE followups f SET closed_at = NULL, due_at = f.due_at + ($3::timestamptz - r.paused_at)
			FROM resumed r WHERE r.running AND f.prospect_id = r.id AND f.closed_at = r.paused_at
			RETURNING 1),
		lowered AS (
			UPDATE campaigns c SET engine_next_at = LEAST(coalesce(c.engine_next_at, f.first), f.first)
			FROM (SELECT campaign_id, min(next_step_at) AS first FROM resumed
				WHERE next_step_at IS NOT NULL GROUP BY campaign_id) f
			WHERE c.id = f.campaign_id RETURNING 1)
		SELECT count(*) FILTER (WHERE running) + 0 * (SELECT count(*) FROM reopened) + 0 * (SELECT count(*) FROM lowered)
		FROM resumed`, orgID, ids, now).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("resume sequences: %w", err)
	}
	return n, nil
}

// liftReplyStop undoes stopReplies' marks on a person's conversations and prospect rows.
func liftReplyStop(ctx context.Context, tx *Tx, orgID string, m personMatch) error {
	if _, err := tx.Exec(ctx, `UPDATE chats SET replies_stopped_at = NULL WHERE org_id = $1 AND id = ANY($2)`,
		orgID, m.chats); err != nil {
		return fmt.Errorf("resume replies: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE prospects SET replies_stopped_at = NULL WHERE org_id = $1 AND id = ANY($2)`,
		orgID, m.prospects); err != nil {
		return fmt.Errorf("resume replies: %w", err)
	}
	return nil
}

func onAccountList(ctx context.Context, tx *Tx, orgID, key string) (bool, error) {
	var yes bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM blacklist WHERE org_id = $1 AND type = 'account' AND key = $2)`,
		orgID, key).Scan(&yes)
	if err != nil {
		return false, fmt.Errorf("do-not-contact list: %w", err)
	}
	return yes, nil
}

// UnblockResult is what UnblockPeople did for one person.
type UnblockResult struct {
	// Found is false when the person was not on the do-not-contact list.
	Found bool
	// RepliesResumed is true when replies may be drafted and sent to them again (false while
	// they are still stopped: Resume undoes that).
	RepliesResumed bool
}

// UnblockPeople takes every ref's account entry off the do-not-contact list, in one transaction,
// so they may be contacted again from then on: pushed to a campaign, answered. What the block
// ended stays ended — their sequences, dismissed drafts and closed needs-human items — and a
// person also stopped stays stopped.
func (s *Store) UnblockPeople(ctx context.Context, orgID string, refs []PersonRef) ([]UnblockResult, error) {
	out := make([]UnblockResult, len(refs))
	err := s.InTx(ctx, func(tx *Tx) error {
		for i, ref := range refs {
			r, err := unblock(ctx, tx, orgID, ref)
			if err != nil {
				return err
			}
			out[i] = r
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// unblock deletes ref's account entry and, unless the person is still stopped, lifts the reply
// stop the block put on their conversations.
func unblock(ctx context.Context, tx *Tx, orgID string, ref PersonRef) (UnblockResult, error) {
	var r UnblockResult
	tag, err := tx.Exec(ctx, `DELETE FROM blacklist WHERE org_id = $1 AND type = 'account' AND key = $2`, orgID, ref.Key)
	if err != nil {
		return r, fmt.Errorf("unblock: %w", err)
	}
	if r.Found = tag.RowsAffected() == 1; !r.Found {
		return r, nil
	}
	var stopped bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM person_stops WHERE org_id = $1 AND key = $2)`,
		orgID, ref.Key).Scan(&stopped); err != nil {
		return r, fmt.Errorf("unblock: %w", err)
	}
	if stopped {
		return r, nil
	}
	m, err := matchPerson(ctx, tx, orgID, ref)
	if err != nil {
		return r, fmt.Errorf("match person: %w", err)
	}
	r.RepliesResumed = true
	return r, liftReplyStop(ctx, tx, orgID, m)
}
