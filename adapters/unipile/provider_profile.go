package unipile

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"outreachd/outreach"
)

// profileSections are the optional sections a look-up asks for: the current position, for the
// person block's role and company.
var profileSections = []string{"experience"}

// LookUpProfile resolves a person to the member id invitations and messages need and fills
// what the profile (and, when the profile names the company's page, that page) says of them.
// It is a profile view LinkedIn counts against the seat. A member LinkedIn does not know is
// ErrUnknownProfile.
func (p *Provider) LookUpProfile(ctx context.Context, accountID string, ref outreach.ProfileRef) (outreach.MemberProfile, error) {
	ident, err := identifierOf(ref)
	if err != nil {
		return outreach.MemberProfile{}, err
	}
	prof, err := p.c.GetProfile(ctx, accountID, ident, ProfileOptions{Sections: profileSections})
	if err != nil {
		return outreach.MemberProfile{}, p.portError(ctx, accountID, opProfile, err)
	}
	p.learn(ctx, prof.ProviderID, prof.PublicIdentifier)
	m := outreach.MemberProfile{ProviderID: prof.ProviderID, PublicIdentifier: prof.PublicIdentifier,
		Name: strings.TrimSpace(prof.FirstName + " " + prof.LastName), Headline: prof.Headline}
	m.Person.Headline = text(prof.Headline)
	m.Person.Location = text(prof.Location)
	if prof.FollowerCount > 0 {
		m.Person.FollowerCount = &prof.FollowerCount
	}
	pos, ok := prof.CurrentPosition()
	if !ok {
		return m, nil
	}
	m.Company = pos.Company
	m.Person.Role, m.Person.Company = text(pos.Position), text(pos.Company)
	if pos.CompanyID == "" {
		return m, nil
	}
	co, err := p.c.GetCompany(ctx, accountID, pos.CompanyID)
	switch ClassOf(err) {
	case "":
		fillCompany(&m.Person, co)
	case ClassNotFound, ClassRejected:
		// A page LinkedIn does not show: the profile's own facts stand, the page's stay unknown.
	default:
		return outreach.MemberProfile{}, p.portError(ctx, accountID, opRead, err)
	}
	return m, nil
}

// fillCompany adds what a company page says that a profile does not: industry, size, website
// and the page's address.
func fillCompany(person *outreach.Person, co Company) {
	if person.Company == nil {
		person.Company = text(co.Name)
	}
	person.Industry = text(strings.Join(co.Industry, ", "))
	if co.EmployeeCount > 0 {
		person.CompanySize = text(strconv.Itoa(co.EmployeeCount))
	}
	person.CompanyWebsite = text(co.Website)
	page := co.ProfileURL
	if page == "" && co.PublicIdentifier != "" {
		page = "https://www.linkedin.com/company/" + co.PublicIdentifier + "/"
	}
	person.CompanyLinkedInURL = text(page)
}

func text(s string) *string {
	if s = strings.TrimSpace(s); s == "" {
		return nil
	}
	return &s
}

// identifierOf is what Unipile looks a person up by: the member id when known, else the handle
// (from the lead key "in:<handle>" or the reference's own), else the id of an "id:" key.
func identifierOf(ref outreach.ProfileRef) (string, error) {
	switch {
	case ref.ProviderID != "":
		return ref.ProviderID, nil
	case ref.PublicIdentifier != "":
		return ref.PublicIdentifier, nil
	case strings.HasPrefix(ref.ProfileKey, "in:"), strings.HasPrefix(ref.ProfileKey, "id:"):
		return ref.ProfileKey[3:], nil
	}
	return "", fmt.Errorf("%q: %w", ref.ProfileKey, outreach.ErrInvalidProfile)
}

// member resolves a person to their member id: the one the reference carries, one a lead key
// names, one learned before for their handle, or a profile look-up (a profile view), whose
// answer is remembered.
func (p *Provider) member(ctx context.Context, accountID string, ref outreach.ProfileRef) (string, error) {
	if ref.ProviderID != "" {
		return ref.ProviderID, nil
	}
	ident, err := identifierOf(ref)
	if err != nil {
		return "", err
	}
	if isMemberID(ident) {
		return ident, nil
	}
	if handle := handleOf(ident); handle != "" {
		id, ok, err := p.store.MemberID(ctx, handle)
		if err != nil {
			return "", fmt.Errorf("member id of %s: %w", handle, err)
		}
		if ok {
			return id, nil
		}
	}
	prof, err := p.c.GetProfile(ctx, accountID, ident, ProfileOptions{})
	if err != nil {
		return "", p.portError(ctx, accountID, opProfile, err)
	}
	p.learn(ctx, prof.ProviderID, prof.PublicIdentifier)
	return prof.ProviderID, nil
}

// learn remembers a member's handle; a failure only costs a later profile view, so it is
// logged and not returned.
func (p *Provider) learn(ctx context.Context, memberID, handle string) {
	if h := handleOf(handle); memberID != "" && h != "" {
		if err := p.store.RememberMembers(ctx, []outreach.MemberHandle{{MemberID: memberID, PublicIdentifier: h}}); err != nil {
			p.cfg.Logger.Warn("unipile: remember a member's handle", "err", err)
		}
	}
}

// isMemberID recognizes a LinkedIn member id ("ACoAA…", tens of characters), which a handle
// of linkedin.com/in/ never is.
func isMemberID(s string) bool {
	prof, err := outreach.NormalizeProfile(s)
	return err == nil && prof.MemberID == s && strings.HasPrefix(s, "ACo")
}
