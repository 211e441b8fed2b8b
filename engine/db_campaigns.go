package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// engineCampaign is what the sequencer needs of a campaign; schedule and sequence are the
// stored JSON, which the engine parses with outreach.ParseSchedule / ParseSequence.
type engineCampaign struct {
	ID           string
	OrgID        string
	Name         string
	Status       string
	OutreachType string
	DailyLimit   int
	Schedule     []byte
	Sequence     []byte
	AccountIDs   []string
}

const engineCampaignColumns = `id, org_id, name, status, outreach_type, daily_limit, schedule, sequence, account_ids`

func scanEngineCampaign(row pgx.Row) (engineCampaign, error) {
	var c engineCampaign
	err := row.Scan(&c.ID, &c.OrgID, &c.Name, &c.Status, &c.OutreachType, &c.DailyLimit, &c.Schedule, &c.Sequence, &c.AccountIDs)
	return c, err
}

// getEngineCampaign reads one campaign for the engine.
func getEngineCampaign(ctx context.Context, q storage.Querier, id string) (engineCampaign, error) {
	c, err := scanEngineCampaign(q.QueryRow(ctx, `SELECT `+engineCampaignColumns+` FROM campaigns WHERE id = $1`, id))
	return c, storage.NotFound(err, "campaign "+id)
}

// admitProspects puts accepted leads of active campaigns that are not yet in their sequence at
// its start: status active, first step due now (plus the first step's delay when that step is
// the connection request or an inbound first message). It returns how many it admitted.
func admitProspects(ctx context.Context, q storage.Querier, now time.Time) (int, error) {
	// The active campaigns are read first and passed as an array: joined in one statement, the
	// planner estimated thousands of admissible rows per campaign and scanned every prospect of
	// every campaign, a large share of the database's CPU under push load; with explicit ids it
	// walks the prospects_admit index, generic plan included (docs/performance.md, "The API push
	// path").
	var active []string
	if err := q.QueryRow(ctx, `SELECT coalesce(array_agg(id), '{}') FROM campaigns WHERE status = 'active'`).Scan(&active); err != nil {
		return 0, fmt.Errorf("admit prospects: active campaigns: %w", err)
	}
	if len(active) == 0 {
		return 0, nil
	}
	var n int
	err := q.QueryRow(ctx, `WITH admitted AS (
		UPDATE prospects p SET status = 'active', updated_at = now(),
			next_step_at = $1::timestamptz + make_interval(days => CASE
				WHEN c.outreach_type = 'inbound' OR c.sequence->0->>'type' = 'connect'
				THEN coalesce((c.sequence->0->>'delay_days')::int, 0) ELSE 0 END)
		FROM campaigns c
		WHERE c.id = p.campaign_id AND c.status = 'active' AND p.campaign_id = ANY($2)
		  AND p.next_step_at IS NULL AND p.filter_verdict = 'accepted' AND p.status IN ('pending', 'active')
		  AND p.sequence_ended_at IS NULL AND p.invited_at IS NULL AND p.connected_at IS NULL
		  AND p.paused_at IS NULL AND p.outcome_lost_at IS NULL AND p.booked_at IS NULL
		RETURNING p.campaign_id, p.next_step_at),
	lowered AS (
		UPDATE campaigns c SET engine_next_at = LEAST(coalesce(c.engine_next_at, a.first), a.first)
		FROM (SELECT campaign_id, min(next_step_at) AS first FROM admitted GROUP BY campaign_id) a
		WHERE c.id = a.campaign_id RETURNING 1)
	SELECT (SELECT count(*) FROM admitted) + 0 * (SELECT count(*) FROM lowered)`, now, active).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("admit prospects: %w", err)
	}
	return n, nil
}

// claimCampaigns leases up to limit active campaigns the sequencer should look at now
// (engine_next_at due or unset) to owner for lease (wall clock). A campaign leased by another
// instance is skipped, so two instances never work one campaign at once.
func claimCampaigns(ctx context.Context, q storage.Querier, owner string, now time.Time, limit int, lease time.Duration) ([]engineCampaign, error) {
	rows, err := q.Query(ctx, `UPDATE campaigns SET engine_lease_owner = $1,
			engine_lease_until = now() + make_interval(secs => $4)
		WHERE id IN (SELECT id FROM campaigns
			WHERE status = 'active' AND (engine_next_at IS NULL OR engine_next_at <= $2)
			  AND (engine_lease_until IS NULL OR engine_lease_until < now())
			ORDER BY engine_next_at NULLS FIRST, id LIMIT $3 FOR UPDATE SKIP LOCKED)
		RETURNING `+engineCampaignColumns, owner, now, limit, lease.Seconds())
	if err != nil {
		return nil, fmt.Errorf("claim campaigns: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (engineCampaign, error) { return scanEngineCampaign(r) })
}

// releaseCampaign ends owner's lease and sets when to look again: the earliest due step of the
// campaign, but not before notBefore (the next sending window), and fallback when nothing is
// scheduled (so new work is found even if nobody lowered engine_next_at).
func releaseCampaign(ctx context.Context, q storage.Querier, id, owner string, notBefore, fallback time.Time) error {
	_, err := q.Exec(ctx, `UPDATE campaigns SET engine_lease_owner = NULL, engine_lease_until = NULL,
		engine_next_at = GREATEST($3::timestamptz, coalesce((SELECT next_step_at FROM prospects
			WHERE campaign_id = $1 AND next_step_at IS NOT NULL ORDER BY campaign_id, next_step_at LIMIT 1), $4::timestamptz))
		WHERE id = $1 AND engine_lease_owner = $2`, id, owner, notBefore, fallback)
	return err
}

// lowerCampaignNext makes the sequencer look at a campaign no later than at.
func lowerCampaignNext(ctx context.Context, tx pgx.Tx, campaignID string, at time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE campaigns SET engine_next_at = LEAST(coalesce(engine_next_at, $2), $2) WHERE id = $1`,
		campaignID, at)
	return err
}

// campaignSendsSinceMany counts, per campaign, the sequence's sends (invites and sequence
// messages) since that campaign's own moment (its local midnight): what the daily limit caps.
// One statement per batch of leased campaigns.
func campaignSendsSinceMany(ctx context.Context, q storage.Querier, ids []string, since []time.Time) (map[string]int, error) {
	rows, err := q.Query(ctx, `SELECT c.id, (SELECT count(*) FROM activities a WHERE a.campaign_id = c.id
			AND a.step IS NOT NULL AND a.at >= c.since AND a.kind IN ('invite_sent', 'message_sent'))
		FROM unnest($1::text[], $2::timestamptz[]) AS c(id, since)`, ids, since)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(ids))
	var id string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&id, &n}, func() error {
		out[id] = n
		return nil
	})
	return out, err
}

// dueProspectIDs lists prospects of a campaign whose next step is due, earliest first. The
// ORDER BY names the campaign so the planner walks the (campaign_id, next_step_at) index
// rather than the global next_step_at one, which would read other campaigns' rows first.
func dueProspectIDs(ctx context.Context, q storage.Querier, campaignID string, now time.Time, limit int) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT id FROM prospects WHERE campaign_id = $1 AND next_step_at <= $2
		ORDER BY campaign_id, next_step_at LIMIT $3`, campaignID, now, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// completeCampaignIfDone moves an active campaign whose every prospect is done (rejected,
// sequence ended, lost, booked, opted out or completed) to completed and emits
// campaign_completed with its stats, in one transaction under the campaign's row lock, so a
// lead pushed at the same moment either lands before the check or finds the campaign closed.
func completeCampaignIfDone(ctx context.Context, st Store, campaignID string, now time.Time) (bool, error) {
	done := false
	err := st.InTx(ctx, func(tx *storage.Tx) error {
		var orgID, name, status string
		if err := tx.QueryRow(ctx, `SELECT org_id, name, status FROM campaigns WHERE id = $1 FOR UPDATE`, campaignID).
			Scan(&orgID, &name, &status); err != nil {
			return storage.NotFound(err, "campaign "+campaignID)
		}
		if status != string(outreach.CampaignActive) {
			return nil
		}
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM prospects WHERE campaign_id = $1)
			AND NOT EXISTS (SELECT 1 FROM prospects WHERE campaign_id = $1 AND filter_verdict <> 'rejected'
				AND sequence_ended_at IS NULL AND outcome_lost_at IS NULL AND booked_at IS NULL
				AND status NOT IN ('opted_out', 'completed'))`, campaignID).Scan(&done); err != nil || !done {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE campaigns SET status = 'completed', completed_at = $2, updated_at = now(),
			engine_next_at = NULL WHERE id = $1`, campaignID, now); err != nil {
			return err
		}
		stats, err := campaignStats(ctx, tx, orgID, campaignID)
		if err != nil {
			return err
		}
		tx.Emit(outreach.NewCampaignEvent(outreach.EventCampaignCompleted, orgID, campaignID, name, stats, now))
		return nil
	})
	return done, err
}

// campaignStats is a campaign's lifetime totals as of tx.
func campaignStats(ctx context.Context, tx *storage.Tx, orgID, campaignID string) (outreach.CampaignStats, error) {
	return storage.CampaignStats(ctx, tx, orgID, campaignID)
}
