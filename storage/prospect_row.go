package storage

import (
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// Prospect is one person in one campaign. A pushed lead is the same row (same id).
type Prospect struct {
	ID                string
	OrgID             string
	CampaignID        string
	LeadKey           string
	LinkedInID        string
	Name              string
	Status            string
	CurrentStep       int
	Source            string
	Pushed            bool
	BatchID           *string
	EnrichmentStatus  string
	FilterVerdict     string
	FilterReason      *string
	FilterUnknownOnly bool
	Contacted         bool
	Email             *string
	Data              map[string]any
	outreach.Person
	InterestedAt    *time.Time
	LostAt          *time.Time
	BookedAt        *time.Time
	ConvertedAt     *time.Time
	SequenceEndedAt *time.Time
	LastActivityAt  *time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// ProspectColumns is the explicit column list every prospect query selects, in scanProspect's order.
const ProspectColumns = `id, org_id, campaign_id, lead_key, linkedin_id, name, status, current_step, source, pushed,
	batch_id, enrichment_status, filter_verdict, filter_reason, filter_unknown_only, contacted, email, data,
	linkedin_url, public_identifier, role, company, industry, location, headline, company_website,
	company_linkedin_url, company_size, follower_count,
	outcome_interested_at, outcome_lost_at, booked_at, converted_at, sequence_ended_at, last_activity_at,
	created_at, updated_at`

// ScanProspect reads one row selected with ProspectColumns.
func ScanProspect(row pgx.Row) (Prospect, error) {
	var p Prospect
	err := row.Scan(prospectFields(&p)...)
	return p, err
}

// prospectFields are the scan destinations of ProspectColumns, in order; a query selecting more
// columns after them appends its own.
func prospectFields(p *Prospect, more ...any) []any {
	return append([]any{&p.ID, &p.OrgID, &p.CampaignID, &p.LeadKey, &p.LinkedInID, &p.Name, &p.Status, &p.CurrentStep,
		&p.Source, &p.Pushed, &p.BatchID, &p.EnrichmentStatus, &p.FilterVerdict, &p.FilterReason,
		&p.FilterUnknownOnly, &p.Contacted, &p.Email, &p.Data,
		&p.LinkedInURL, &p.PublicIdentifier, &p.Role, &p.Company, &p.Industry, &p.Location, &p.Headline,
		&p.CompanyWebsite, &p.CompanyLinkedInURL, &p.CompanySize, &p.FollowerCount,
		&p.InterestedAt, &p.LostAt, &p.BookedAt, &p.ConvertedAt, &p.SequenceEndedAt, &p.LastActivityAt,
		&p.CreatedAt, &p.UpdatedAt}, more...)
}

// Variables are what the variables of a sequence step's text are filled from for p.
func (p Prospect) Variables() outreach.VariablePerson {
	v := outreach.VariablePerson{Name: p.Name}
	if p.Company != nil {
		v.Company = *p.Company
	}
	if p.Role != nil {
		v.Title = *p.Role
	}
	return v
}

// EventBlock is the prospect block of an event about p (outreach.Person.ProspectBlock).
func (p Prospect) EventBlock() *outreach.ProspectBlock {
	return p.Person.ProspectBlock(p.ID, p.Name, p.LinkedInID)
}
