package engine

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/storage"
)

// engineProspect is a prospect with where it stands in its sequence.
type engineProspect struct {
	storage.Prospect
	AccountID      *string
	ChatID         *string
	NextStepAt     *time.Time
	InvitedAt      *time.Time
	ConnectedAt    *time.Time
	RepliedAt      *time.Time
	Sentiment      *string
	PausedAt       *time.Time
	BookingStartAt *time.Time
	WithdrawnAt    *time.Time
	InviteID       *string // the provider's id of the invitation sent, to withdraw it by
	// PausedNextStepAt is when the next step was due when the prospect was stopped (POST
	// /inbox/stop), for an undo.
	PausedNextStepAt *time.Time
	MemberID         *string // the member id a profile look-up found
}

const engineProspectExtra = `, account_id, chat_id, next_step_at, invited_at, connected_at, replied_at, sentiment,
	paused_at, booking_start_at, withdrawn_at, invite_id, paused_next_step_at, member_id`

// engExtraRow scans storage.ProspectColumns through storage.ScanProspect and the engine's
// columns after them.
type engExtraRow struct {
	row   pgx.Row
	extra []any
}

func (r engExtraRow) Scan(dest ...any) error { return r.row.Scan(append(dest, r.extra...)...) }

func scanEngineProspect(row pgx.Row) (engineProspect, error) {
	var p engineProspect
	base, err := storage.ScanProspect(engExtraRow{row: row, extra: []any{&p.AccountID, &p.ChatID, &p.NextStepAt, &p.InvitedAt,
		&p.ConnectedAt, &p.RepliedAt, &p.Sentiment, &p.PausedAt, &p.BookingStartAt, &p.WithdrawnAt, &p.InviteID,
		&p.PausedNextStepAt, &p.MemberID}})
	p.Prospect = base
	return p, err
}

// lockEngineProspect reads a prospect and locks its row for this transaction.
func lockEngineProspect(ctx context.Context, tx pgx.Tx, id string) (engineProspect, error) {
	p, err := scanEngineProspect(tx.QueryRow(ctx, `SELECT `+storage.ProspectColumns+engineProspectExtra+`
		FROM prospects WHERE id = $1 FOR UPDATE`, id))
	return p, storage.NotFound(err, "prospect "+id)
}

// getEngineProspect reads a prospect without locking it.
func getEngineProspect(ctx context.Context, q storage.Querier, id string) (engineProspect, error) {
	p, err := scanEngineProspect(q.QueryRow(ctx, `SELECT `+storage.ProspectColumns+engineProspectExtra+`
		FROM prospects WHERE id = $1`, id))
	return p, storage.NotFound(err, "prospect "+id)
}

// findReportProspect finds and locks the campaign prospect a LinkedIn report about leadKey
// concerns: one contacted from that seat first, then any contacted one, then any, newest
// first. ok is false for a person in none of the organization's campaigns.
func findReportProspect(ctx context.Context, tx pgx.Tx, orgID, leadKey, accountID string) (engineProspect, bool, error) {
	p, err := scanEngineProspect(tx.QueryRow(ctx, `SELECT `+storage.ProspectColumns+engineProspectExtra+`
		FROM prospects WHERE org_id = $1 AND lead_key = $2
		ORDER BY (account_id IS NOT DISTINCT FROM $3) DESC, contacted DESC, created_at DESC, id DESC LIMIT 1 FOR UPDATE`,
		orgID, leadKey, accountID))
	if errors.Is(err, pgx.ErrNoRows) {
		return p, false, nil
	}
	return p, err == nil, err
}

// saveEngineProspect writes back the engine-managed columns of a prospect read with
// lockEngineProspect or findReportProspect (the caller holds the row lock).
func saveEngineProspect(ctx context.Context, tx pgx.Tx, p engineProspect) error {
	_, err := tx.Exec(ctx, `UPDATE prospects SET status = $2, current_step = $3, contacted = $4, account_id = $5,
		chat_id = $6, next_step_at = $7, invited_at = $8, connected_at = $9, replied_at = $10, sentiment = $11,
		sequence_ended_at = $12, last_activity_at = $13, booking_start_at = $14, booked_at = $15, withdrawn_at = $16,
		invite_id = $17, paused_next_step_at = $18, member_id = $19, public_identifier = $20, updated_at = now()
		WHERE id = $1`, p.ID, p.Status, p.CurrentStep, p.Contacted, p.AccountID, p.ChatID, p.NextStepAt, p.InvitedAt,
		p.ConnectedAt, p.RepliedAt, p.Sentiment, p.SequenceEndedAt, p.LastActivityAt, p.BookingStartAt, p.BookedAt,
		p.WithdrawnAt, p.InviteID, p.PausedNextStepAt, p.MemberID, p.PublicIdentifier)
	return err
}

// prospectBlacklisted re-checks a prospect against the organization's do-not-contact list:
// its profile key, its company page and its company name.
func prospectBlacklisted(ctx context.Context, tx pgx.Tx, p storage.Prospect) (bool, error) {
	company := p.Person.CompanyBlacklistKeys()
	var hit bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM blacklist WHERE org_id = $1
		AND ((type = 'account' AND key = $2) OR (type = 'company' AND key = ANY($3))))`,
		p.OrgID, p.LeadKey, company).Scan(&hit)
	return hit, err
}

// activity is one countable fact of the activity log (what analytics and the digest sum).
type activity struct {
	OrgID      string
	CampaignID *string
	ProspectID *string
	AccountID  *string
	Kind       string
	Sentiment  *string
	Step       *int // the sequence step of a send; nil outside the sequence
	At         time.Time
}

// insertActivity appends to the activity log.
func insertActivity(ctx context.Context, tx pgx.Tx, a activity) error {
	_, err := tx.Exec(ctx, `INSERT INTO activities (org_id, campaign_id, prospect_id, account_id, kind, sentiment, step, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, a.OrgID, a.CampaignID, a.ProspectID, a.AccountID, a.Kind, a.Sentiment, a.Step, a.At)
	return err
}

// takenBookingSlots lists the start times already booked on a seat between from and to.
func takenBookingSlots(ctx context.Context, tx pgx.Tx, accountID string, from, to time.Time) ([]time.Time, error) {
	rows, err := tx.Query(ctx, `SELECT booking_start_at FROM prospects WHERE account_id = $1
		AND booking_start_at >= $2 AND booking_start_at < $3`, accountID, from, to)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[time.Time])
}
