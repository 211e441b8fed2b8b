package oauth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"outreachd/outreach"
)

// ErrInvalidToken is every reason an access token is refused: unknown, expired, revoked, its
// grant revoked, or its user gone. One error, so a caller cannot tell them apart for a client. It
// wraps outreach.ErrNotFound, so callers that treat "not found" as "not signed in" need no mapping.
var ErrInvalidToken = outreach.NotFound("invalid or expired access token")

// AccessGrant is what a live access token allows: act for the user in the organization with the
// scope consented ("read" or "read_write").
type AccessGrant struct {
	OrgID     string
	UserID    string
	ClientID  string
	Scope     string
	ExpiresAt time.Time
}

// VerifyAccessToken checks an access token for the MCP server.
func (s *Server) VerifyAccessToken(ctx context.Context, token string) (AccessGrant, error) {
	if !strings.HasPrefix(token, "oat_") {
		return AccessGrant{}, ErrInvalidToken
	}
	g, expires, err := s.db.verifyAccess(ctx, hash(token), s.now())
	if errors.Is(err, outreach.ErrNotFound) {
		return AccessGrant{}, ErrInvalidToken
	}
	if err != nil {
		return AccessGrant{}, fmt.Errorf("verify access token: %w", err)
	}
	return AccessGrant{OrgID: g.OrgID, UserID: g.UserID, ClientID: g.ClientID, Scope: g.Scope, ExpiresAt: expires}, nil
}
