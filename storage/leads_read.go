package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// LeadQuery selects the leads of GET /campaigns/{id}/leads.
type LeadQuery struct {
	BatchID string // "" for every batch
	// Source "" lists pushed leads only; "all" lists every prospect of the campaign; any other
	// value lists pushed leads with that source label.
	Source string
	// Verdict "" lists every verdict; pending, accepted or rejected only those.
	Verdict       string
	Limit, Offset int
}

// ListLeads returns one page of a campaign's leads, newest first, with the total matching
// count and the campaign's current filters (a lead's filter_reason is recalculated on read).
func (s *Store) ListLeads(ctx context.Context, orgID, campaignID string, q LeadQuery) ([]Prospect, int, outreach.HardFilters, error) {
	var raw []byte
	err := s.pool.QueryRow(ctx, `SELECT hard_filters FROM campaigns WHERE id = $1 AND org_id = $2`, campaignID, orgID).Scan(&raw)
	if err != nil {
		return nil, 0, outreach.HardFilters{}, notFound(err, "campaign "+campaignID)
	}
	filters, err := outreach.ParseHardFilters(raw)
	if err != nil {
		return nil, 0, outreach.HardFilters{}, fmt.Errorf("stored filters of campaign %s: %v", campaignID, err)
	}
	where := `campaign_id = $1 AND ($2 = '' OR batch_id = $2) AND ($3 = 'all' OR (pushed AND ($3 = '' OR source = $3)))
		AND ($4 = '' OR filter_verdict = $4)`
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM prospects WHERE `+where, campaignID, q.BatchID, q.Source, q.Verdict).Scan(&total); err != nil {
		return nil, 0, filters, fmt.Errorf("count leads: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+ProspectColumns+` FROM prospects WHERE `+where+`
		ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`, campaignID, q.BatchID, q.Source, q.Verdict, q.Limit, q.Offset)
	if err != nil {
		return nil, 0, filters, fmt.Errorf("list leads: %w", err)
	}
	defer rows.Close()
	out := []Prospect{}
	for rows.Next() {
		p, err := ScanProspect(rows)
		if err != nil {
			return nil, 0, filters, err
		}
		out = append(out, p)
	}
	return out, total, filters, rows.Err()
}

// GetLead returns one prospect of the organization with its campaign's current filters.
func (s *Store) GetLead(ctx context.Context, orgID, id string) (Prospect, outreach.HardFilters, error) {
	p, err := ScanProspect(s.pool.QueryRow(ctx, `SELECT `+ProspectColumns+` FROM prospects WHERE id = $1 AND org_id = $2`, id, orgID))
	if err != nil {
		return Prospect{}, outreach.HardFilters{}, notFound(err, "lead "+id)
	}
	var raw []byte
	if err := s.pool.QueryRow(ctx, `SELECT hard_filters FROM campaigns WHERE id = $1`, p.CampaignID).Scan(&raw); err != nil {
		return Prospect{}, outreach.HardFilters{}, fmt.Errorf("filters of campaign %s: %w", p.CampaignID, err)
	}
	filters, err := outreach.ParseHardFilters(raw)
	if err != nil {
		return Prospect{}, outreach.HardFilters{}, fmt.Errorf("stored filters of campaign %s: %v", p.CampaignID, err)
	}
	return p, filters, nil
}

// LeadVerdicts counts a campaign's prospects by filter verdict (pending, accepted, rejected; only
// those that occur).
func (s *Store) LeadVerdicts(ctx context.Context, orgID, campaignID string) (map[string]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT filter_verdict, count(*) FROM prospects WHERE campaign_id = $1 AND org_id = $2
		GROUP BY filter_verdict`, campaignID, orgID)
	if err != nil {
		return nil, err
	}
	counts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[statusCount])
	if err != nil {
		return nil, fmt.Errorf("count verdicts: %w", err)
	}
	out := make(map[string]int, len(counts))
	for _, c := range counts {
		out[c.Status] = c.N
	}
	return out, nil
}
