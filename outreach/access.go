package outreach

import "time"

// AccessGrant is what a live OAuth access token allows its bearer (an assistant): act for the
// user in the organization with the scope consented ("read" or "read_write") until ExpiresAt.
// The authorization server answers it, and the assistant server acts on it.
type AccessGrant struct {
	OrgID     string
	UserID    string
	ClientID  string
	Scope     string
	ExpiresAt time.Time
}
