package storage

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// ProspectQuery selects prospects of one organization; empty fields do not filter.
type ProspectQuery struct {
	CampaignID string
	Status     string
	Limit      int
	Offset     int
}

// ListProspects returns one page of the organization's prospects, newest first, and how many
// match in all. A campaign of another organization simply matches nothing.
//
// The page is a deferred join: the inner query pages through the ids in an index that holds
// every column of the WHERE and the ORDER BY (prospects_{org,campaign}[_status]_created), as an
// index-only scan, so an OFFSET skips index entries, not heap rows; only the page's rows are
// then read in full. The cost of a deep page stays linear in its offset (OFFSET has no other
// meaning), but per skipped row it is an index tuple, about 3x cheaper than a heap row
// (docs/performance.md, "The API push path").
func (s *Store) ListProspects(ctx context.Context, orgID string, q ProspectQuery) ([]Prospect, int, error) {
	where := []string{"org_id = $1"}
	args := []any{orgID}
	if q.CampaignID != "" {
		args = append(args, q.CampaignID)
		where = append(where, "campaign_id = $"+strconv.Itoa(len(args)))
	}
	if q.Status != "" {
		args = append(args, q.Status)
		where = append(where, "status = $"+strconv.Itoa(len(args)))
	}
	cond := strings.Join(where, " AND ")
	// The page query filters a campaign by campaign_id alone, and checks once (a one-time
	// filter) that the campaign is the organization's: the campaign indexes do not hold org_id,
	// and reading it from each row would turn the index-only scan back into heap reads.
	pageCond := cond
	if q.CampaignID != "" {
		pageCond = strings.Replace(cond, "org_id = $1 AND ", "", 1) +
			" AND EXISTS (SELECT 1 FROM campaigns c WHERE c.id = $2 AND c.org_id = $1)"
	}
	// The total comes from the trigger-kept counters (migrations 003, 004): exact, and
	// O(campaigns x statuses + unfolded deltas) instead of O(prospects). The page's WHERE uses
	// the same columns, so both agree.
	// Both statements go in one round trip (a pipelined batch): on a busy machine every round
	// trip is a wake-up of the backend and of this goroutine, and the tail latency of the
	// endpoint followed their number. The page is read even when the offset turns out to be past
	// the total; it then simply comes back empty.
	var total int
	out := []Prospect{}
	pageArgs := append(append([]any{}, args...), q.Limit, q.Offset)
	b := &pgx.Batch{}
	b.Queue(`SELECT coalesce(sum(n), 0) FROM prospect_counts WHERE `+cond, args...).QueryRow(func(r pgx.Row) error {
		if err := r.Scan(&total); err != nil {
			return fmt.Errorf("count prospects: %w", err)
		}
		return nil
	})
	b.Queue(`SELECT `+prefixed("p.", ProspectColumns)+`
		FROM (SELECT id, created_at FROM prospects WHERE `+pageCond+`
		      ORDER BY created_at DESC, id DESC LIMIT $`+strconv.Itoa(len(pageArgs)-1)+` OFFSET $`+strconv.Itoa(len(pageArgs))+`) page
		JOIN prospects p ON p.id = page.id
		ORDER BY page.created_at DESC, page.id DESC`, pageArgs...).Query(func(rows pgx.Rows) error {
		var err error
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Prospect, error) { return ScanProspect(r) })
		if err != nil {
			return fmt.Errorf("list prospects: %w", err)
		}
		return nil
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, 0, err
	}
	if out == nil {
		out = []Prospect{}
	}
	return out, total, nil
}

// FoldProspectCounts moves the counter deltas the prospects triggers append (migration 004)
// into prospect_count_totals, in one transaction, so readers of prospect_counts never see a
// delta twice or not at all. Concurrent folds are safe: a delta row is deleted, and so added,
// by one of them only. It returns how many delta rows it folded.
func (s *Store) FoldProspectCounts(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `WITH d AS (DELETE FROM prospect_count_deltas RETURNING campaign_id, status, org_id, n),
		f AS (INSERT INTO prospect_count_totals AS c (campaign_id, status, org_id, n)
			SELECT campaign_id, status, min(org_id), sum(n) FROM d GROUP BY campaign_id, status ORDER BY campaign_id, status
			ON CONFLICT (campaign_id, status) DO UPDATE SET n = c.n + excluded.n)
		SELECT 1 FROM d`)
	if err != nil {
		return 0, fmt.Errorf("fold prospect counts: %w", err)
	}
	return tag.RowsAffected(), nil
}

// GetProspect reads one prospect of the organization; another organization's is ErrNotFound.
func (s *Store) GetProspect(ctx context.Context, orgID, id string) (Prospect, error) {
	p, err := ScanProspect(s.pool.QueryRow(ctx, `SELECT `+ProspectColumns+` FROM prospects
		WHERE id = $1 AND org_id = $2`, id, orgID))
	if err != nil {
		return Prospect{}, notFound(err, "prospect "+id)
	}
	return p, nil
}

// endSequence stops all outreach to a prospect: the engine sends nothing to a prospect whose
// sequence has ended, and nothing stays scheduled (a paused position is dropped too).
const endSequence = "sequence_ended_at = coalesce(sequence_ended_at, now()), next_step_at = NULL, paused_next_step_at = NULL"

// SetProspectOutcome marks an outcome on a prospect of the organization, writes what marking
// it causes (outreach.Outcome.Effects) and says whether it was written now or already set. The
// prospect row is locked for the whole transaction, so concurrent calls record a booking or a
// conversion exactly once.
func (s *Store) SetProspectOutcome(ctx context.Context, orgID, id string, outcome outreach.Outcome) (string, error) {
	applied := outreach.OutcomeAlreadySet
	err := s.InTx(ctx, func(tx *Tx) error {
		p, err := ScanProspect(tx.QueryRow(ctx, `SELECT `+ProspectColumns+` FROM prospects
			WHERE id = $1 AND org_id = $2 FOR UPDATE`, id, orgID))
		if err != nil {
			return notFound(err, "prospect "+id)
		}
		var set string
		var already *time.Time
		switch outcome {
		case outreach.OutcomeInterested:
			set, already = "outcome_interested_at = now()", p.InterestedAt
		case outreach.OutcomeLost:
			set, already = "outcome_lost_at = now()", p.LostAt
		case outreach.OutcomeBooked:
			set, already = "booked_at = now()", p.BookedAt
		case outreach.OutcomeConverted:
			set, already = "converted_at = now()", p.ConvertedAt
		default:
			return outreach.Invalidf("outcome %q", outcome)
		}
		if already != nil {
			return nil
		}
		applied = outreach.OutcomeWritten
		effects := outcome.Effects()
		if effects.EndSequence {
			set += ", " + endSequence
		}
		var at time.Time
		if err := tx.QueryRow(ctx, `UPDATE prospects SET `+set+`, updated_at = now() WHERE id = $1 RETURNING now()`, id).Scan(&at); err != nil {
			return err
		}
		if effects.EndSequence {
			if _, err := tx.Exec(ctx, `UPDATE followups SET closed_at = $2 WHERE prospect_id = $1 AND closed_at IS NULL`, id, at); err != nil {
				return fmt.Errorf("close follow-ups: %w", err)
			}
		}
		if effects.Activity != "" {
			if _, err := tx.Exec(ctx, `INSERT INTO activities (org_id, campaign_id, prospect_id, kind, manual, at)
				VALUES ($1, $2, $3, $4, true, $5)`, p.OrgID, p.CampaignID, p.ID, effects.Activity, at); err != nil {
				return fmt.Errorf("record %s: %w", effects.Activity, err)
			}
		}
		if effects.CallBooked {
			var campaignName string
			if err := tx.QueryRow(ctx, `SELECT name FROM campaigns WHERE id = $1`, p.CampaignID).Scan(&campaignName); err != nil {
				return fmt.Errorf("campaign of prospect %s: %w", p.ID, err)
			}
			tx.Emit(outreach.NewManualBookingEvent(p.OrgID, p.EventBlock(), p.CampaignID, campaignName, at))
		}
		return nil
	})
	if err != nil {
		return "", outreach.WrapServerErr(err, fmt.Sprintf("mark outcome %s on prospect %s", outcome, id))
	}
	return applied, nil
}
