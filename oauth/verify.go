package oauth

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"outreachd/outreach"
)

// ErrInvalidToken is every reason an access token is refused: unknown, expired, revoked, its
// grant revoked, or its user gone. One error, so a caller cannot tell them apart for a client. It
// wraps outreach.ErrNotFound, so callers that treat "not found" as "not signed in" need no mapping.
var ErrInvalidToken = outreach.NotFound("invalid or expired access token")

// VerifyAccessToken checks an access token for the MCP server.
func (s *Server) VerifyAccessToken(ctx context.Context, token string) (outreach.AccessGrant, error) {
	if !strings.HasPrefix(token, "oat_") {
		return outreach.AccessGrant{}, ErrInvalidToken
	}
	g, expires, err := s.db.verifyAccess(ctx, hash(token), s.now())
	if errors.Is(err, outreach.ErrNotFound) {
		return outreach.AccessGrant{}, ErrInvalidToken
	}
	if err != nil {
		return outreach.AccessGrant{}, fmt.Errorf("verify access token: %w", err)
	}
	return outreach.AccessGrant{OrgID: g.OrgID, UserID: g.UserID, ClientID: g.ClientID, Scope: g.Scope, ExpiresAt: expires}, nil
}
