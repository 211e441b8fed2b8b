package api

import (
	"outreachd/outreach"
	"outreachd/storage"
)

// personJSON is the person block (docs/api.md, "The person block"). Every key is always present: an unknown value is
// null, never omitted, so every list that returns people has one shape.
type personJSON struct {
	LinkedInURL        *string `json:"linkedin_url"`
	PublicIdentifier   *string `json:"public_identifier"`
	Role               *string `json:"role"`
	Company            *string `json:"company"`
	Industry           *string `json:"industry"`
	Location           *string `json:"location"`
	Headline           *string `json:"headline"`
	CompanyWebsite     *string `json:"company_website"`
	CompanyLinkedInURL *string `json:"company_linkedin_url"`
	CompanySize        *string `json:"company_size"`
	FollowerCount      *int    `json:"follower_count"`
}

func personBlock(p outreach.Person) personJSON {
	return personJSON{
		LinkedInURL: p.LinkedInURL, PublicIdentifier: p.PublicIdentifier, Role: p.Role, Company: p.Company,
		Industry: p.Industry, Location: p.Location, Headline: p.Headline, CompanyWebsite: p.CompanyWebsite,
		CompanyLinkedInURL: p.CompanyLinkedInURL, CompanySize: p.CompanySize, FollowerCount: p.FollowerCount,
	}
}

// prospectJSON is a prospect with its person block inlined.
type prospectJSON struct {
	ID          string `json:"id"`
	CampaignID  string `json:"campaign_id"`
	LinkedInID  string `json:"linkedin_id"`
	Name        string `json:"name"`
	Status      string `json:"status"`
	CurrentStep int    `json:"current_step"`
	Source      string `json:"source"`
	CreatedAt   string `json:"created_at"`
	// Outcome is the marked outcome (outreach.CurrentOutcome), null when none.
	Outcome *string `json:"outcome"`
	personJSON
}

func prospectView(p storage.Prospect) prospectJSON {
	v := prospectJSON{
		ID: p.ID, CampaignID: p.CampaignID, LinkedInID: p.LinkedInID, Name: p.Name, Status: p.Status,
		CurrentStep: p.CurrentStep, Source: p.Source, CreatedAt: outreach.FormatTime(p.CreatedAt),
		personJSON: personBlock(p.Person),
	}
	if o := outreach.CurrentOutcome(p.InterestedAt != nil, p.LostAt != nil, p.BookedAt != nil, p.ConvertedAt != nil); o != "" {
		s := string(o)
		v.Outcome = &s
	}
	return v
}
