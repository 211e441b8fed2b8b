package engine

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// The LinkedIn actions (linkedin_actions): each one recorded as started before its call and
// finished after it, so that what a crash or a lost answer left open is checked with the
// provider before it is tried again. Sequence actions are unique per prospect, kind and step,
// replies per draft, so no two instances start the same one.

// Action states.
const (
	actStarted = "started"
	actUnknown = "unknown"
	actDone    = "done"
	actFailed  = "failed"
)

// action is one row of linkedin_actions.
type action struct {
	ID         string
	OrgID      string
	AccountID  string
	ProspectID *string
	DraftID    *string
	Kind       string
	Step       int
	TextHash   *string
	State      string
	StartedAt  time.Time // engine time
	Attempts   int
	Stale      bool // started or unknown, and past its lease: nobody is carrying it out
}

const actionColumns = `id, org_id, account_id, prospect_id, draft_id, kind, step, text_hash, state, started_at, attempts,
	lease_until < now()`

func scanAction(row pgx.Row) (action, error) {
	var a action
	err := row.Scan(&a.ID, &a.OrgID, &a.AccountID, &a.ProspectID, &a.DraftID, &a.Kind, &a.Step, &a.TextHash, &a.State,
		&a.StartedAt, &a.Attempts, &a.Stale)
	return a, err
}

// findAction locks the action a names (its prospect, kind and step, or its draft); ok is false
// when there is none. Profile views are never looked for: each is its own.
func findAction(ctx context.Context, tx pgx.Tx, a action) (action, bool, error) {
	var row pgx.Row
	if a.Kind == actReply {
		row = tx.QueryRow(ctx, `SELECT `+actionColumns+` FROM linkedin_actions WHERE draft_id = $1 AND kind = 'reply' FOR UPDATE`, a.DraftID)
	} else {
		row = tx.QueryRow(ctx, `SELECT `+actionColumns+` FROM linkedin_actions WHERE prospect_id = $1 AND kind = $2 AND step = $3
			AND kind IN ('invite', 'message', 'withdraw') FOR UPDATE`, a.ProspectID, a.Kind, a.Step)
	}
	got, err := scanAction(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return got, false, nil
	}
	return got, err == nil, err
}

// startAction records the intent of a (state started, leased for lease of wall-clock time):
// a new row, or the row of an earlier attempt that surely failed, taken again.
func startAction(ctx context.Context, tx pgx.Tx, a action, again bool, lease time.Duration) (action, error) {
	if again {
		return scanAction(tx.QueryRow(ctx, `UPDATE linkedin_actions SET state = 'started', account_id = $2, text_hash = $3,
			started_at = $4, lease_until = now() + make_interval(secs => $5), attempts = attempts + 1, finished_at = NULL,
			error = NULL WHERE id = $1 AND state = 'failed' RETURNING `+actionColumns,
			a.ID, a.AccountID, a.TextHash, a.StartedAt, lease.Seconds()))
	}
	return scanAction(tx.QueryRow(ctx, `INSERT INTO linkedin_actions (id, org_id, account_id, prospect_id, draft_id, kind, step,
			text_hash, started_at, lease_until)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10)) RETURNING `+actionColumns,
		outreach.NewID("act"), a.OrgID, a.AccountID, a.ProspectID, a.DraftID, a.Kind, a.Step, a.TextHash, a.StartedAt,
		lease.Seconds()))
}

// reclaimAction takes an action nobody is carrying out (stale) to check its outcome with the
// provider: state unknown, a new lease and attempt number, so one instance checks it.
func reclaimAction(ctx context.Context, tx pgx.Tx, id string, lease time.Duration) (action, error) {
	return scanAction(tx.QueryRow(ctx, `UPDATE linkedin_actions SET state = 'unknown', attempts = attempts + 1,
		lease_until = now() + make_interval(secs => $2) WHERE id = $1 RETURNING `+actionColumns, id, lease.Seconds()))
}

// actionEnd is how an attempt ended.
type actionEnd struct {
	State     string
	At        time.Time // engine time
	InviteID  string
	ChatID    string
	MessageID string
	Error     string
}

// finishAction records how attempt of action id ended, if that attempt is still the action's
// (an instance that outlived its lease lost the action to the one that checked it): ok is false
// otherwise, and nothing is written. An unknown outcome is left past its lease, to be checked
// at the next look.
func finishAction(ctx context.Context, tx pgx.Tx, id string, attempt int, end actionEnd) (bool, error) {
	tag, err := tx.Exec(ctx, `UPDATE linkedin_actions SET state = $3, finished_at = $4,
			invite_id = coalesce($5, invite_id), chat_id = coalesce($6, chat_id), message_id = coalesce($7, message_id),
			error = $8, lease_until = CASE WHEN $3 = 'unknown' THEN now() ELSE lease_until END
		WHERE id = $1 AND attempts = $2 AND state IN ('started', 'unknown')`,
		id, attempt, end.State, end.At, nullable(end.InviteID), nullable(end.ChatID), nullable(end.MessageID), nullable(end.Error))
	return tag.RowsAffected() == 1, err
}

// openActionsOutOfSequence lists prospects (with their campaign) that hold a sequence action
// left open past its lease (its answer lost, or its instance dead) and are no longer due, so
// no step will come back to it: a stop or block landed meanwhile.
func openActionsOutOfSequence(ctx context.Context, q storage.Querier, limit int) ([][2]string, error) {
	rows, err := q.Query(ctx, `SELECT p.id, p.campaign_id FROM linkedin_actions a JOIN prospects p ON p.id = a.prospect_id
		WHERE a.state IN ('started', 'unknown') AND a.lease_until < now() AND a.kind IN ('invite', 'message', 'withdraw')
		  AND p.next_step_at IS NULL
		ORDER BY a.lease_until LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
		var out [2]string
		return out, r.Scan(&out[0], &out[1])
	})
}

// closeStaleViews closes the profile views an instance started and did not live to finish: a
// look-up changes nothing on LinkedIn, so there is nothing to check; it may have happened, so it
// stays counted (done).
func closeStaleViews(ctx context.Context, q storage.Querier, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE linkedin_actions SET state = 'done', finished_at = $1,
			error = 'not finished by the instance that started it; counted'
		WHERE kind = 'profile_view' AND state IN ('started', 'unknown') AND lease_until < now()`, now)
	return err
}
