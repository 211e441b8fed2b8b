package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// Report sources and states (provider_reports).
const (
	ReportFromProvider = "provider"
	ReportFromOperator = "operator"

	ReportNew       = "new"
	ReportForwarded = "forwarded"
	ReportHandled   = "handled"
	ReportFailed    = "failed"
)

// ProviderReport is one row of the report inbox: a fact LinkedIn reported, or an operator's
// stand-in for one.
type ProviderReport struct {
	ID                int64
	Source            string
	Provider          string
	ProviderSeq       int64
	Kind              string
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
	At                time.Time
	State             string
	Result            map[string]any
	Error             string
}

const reportColumns = `id, source, coalesce(provider, ''), coalesce(provider_seq, 0), kind, coalesce(org_id, ''),
	coalesce(account_id, ''), coalesce(provider_account_id, ''), coalesce(prospect_id, ''), coalesce(profile_key, ''),
	coalesce(provider_id, ''), coalesce(attendee_name, ''), coalesce(chat_id, ''), coalesce(message_id, ''),
	coalesce(text, ''), coalesce(cooldown_hours, 0), at, state, result, coalesce(error, '')`

func scanReport(row pgx.Row) (ProviderReport, error) {
	var r ProviderReport
	err := row.Scan(&r.ID, &r.Source, &r.Provider, &r.ProviderSeq, &r.Kind, &r.OrgID, &r.AccountID, &r.ProviderAccountID,
		&r.ProspectID, &r.ProfileKey, &r.ProviderID, &r.AttendeeName, &r.ChatID, &r.MessageID, &r.Text, &r.CooldownHours,
		&r.At, &r.State, &r.Result, &r.Error)
	return r, err
}

func engNullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ProviderCursor returns how far the named provider instance has been polled (0 = never).
func (s *Store) ProviderCursor(ctx context.Context, provider string) (int64, error) {
	var seq int64
	err := s.pool.QueryRow(ctx, `SELECT seq FROM provider_cursors WHERE provider = $1`, provider).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return seq, err
}

// AppendProviderReports stores polled reports and moves the cursor in one transaction; a
// report already stored (same provider and seq) is skipped, so re-polling is harmless.
func (s *Store) AppendProviderReports(ctx context.Context, provider string, cursor int64, reports []ProviderReport) error {
	return s.InTx(ctx, func(tx *Tx) error {
		batch := &pgx.Batch{}
		for _, r := range reports {
			batch.Queue(`INSERT INTO provider_reports (source, provider, provider_seq, kind, provider_account_id,
				profile_key, provider_id, attendee_name, chat_id, message_id, text, cooldown_hours, at)
				VALUES ('provider', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
				ON CONFLICT (provider, provider_seq) DO NOTHING`,
				provider, r.ProviderSeq, r.Kind, r.ProviderAccountID, engNullable(r.ProfileKey), engNullable(r.ProviderID),
				engNullable(r.AttendeeName), engNullable(r.ChatID), engNullable(r.MessageID), engNullable(r.Text),
				r.CooldownHours, r.At)
		}
		batch.Queue(`INSERT INTO provider_cursors (provider, seq) VALUES ($1, $2)
			ON CONFLICT (provider) DO UPDATE SET seq = GREATEST(provider_cursors.seq, excluded.seq), updated_at = now()`,
			provider, cursor)
		return tx.SendBatch(ctx, batch).Close()
	})
}

// InsertOperatorReport queues an operator's report (admin simulate ...) and returns its id.
func (s *Store) InsertOperatorReport(ctx context.Context, r ProviderReport) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `INSERT INTO provider_reports (source, kind, org_id, account_id, provider_account_id,
		prospect_id, profile_key, provider_id, attendee_name, text, cooldown_hours, at)
		VALUES ('operator', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
		r.Kind, engNullable(r.OrgID), engNullable(r.AccountID), engNullable(r.ProviderAccountID), engNullable(r.ProspectID),
		engNullable(r.ProfileKey), engNullable(r.ProviderID), engNullable(r.AttendeeName), engNullable(r.Text),
		r.CooldownHours, r.At).Scan(&id)
	return id, err
}

// NewReportIDs lists up to limit unhandled reports of source ("" for any), oldest first.
func (s *Store) NewReportIDs(ctx context.Context, source string, limit int) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM provider_reports WHERE state = 'new' AND ($1 = '' OR source = $1)
		ORDER BY id LIMIT $2`, source, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// GetReport reads one report.
func (s *Store) GetReport(ctx context.Context, id int64) (ProviderReport, error) {
	r, err := scanReport(s.pool.QueryRow(ctx, `SELECT `+reportColumns+` FROM provider_reports WHERE id = $1`, id))
	return r, notFound(err, fmt.Sprintf("report %d", id))
}

// ClaimReport locks an unhandled report for this transaction; ok is false when it is handled
// already or another transaction holds it.
func (tx *Tx) ClaimReport(ctx context.Context, id int64) (ProviderReport, bool, error) {
	r, err := scanReport(tx.QueryRow(ctx, `SELECT `+reportColumns+` FROM provider_reports
		WHERE id = $1 AND state = 'new' FOR UPDATE SKIP LOCKED`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, err
}

// FinishReport records how a report ended.
func (tx *Tx) FinishReport(ctx context.Context, id int64, state string, result map[string]any, errText string, now time.Time) error {
	var raw []byte
	if result != nil {
		var err error
		if raw, err = json.Marshal(result); err != nil {
			return err
		}
	}
	_, err := tx.Exec(ctx, `UPDATE provider_reports SET state = $2, result = $3, error = $4, handled_at = $5 WHERE id = $1`,
		id, state, raw, engNullable(errText), now)
	return err
}

// EngineHeartbeat says the serving engine instance id is alive (wall clock) and where its
// clock stands.
func (s *Store) EngineHeartbeat(ctx context.Context, id string, clockAt time.Time, speed float64) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO engine_instances (id, seen_at, clock_at, speed) VALUES ($1, now(), $2, $3)
		ON CONFLICT (id) DO UPDATE SET seen_at = now(), clock_at = $2, speed = $3`, id, clockAt, speed)
	return err
}

// EngineClock extrapolates the engine clock of the most recently seen instance to now; ok is
// false when no instance ever ran.
func (s *Store) EngineClock(ctx context.Context) (time.Time, bool, error) {
	var t time.Time
	err := s.pool.QueryRow(ctx, `SELECT clock_at + (now() - seen_at) * speed FROM engine_instances
		ORDER BY seen_at DESC LIMIT 1`).Scan(&t)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, false, nil
	}
	return t, err == nil, err
}

// EngineGone removes an instance that is shutting down.
func (s *Store) EngineGone(ctx context.Context, id string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM engine_instances WHERE id = $1`, id)
	return err
}

// EngineAlive reports whether some serving engine said it was alive within d.
func (s *Store) EngineAlive(ctx context.Context, d time.Duration) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM engine_instances WHERE seen_at > now() - make_interval(secs => $1))`,
		d.Seconds()).Scan(&ok)
	return ok, err
}

// ErrNoAccount is returned when an organization has no LinkedIn seat to act from.
var ErrNoAccount = outreach.Invalidf("no LinkedIn account connected (run admin account connect)")

// Savepoint runs fn in a savepoint of tx: when fn fails only its work is rolled back (and the
// events it emitted dropped), and tx stays usable, e.g. to record the failure.
func (tx *Tx) Savepoint(ctx context.Context, fn func(*Tx) error) error {
	sp, err := tx.Tx.Begin(ctx)
	if err != nil {
		return err
	}
	inner := &Tx{Tx: sp}
	if err := fn(inner); err != nil {
		_ = sp.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if err := sp.Commit(ctx); err != nil {
		return err
	}
	tx.events = append(tx.events, inner.events...)
	return nil
}
