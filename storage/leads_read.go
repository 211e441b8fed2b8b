package storage

import (
	"context"
	"fmt"

	"outreachd/outreach"
)

// LeadQuery selects the leads of GET /campaigns/{id}/leads.
type LeadQuery struct {
	BatchID string // "" for every batch
	// Source "" lists pushed leads only; "all" lists every prospect of the campaign; any other
	// value lists pushed leads with that source label.
	Source        string
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
	where := `campaign_id = $1 AND ($2 = '' OR batch_id = $2) AND ($3 = 'all' OR (pushed AND ($3 = '' OR source = $3)))`
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM prospects WHERE `+where, campaignID, q.BatchID, q.Source).Scan(&total); err != nil {
		return nil, 0, filters, fmt.Errorf("count leads: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+ProspectColumns+` FROM prospects WHERE `+where+`
		ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`, campaignID, q.BatchID, q.Source, q.Limit, q.Offset)
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
