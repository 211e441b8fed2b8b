package unipile

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"
)

// SourceStatus is the state of one of an account's sources (for LinkedIn, its messaging
// session).
type SourceStatus string

const (
	SourceOK          SourceStatus = "OK"
	SourceStopped     SourceStatus = "STOPPED"
	SourceError       SourceStatus = "ERROR"
	SourceCredentials SourceStatus = "CREDENTIALS" // disconnected: the owner must sign in again
	SourcePermissions SourceStatus = "PERMISSIONS"
	SourceConnecting  SourceStatus = "CONNECTING"
)

// Account is a connected account (for outreachd, a LinkedIn seat).
type Account struct {
	ID               string           `json:"id"`
	Type             string           `json:"type"` // "LINKEDIN"
	Name             string           `json:"name"`
	CreatedAt        Timestamp        `json:"created_at"`
	Sources          []AccountSource  `json:"sources"`
	ConnectionParams ConnectionParams `json:"connection_params"`
}

// AccountSource is one source of an account and its status.
type AccountSource struct {
	ID     string       `json:"id"`
	Status SourceStatus `json:"status"`
}

// ConnectionParams holds what the account was connected with; for LinkedIn, IM.
type ConnectionParams struct {
	IM LinkedInSession `json:"im"`
}

// LinkedInSession describes the LinkedIn member behind a seat.
type LinkedInSession struct {
	// ID is the owner's own member id (the provider id Unipile uses as a message's sender
	// when the seat itself writes).
	ID                string   `json:"id"`
	Username          string   `json:"username"`
	PremiumContractID *string  `json:"premiumContractId"`
	PremiumFeatures   []string `json:"premiumFeatures"` // "premium", "sales_navigator", "recruiter"
}

// statusSeverity orders statuses from worst to best, for Status.
var statusSeverity = []SourceStatus{SourceCredentials, SourcePermissions, SourceError, SourceStopped, SourceConnecting, SourceOK}

// Status is the account's state as one value: the worst of its sources' statuses (a status
// Unipile adds later counts as worse than every known one); "" when it lists no source.
func (a Account) Status() SourceStatus {
	worst := len(statusSeverity)
	for _, s := range a.Sources {
		i := slices.Index(statusSeverity, s.Status)
		if i < 0 {
			return s.Status
		}
		worst = min(worst, i)
	}
	if worst == len(statusSeverity) {
		return ""
	}
	return statusSeverity[worst]
}

// OwnerID is the seat owner's member id.
func (a Account) OwnerID() string { return a.ConnectionParams.IM.ID }

// SalesNavigator reports whether the seat has Sales Navigator.
func (a Account) SalesNavigator() bool {
	return slices.Contains(a.ConnectionParams.IM.PremiumFeatures, "sales_navigator")
}

// Premium reports whether the seat has any paid LinkedIn plan.
func (a Account) Premium() bool {
	im := a.ConnectionParams.IM
	return len(im.PremiumFeatures) > 0 || (im.PremiumContractID != nil && *im.PremiumContractID != "")
}

// ListAccounts lists one page of the connected accounts.
func (c *Client) ListAccounts(ctx context.Context, opts ListOptions) (Page[Account], error) {
	return list[Account](ctx, c, call{method: http.MethodGet, path: "/accounts", query: opts.query(nil), object: "AccountList"})
}

// GetAccount reads one account; ClassNotFound when Unipile does not know it.
func (c *Client) GetAccount(ctx context.Context, accountID string) (Account, error) {
	if err := required("get account", "account id", accountID); err != nil {
		return Account{}, err
	}
	var a Account
	err := c.do(ctx, call{method: http.MethodGet, path: pathOf("accounts", accountID), object: "Account"}, &a)
	return a, err
}

// HostedAuthLink asks for a link to Unipile's hosted sign-in page.
type HostedAuthLink struct {
	// Type is "create" (a new account) or "reconnect" (ReconnectAccount signs in again).
	Type             string
	Providers        []string // for create: which providers the page offers, e.g. ["LINKEDIN"]
	ReconnectAccount string   // for reconnect
	// ExpiresOn is when the link stops working; keep it short (minutes to hours).
	ExpiresOn time.Time
	// APIURL is the address of the tenant's API (its DSN as a URL); the client's BaseURL
	// when empty.
	APIURL string
	// NotifyURL is called by Unipile with {status, account_id, name} once the account is
	// connected; Name comes back in that call, to tell which link it was.
	NotifyURL          string
	Name               string
	SuccessRedirectURL string
	FailureRedirectURL string
}

// CreateHostedAuthLink makes a hosted sign-in link and returns its URL.
func (c *Client) CreateHostedAuthLink(ctx context.Context, l HostedAuthLink) (string, error) {
	body := map[string]any{"type": l.Type, "expiresOn": FormatTime(l.ExpiresOn), "api_url": l.APIURL}
	if l.APIURL == "" {
		body["api_url"] = c.base
	}
	switch l.Type {
	case "create":
		if len(l.Providers) == 0 {
			return "", fmt.Errorf("unipile: hosted auth link: %w: a create link names its providers", ErrInvalidRequest)
		}
		body["providers"] = l.Providers
	case "reconnect":
		if err := required("hosted auth link", "reconnect account", l.ReconnectAccount); err != nil {
			return "", err
		}
		body["reconnect_account"] = l.ReconnectAccount
	default:
		return "", fmt.Errorf("unipile: hosted auth link: %w: type %q is neither create nor reconnect", ErrInvalidRequest, l.Type)
	}
	if l.ExpiresOn.IsZero() {
		return "", fmt.Errorf("unipile: hosted auth link: %w: an expiry is required", ErrInvalidRequest)
	}
	for key, v := range map[string]string{
		"notify_url": l.NotifyURL, "name": l.Name,
		"success_redirect_url": l.SuccessRedirectURL, "failure_redirect_url": l.FailureRedirectURL,
	} {
		if v != "" {
			body[key] = v
		}
	}
	a := idAnswer{field: "url"}
	err := c.do(ctx, call{method: http.MethodPost, path: "/hosted/accounts/link", json: body, object: "HostedAuthUrl"}, &a)
	return a.id, err
}
