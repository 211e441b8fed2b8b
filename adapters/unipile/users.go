package unipile

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// Profile is a LinkedIn member's profile as a seat sees it. Every look-up is a profile view
// LinkedIn counts against the seat.
type Profile struct {
	Provider         string `json:"provider"`    // "LINKEDIN"
	ProviderID       string `json:"provider_id"` // the member id ("ACoAA…"): what invitations and chats need
	PublicIdentifier string `json:"public_identifier"`
	FirstName        string `json:"first_name"`
	LastName         string `json:"last_name"`
	Headline         string `json:"headline"`
	Summary          string `json:"summary"`
	Location         string `json:"location"`
	PublicProfileURL string `json:"public_profile_url"`
	PictureURL       string `json:"profile_picture_url"`
	IsPremium        bool   `json:"is_premium"`
	IsOpenProfile    bool   `json:"is_open_profile"`
	IsRelationship   bool   `json:"is_relationship"`
	IsSelf           bool   `json:"is_self"`
	// NetworkDistance is FIRST_DEGREE, SECOND_DEGREE, THIRD_DEGREE or OUT_OF_NETWORK.
	NetworkDistance  string             `json:"network_distance"`
	Invitation       *ProfileInvitation `json:"invitation"`
	ConnectionsCount int                `json:"connections_count"`
	FollowerCount    int                `json:"follower_count"`
	// WorkExperience is filled only when the look-up asked for the "experience" section.
	WorkExperience []WorkExperience `json:"work_experience"`
	Websites       []string         `json:"websites"`
}

// Network distances.
const (
	DistanceFirst        = "FIRST_DEGREE"
	DistanceSecond       = "SECOND_DEGREE"
	DistanceThird        = "THIRD_DEGREE"
	DistanceOutOfNetwork = "OUT_OF_NETWORK"
)

// ProfileInvitation is an invitation between the seat and the member.
type ProfileInvitation struct {
	Type   string `json:"type"`   // "SENT" (by the seat) or "RECEIVED"
	Status string `json:"status"` // "PENDING", "IGNORED" or "WITHDRAWN"
}

// WorkExperience is one position on a profile.
type WorkExperience struct {
	Position  string `json:"position"`
	Company   string `json:"company"`
	CompanyID string `json:"company_id"`
	Location  string `json:"location"`
	Current   bool   `json:"current"`
	Start     string `json:"start"`
	End       string `json:"end"`
}

// CurrentPosition is the first position marked current, else the first one listed.
func (p Profile) CurrentPosition() (WorkExperience, bool) {
	for _, w := range p.WorkExperience {
		if w.Current {
			return w, true
		}
	}
	if len(p.WorkExperience) > 0 {
		return p.WorkExperience[0], true
	}
	return WorkExperience{}, false
}

// ProfileOptions says which optional profile sections to read: "experience", "education",
// "languages", "skills", "certifications", "about", or "*" for all.
type ProfileOptions struct {
	Sections []string
}

// GetProfile looks a member up by public identifier (the slug of linkedin.com/in/<slug>) or
// member id; ClassNotFound when LinkedIn knows no such member.
func (c *Client) GetProfile(ctx context.Context, accountID, identifier string, opts ProfileOptions) (Profile, error) {
	if err := required("get profile", "account id", accountID, "identifier", identifier); err != nil {
		return Profile{}, err
	}
	q := url.Values{"account_id": {accountID}}
	if len(opts.Sections) > 0 {
		q.Set("linkedin_sections", strings.Join(opts.Sections, ","))
	}
	var p Profile
	err := c.do(ctx, call{method: http.MethodGet, path: pathOf("users", identifier), query: q, object: "UserProfile"}, &p)
	return p, err
}

// OwnProfile is the seat owner's own profile.
type OwnProfile struct {
	Provider         string `json:"provider"`
	ProviderID       string `json:"provider_id"` // the owner's member id
	PublicIdentifier string `json:"public_identifier"`
	FirstName        string `json:"first_name"`
	LastName         string `json:"last_name"`
	Headline         string `json:"headline"`
	Location         string `json:"location"`
	Email            string `json:"email"`
	Premium          bool   `json:"premium"`
	OpenProfile      bool   `json:"open_profile"`
	// SalesNavigator is nil without Sales Navigator; with it, its seat (or an error such as
	// "DISCONNECTED").
	SalesNavigator *PremiumSeat `json:"sales_navigator"`
	Recruiter      *PremiumSeat `json:"recruiter"`
}

// PremiumSeat is a seat's paid LinkedIn product: its ids, or an error.
type PremiumSeat struct {
	OwnerSeatID string `json:"owner_seat_id"`
	ContractID  string `json:"contract_id"`
	Error       string `json:"error"`
}

// GetOwnProfile reads the profile of the seat's owner.
func (c *Client) GetOwnProfile(ctx context.Context, accountID string) (OwnProfile, error) {
	if err := required("get own profile", "account id", accountID); err != nil {
		return OwnProfile{}, err
	}
	var p OwnProfile
	err := c.do(ctx, call{method: http.MethodGet, path: "/users/me", query: url.Values{"account_id": {accountID}}, object: "AccountOwnerProfile"}, &p)
	return p, err
}

// Company is a LinkedIn company page.
type Company struct {
	ID               string            `json:"id"`
	Name             string            `json:"name"`
	Description      string            `json:"description"`
	PublicIdentifier string            `json:"public_identifier"`
	ProfileURL       string            `json:"profile_url"`
	Tagline          string            `json:"tagline"`
	FollowersCount   int               `json:"followers_count"`
	EmployeeCount    int               `json:"employee_count"`
	Website          string            `json:"website"`
	Industry         []string          `json:"industry"`
	Locations        []CompanyLocation `json:"locations"`
}

// CompanyLocation is one of a company's offices.
type CompanyLocation struct {
	IsHeadquarter bool   `json:"is_headquarter"`
	Country       string `json:"country"`
	City          string `json:"city"`
	Area          string `json:"area"`
}

// Headquarters is the office marked as headquarters, else the first one listed.
func (c Company) Headquarters() (CompanyLocation, bool) {
	for _, l := range c.Locations {
		if l.IsHeadquarter {
			return l, true
		}
	}
	if len(c.Locations) > 0 {
		return c.Locations[0], true
	}
	return CompanyLocation{}, false
}

// GetCompany reads a company page by its public identifier (linkedin.com/company/<slug>) or
// id.
func (c *Client) GetCompany(ctx context.Context, accountID, identifier string) (Company, error) {
	if err := required("get company", "account id", accountID, "identifier", identifier); err != nil {
		return Company{}, err
	}
	var co Company
	err := c.do(ctx, call{method: http.MethodGet, path: pathOf("linkedin", "company", identifier), query: url.Values{"account_id": {accountID}}, object: "CompanyProfile"}, &co)
	return co, err
}
