package storage

import (
	"context"
	"fmt"
	"time"

	"outreachd/outreach"

	"github.com/jackc/pgx/v5"
)

// NeedsHumanItem is one open item of the needs-human queue with the person block
// of its prospect (all nil when the item has no prospect).
type NeedsHumanItem struct {
	ID           string
	CampaignID   *string
	ChatID       string
	Name         string
	Message      string
	AIDraft      string
	Intent       *string
	Reason       string
	WaitingSince time.Time
	outreach.Person
}

// NeedsHumanQuery selects a page of the open queue; CampaignID "" means every campaign.
type NeedsHumanQuery struct {
	OrgID         string
	CampaignID    string
	Limit, Offset int
}

// personSelect selects the person block of the prospect aliased p, in scanPerson's order.
const personSelect = `p.linkedin_url, p.public_identifier, p.role, p.company, p.industry, p.location,
	p.headline, p.company_website, p.company_linkedin_url, p.company_size, p.follower_count`

func personDest(p *outreach.Person) []any {
	return []any{&p.LinkedInURL, &p.PublicIdentifier, &p.Role, &p.Company, &p.Industry, &p.Location,
		&p.Headline, &p.CompanyWebsite, &p.CompanyLinkedInURL, &p.CompanySize, &p.FollowerCount}
}

// ListNeedsHuman returns open (unresolved) items, newest first — the order of the
// application's Needs Human tab — and the number of open items the query matches.
func (s *Store) ListNeedsHuman(ctx context.Context, q NeedsHumanQuery) ([]NeedsHumanItem, int, error) {
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM needs_human
		WHERE org_id = $1 AND resolved_at IS NULL AND ($2 = '' OR campaign_id = $2)`,
		q.OrgID, q.CampaignID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count needs-human: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT n.id, n.campaign_id, n.chat_id, n.name, n.message, n.ai_draft,
		n.intent, n.reason, n.waiting_since, `+personSelect+`
		FROM needs_human n
		LEFT JOIN prospects p ON p.id = n.prospect_id AND p.org_id = n.org_id
		WHERE n.org_id = $1 AND n.resolved_at IS NULL AND ($2 = '' OR n.campaign_id = $2)
		ORDER BY n.waiting_since DESC, n.id DESC
		LIMIT $3 OFFSET $4`, q.OrgID, q.CampaignID, q.Limit, q.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list needs-human: %w", err)
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (NeedsHumanItem, error) {
		var it NeedsHumanItem
		dest := append([]any{&it.ID, &it.CampaignID, &it.ChatID, &it.Name, &it.Message, &it.AIDraft,
			&it.Intent, &it.Reason, &it.WaitingSince}, personDest(&it.Person)...)
		return it, row.Scan(dest...)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list needs-human: %w", err)
	}
	return items, total, nil
}
