package engine

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// stallCandidate is a positive replier silent since LastActivityAt with no stall recorded for
// that silence yet.
type stallCandidate struct {
	ProspectID     string
	OrgID          string
	CampaignID     string
	LastActivityAt time.Time
	ChatID         *string
}

// stallCandidates lists prospects that crossed the stall threshold (silent since before
// cutoff) and whose current silence has no stalls row: each silence stalls once. The rule is
// the one GET /stalled-leads lists by (storage's ListStalledLeads).
func stallCandidates(ctx context.Context, q storage.Querier, cutoff time.Time, limit int) ([]stallCandidate, error) {
	rows, err := q.Query(ctx, `SELECT p.id, p.org_id, p.campaign_id, p.last_activity_at, p.chat_id
		FROM prospects p
		WHERE p.sentiment = 'positive' AND p.last_activity_at < $1
		  AND p.booked_at IS NULL AND p.converted_at IS NULL AND p.outcome_lost_at IS NULL AND p.status <> 'opted_out'
		  AND NOT EXISTS (SELECT 1 FROM stalls st WHERE st.prospect_id = p.id AND st.last_activity_at = p.last_activity_at)
		ORDER BY p.last_activity_at, p.id LIMIT $2`, cutoff, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[stallCandidate])
}

// recordStall inserts the stall of one silence; false when it was recorded already (another
// instance, or the silence ended meanwhile: last_activity_at moved on).
func recordStall(ctx context.Context, tx pgx.Tx, c stallCandidate, now time.Time) (bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO stalls (id, org_id, prospect_id, campaign_id, last_activity_at, stalled_at)
		SELECT $1, $2, $3, $4, $5, $6 FROM prospects p WHERE p.id = $3 AND p.last_activity_at = $5
		ON CONFLICT (prospect_id, last_activity_at) DO NOTHING`,
		outreach.NewID("stl"), c.OrgID, c.ProspectID, c.CampaignID, c.LastActivityAt, now)
	return tag.RowsAffected() == 1, err
}

// digestOrgsDue lists organizations with at least one campaign that have no digest for day.
func digestOrgsDue(ctx context.Context, q storage.Querier, day time.Time) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT o.id FROM orgs o
		WHERE EXISTS (SELECT 1 FROM campaigns c WHERE c.org_id = o.id)
		  AND NOT EXISTS (SELECT 1 FROM digest_runs d WHERE d.org_id = o.id AND d.day = $1::date)
		ORDER BY o.id`, day.Format(time.DateOnly))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// claimDigest records that the organization's digest for day is being sent; false when some
// instance did already.
func claimDigest(ctx context.Context, tx pgx.Tx, orgID string, day, now time.Time) (bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO digest_runs (org_id, day, sent_at) VALUES ($1, $2::date, $3)
		ON CONFLICT DO NOTHING`, orgID, day.Format(time.DateOnly), now)
	return tag.RowsAffected() == 1, err
}

// contentOrgs lists organizations with a connected LinkedIn seat, and that seat's name.
func contentOrgs(ctx context.Context, q storage.Querier) ([]storage.LinkedInAccount, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT ON (org_id) `+storage.LinkedInAccountColumns+` FROM linkedin_accounts
		WHERE status <> 'disconnected' ORDER BY org_id, created_at, id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.LinkedInAccount, error) { return storage.ScanLinkedInAccount(r) })
}

// claimContentRun records one piece of simulated content; false when it exists already.
func claimContentRun(ctx context.Context, tx pgx.Tx, orgID, kind, period string, now time.Time) (bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO content_runs (org_id, kind, period, at) VALUES ($1, $2, $3, $4)
		ON CONFLICT DO NOTHING`, orgID, kind, period, now)
	return tag.RowsAffected() == 1, err
}
