package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// Report sources and states (provider_reports).
const (
	reportFromProvider = "provider"
	reportFromOperator = "operator"

	reportNew       = "new"
	reportForwarded = "forwarded"
	reportHandled   = "handled"
	reportFailed    = "failed"
)

// reportRow is one row of the report inbox: a fact LinkedIn reported, or an operator's
// stand-in for one.
type reportRow struct {
	ID                int64
	Source            string
	Provider          string
	ProviderSeq       int64
	Kind              outreach.LinkedInReportKind
	OrgID             string
	AccountID         string // ours, when known
	ProviderAccountID string
	ProspectID        string // operator rows name the prospect
	ProfileKey        string
	ProviderID        string
	AttendeeName      string
	ChatID            string // the provider's chat id
	MessageID         string
	Text              string
	CooldownHours     int
	CooldownUntil     *time.Time // nil: At plus CooldownHours (cooldownEnd)
	At                time.Time
	State             string
	Result            map[string]any
	Error             string
}

const reportColumns = `id, source, coalesce(provider, ''), coalesce(provider_seq, 0), kind, coalesce(org_id, ''),
	coalesce(account_id, ''), coalesce(provider_account_id, ''), coalesce(prospect_id, ''), coalesce(profile_key, ''),
	coalesce(provider_id, ''), coalesce(attendee_name, ''), coalesce(chat_id, ''), coalesce(message_id, ''),
	coalesce(text, ''), coalesce(cooldown_hours, 0), cooldown_until, at, state, result, coalesce(error, '')`

func scanReport(row pgx.Row) (reportRow, error) {
	var r reportRow
	err := row.Scan(&r.ID, &r.Source, &r.Provider, &r.ProviderSeq, &r.Kind, &r.OrgID, &r.AccountID, &r.ProviderAccountID,
		&r.ProspectID, &r.ProfileKey, &r.ProviderID, &r.AttendeeName, &r.ChatID, &r.MessageID, &r.Text, &r.CooldownHours,
		&r.CooldownUntil, &r.At, &r.State, &r.Result, &r.Error)
	return r, err
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// providerCursor returns how far the named provider's report sequence has been polled (0 = never).
func providerCursor(ctx context.Context, q storage.Querier, provider string) (int64, error) {
	var seq int64
	err := q.QueryRow(ctx, `SELECT seq FROM provider_cursors WHERE provider = $1`, provider).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return seq, err
}

// appendProviderReports stores polled reports and moves the cursor in one transaction; a
// report already stored (same provider and seq) is skipped, so re-polling is harmless.
func appendProviderReports(ctx context.Context, st Store, provider string, cursor int64, reports []reportRow) error {
	return st.InTx(ctx, func(tx *storage.Tx) error {
		batch := &pgx.Batch{}
		for _, r := range reports {
			batch.Queue(`INSERT INTO provider_reports (source, provider, provider_seq, kind, provider_account_id,
				profile_key, provider_id, attendee_name, chat_id, message_id, text, cooldown_hours, cooldown_until, at)
				VALUES ('provider', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
				ON CONFLICT (provider, provider_seq) DO NOTHING`,
				provider, r.ProviderSeq, r.Kind, r.ProviderAccountID, nullable(r.ProfileKey), nullable(r.ProviderID),
				nullable(r.AttendeeName), nullable(r.ChatID), nullable(r.MessageID), nullable(r.Text),
				r.CooldownHours, r.CooldownUntil, r.At)
		}
		batch.Queue(`INSERT INTO provider_cursors (provider, seq) VALUES ($1, $2)
			ON CONFLICT (provider) DO UPDATE SET seq = GREATEST(provider_cursors.seq, excluded.seq), updated_at = now()`,
			provider, cursor)
		return tx.SendBatch(ctx, batch).Close()
	})
}

// insertOperatorReport queues an operator's report (admin simulate ...) and returns its id.
func insertOperatorReport(ctx context.Context, q storage.Querier, r reportRow) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `INSERT INTO provider_reports (source, kind, org_id, account_id, provider_account_id,
		prospect_id, profile_key, provider_id, attendee_name, text, cooldown_hours, at)
		VALUES ('operator', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
		r.Kind, nullable(r.OrgID), nullable(r.AccountID), nullable(r.ProviderAccountID), nullable(r.ProspectID),
		nullable(r.ProfileKey), nullable(r.ProviderID), nullable(r.AttendeeName), nullable(r.Text),
		r.CooldownHours, r.At).Scan(&id)
	return id, err
}

// newReportIDs lists up to limit unhandled reports of source ("" for any), oldest first; a
// report of the seat's own message waits until it is grace old (applySeatMessage).
func newReportIDs(ctx context.Context, q storage.Querier, source string, limit int, grace time.Duration) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT id FROM provider_reports WHERE state = 'new' AND ($1 = '' OR source = $1)
		AND (kind <> 'seat_messaged' OR created_at <= now() - make_interval(secs => $3))
		ORDER BY id LIMIT $2`, source, limit, grace.Seconds())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// getReport reads one report.
func getReport(ctx context.Context, q storage.Querier, id int64) (reportRow, error) {
	r, err := scanReport(q.QueryRow(ctx, `SELECT `+reportColumns+` FROM provider_reports WHERE id = $1`, id))
	return r, storage.NotFound(err, fmt.Sprintf("report %d", id))
}

// claimReport locks an unhandled report for this transaction; ok is false when it is handled
// already or another transaction holds it.
func claimReport(ctx context.Context, tx pgx.Tx, id int64) (reportRow, bool, error) {
	r, err := scanReport(tx.QueryRow(ctx, `SELECT `+reportColumns+` FROM provider_reports
		WHERE id = $1 AND state = 'new' FOR UPDATE SKIP LOCKED`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, err
}

// finishReport records how a report ended.
func finishReport(ctx context.Context, tx pgx.Tx, id int64, state string, result map[string]any, errText string, now time.Time) error {
	var raw []byte
	if result != nil {
		var err error
		if raw, err = json.Marshal(result); err != nil {
			return err
		}
	}
	_, err := tx.Exec(ctx, `UPDATE provider_reports SET state = $2, result = $3, error = $4, handled_at = $5 WHERE id = $1`,
		id, state, raw, nullable(errText), now)
	return err
}

// heartbeat says the serving engine instance id is alive (wall clock) and where its clock
// stands.
func heartbeat(ctx context.Context, q storage.Querier, id string, clockAt time.Time, speed float64) error {
	_, err := q.Exec(ctx, `INSERT INTO engine_instances (id, seen_at, clock_at, speed) VALUES ($1, now(), $2, $3)
		ON CONFLICT (id) DO UPDATE SET seen_at = now(), clock_at = $2, speed = $3`, id, clockAt, speed)
	return err
}

// ServingClock extrapolates the engine clock of the most recently seen serving instance to now;
// ok is false when no instance ever ran.
func ServingClock(ctx context.Context, q storage.Querier) (time.Time, bool, error) {
	var t time.Time
	err := q.QueryRow(ctx, `SELECT clock_at + (now() - seen_at) * speed FROM engine_instances
		ORDER BY seen_at DESC LIMIT 1`).Scan(&t)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, false, nil
	}
	return t, err == nil, err
}

// EngineNow is the engine's time for a process that runs no engine (the operator CLI): the
// serving instance's clock extrapolated to now, or the wall clock when none ever ran.
func EngineNow(ctx context.Context, q storage.Querier) time.Time {
	if t, ok, err := ServingClock(ctx, q); err == nil && ok {
		return t
	}
	return time.Now()
}

// gone removes an instance that is shutting down.
func gone(ctx context.Context, q storage.Querier, id string) error {
	_, err := q.Exec(ctx, `DELETE FROM engine_instances WHERE id = $1`, id)
	return err
}

// servingAlive reports whether some serving engine said it was alive within d.
func servingAlive(ctx context.Context, q storage.Querier, d time.Duration) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM engine_instances WHERE seen_at > now() - make_interval(secs => $1))`,
		d.Seconds()).Scan(&ok)
	return ok, err
}

// ErrNoAccount is returned when an organization has no LinkedIn seat to act from.
var ErrNoAccount = outreach.Invalidf("no LinkedIn account connected (run admin account connect)")
