package outreach

import "strings"

// Person is the person block (docs/api.md): what is known of one person. Every
// field may be unknown (nil), which the filters treat differently from a known mismatch
// (filter_unknown_only). It is the one Go type of a person: storage keeps it in a prospect
// row, the enrichment provider answers with it (PersonLookup), the API shows it with null for
// each unknown field, and an event carries it as a ProspectBlock.
type Person struct {
	LinkedInURL        *string
	PublicIdentifier   *string
	Role               *string
	Company            *string
	Industry           *string
	Location           *string
	Headline           *string
	CompanyWebsite     *string
	CompanyLinkedInURL *string
	CompanySize        *string
	FollowerCount      *int
}

// PersonLookup is an enrichment provider's answer: Found is false when it does not know the
// profile at all (enrichment_status not_found), which is not the same as knowing a person with
// every field unknown. The provider never sets LinkedInURL or PublicIdentifier; those are ours.
type PersonLookup struct {
	Found bool
	Person
}

// LookupRequest is what the service already knows of a person when it asks an enrichment
// provider about them: the lead's key and handle, its name, and the company, title and location
// the client pushed, which a provider keeps over what it would say itself.
type LookupRequest struct {
	ProfileKey       string
	PublicIdentifier string
	Name             string
	Company          string
	Title            string
	Location         string
}

// Facts are what the filters can see of the person.
func (p Person) Facts() Facts {
	return Facts{Location: p.Location, Role: p.Role, Company: p.Company, Industry: p.Industry,
		Headline: p.Headline, CompanySize: p.CompanySize, FollowerCount: p.FollowerCount}
}

// Enriched merges what a provider knows into p: a known provider value replaces the pushed
// one, a field the provider does not know keeps the pushed value. The profile link and handle
// are ours (built from the lead key) and never change.
func (p Person) Enriched(got Person) Person {
	pick := func(old, new *string) *string {
		if new != nil && *new != "" {
			return new
		}
		return old
	}
	out := p
	out.Role = pick(p.Role, got.Role)
	out.Company = pick(p.Company, got.Company)
	out.Industry = pick(p.Industry, got.Industry)
	out.Location = pick(p.Location, got.Location)
	out.Headline = pick(p.Headline, got.Headline)
	out.CompanyWebsite = pick(p.CompanyWebsite, got.CompanyWebsite)
	out.CompanyLinkedInURL = pick(p.CompanyLinkedInURL, got.CompanyLinkedInURL)
	out.CompanySize = pick(p.CompanySize, got.CompanySize)
	if got.FollowerCount != nil {
		out.FollowerCount = got.FollowerCount
	}
	return out
}

// CompanyBlacklistKeys are the company keys of the do-not-contact list the person matches: the
// keys of their company (CompanyBlacklistKeys) plus its normalized name even when the company is
// given as a page, and the page of their company_linkedin_url.
func (p Person) CompanyBlacklistKeys() []string {
	var keys []string
	if p.Company != nil {
		keys = append(keys, CompanyBlacklistKeys(*p.Company)...)
		if n := NormalizeCompanyName(*p.Company); n != "" {
			keys = append(keys, "name:"+n)
		}
	}
	if p.CompanyLinkedInURL != nil {
		if slug, ok := ParseCompanyURL(strings.TrimSpace(*p.CompanyLinkedInURL)); ok {
			keys = append(keys, "url:"+slug)
		}
	}
	return keys
}

// ProspectBlock is the event block of the lead with id leadID: the person as an event carries
// it, an unknown field omitted rather than null.
func (p Person) ProspectBlock(leadID, name, linkedinID string) *ProspectBlock {
	s := func(v *string) string {
		if v == nil {
			return ""
		}
		return *v
	}
	return &ProspectBlock{Name: name, LinkedInURL: s(p.LinkedInURL), LinkedInID: linkedinID, LeadID: leadID,
		Company: s(p.Company), JobTitle: s(p.Role), Industry: s(p.Industry), Location: s(p.Location), Headline: s(p.Headline),
		CompanyWebsite: s(p.CompanyWebsite), CompanyLinkedInURL: s(p.CompanyLinkedInURL), CompanySize: s(p.CompanySize),
		FollowerCount: p.FollowerCount}
}
