package storage

import (
	"context"
	"fmt"
	"time"

	"outreachd/outreach"

	"github.com/jackc/pgx/v5"
)

// StalledLead is one item of GET /stalled-leads.
type StalledLead struct {
	ID             string
	CampaignID     string
	LinkedInID     string
	Name           string
	Sentiment      string
	LastActivityAt time.Time
	LastStalledAt  time.Time
	outreach.Person
}

// StalledQuery selects a page of stalled leads: positive repliers silent since before
// Now - Days. CampaignID "" means every campaign of the organization.
type StalledQuery struct {
	OrgID         string
	CampaignID    string
	Days          int
	Now           time.Time
	Limit, Offset int
}

// stalledWhere is what makes a prospect a stalled lead: it replied positively, nothing has
// happened for Days, and no outcome has closed the conversation since (booked, converted,
// marked lost, opted out or blocked).
const stalledWhere = `p.org_id = $1 AND p.sentiment = 'positive'
	AND p.last_activity_at < $2
	AND ($3 = '' OR p.campaign_id = $3)
	AND p.booked_at IS NULL AND p.converted_at IS NULL AND p.outcome_lost_at IS NULL
	AND p.status <> 'opted_out'`

// ListStalledLeads returns one page of stalled leads, stalest first, and how many there are.
// last_stalled_at is when the stall watcher recorded the current stall (the stalls row for the
// prospect's current last_activity_at); before it has, it is the moment the lead crossed the
// threshold, last_activity_at + Days.
func (s *Store) ListStalledLeads(ctx context.Context, q StalledQuery) ([]StalledLead, int, error) {
	cutoff := q.Now.Add(-time.Duration(q.Days) * 24 * time.Hour)
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM prospects p WHERE `+stalledWhere,
		q.OrgID, cutoff, q.CampaignID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count stalled leads: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT p.id, p.campaign_id, p.linkedin_id, p.name, p.sentiment,
		p.last_activity_at,
		coalesce((SELECT max(st.stalled_at) FROM stalls st
			WHERE st.prospect_id = p.id AND st.last_activity_at = p.last_activity_at),
			p.last_activity_at + make_interval(days => $4)),
		`+personSelect+`
		FROM prospects p WHERE `+stalledWhere+`
		ORDER BY p.last_activity_at ASC, p.id ASC
		LIMIT $5 OFFSET $6`, q.OrgID, cutoff, q.CampaignID, q.Days, q.Limit, q.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list stalled leads: %w", err)
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (StalledLead, error) {
		var it StalledLead
		dest := append([]any{&it.ID, &it.CampaignID, &it.LinkedInID, &it.Name, &it.Sentiment,
			&it.LastActivityAt, &it.LastStalledAt}, personDest(&it.Person)...)
		return it, row.Scan(dest...)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list stalled leads: %w", err)
	}
	return items, total, nil
}
