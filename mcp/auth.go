package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"outreachd/api"
	"outreachd/outreach"
	"outreachd/storage"
)

// OAuthTokenPrefix starts every OAuth access token outreachd issues; anything else presented
// as a bearer token is looked up as an API key.
const OAuthTokenPrefix = "oat_"

// ErrInvalidToken is what an AccessTokenVerifier returns (wrapped or not), or
// outreach.ErrNotFound, for a token that is unknown, revoked or expired. Any other error is a
// server fault: logged, answered 500.
var ErrInvalidToken = auth.ErrInvalidToken

// AccessTokenVerifier checks an OAuth access token (the authorization server's half).
type AccessTokenVerifier interface {
	VerifyAccessToken(ctx context.Context, token string) (outreach.AccessGrant, error)
}

// caller is who a request acts for, however it signed in.
type caller struct {
	principal api.Principal // OrgID, Scope, KeyID ("" for OAuth) as the REST API sees them
	actor     string        // "key:<key id>" or "oauth:<client>:<user>": who proposed or confirmed
}

func (c caller) canWrite() bool { return c.principal.Scope == storage.ScopeReadWrite }

const callerExtra = "outreachd.caller"

// callerFrom reads the caller verify put into the token info.
func callerFrom(ti *auth.TokenInfo) (caller, bool) {
	if ti == nil || ti.Extra == nil {
		return caller{}, false
	}
	c, ok := ti.Extra[callerExtra].(caller)
	return c, ok && c.principal.OrgID != ""
}

// verify is the SDK's token verifier: an API key or an OAuth access token. Unknown, revoked and
// expired credentials of either kind are the same 401 (with the resource metadata URL).
func (s *Server) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	if len(token) > 2000 {
		return nil, ErrInvalidToken
	}
	if strings.HasPrefix(token, OAuthTokenPrefix) {
		return s.verifyOAuth(ctx, token)
	}
	k, err := s.store.Authenticate(ctx, token, s.now())
	if errors.Is(err, outreach.ErrNotFound) {
		return nil, ErrInvalidToken
	}
	if err != nil {
		return nil, s.serverFault("authenticate key", err)
	}
	c := caller{principal: api.Principal{KeyID: k.KeyID, OrgID: k.OrgID, Scope: k.Scope, RateLimitPerMinute: k.RateLimitPerMinute},
		actor: "key:" + k.KeyID}
	return &auth.TokenInfo{Scopes: []string{k.Scope}, UserID: c.actor, Extra: map[string]any{callerExtra: c}}, nil
}

func (s *Server) verifyOAuth(ctx context.Context, token string) (*auth.TokenInfo, error) {
	if s.deps.OAuth == nil {
		return nil, ErrInvalidToken
	}
	g, err := s.deps.OAuth.VerifyAccessToken(ctx, token)
	if errors.Is(err, ErrInvalidToken) || errors.Is(err, outreach.ErrNotFound) {
		return nil, ErrInvalidToken
	}
	if err != nil {
		return nil, s.serverFault("verify oauth token", err)
	}
	if g.OrgID == "" || !g.ExpiresAt.After(s.now()) {
		return nil, ErrInvalidToken
	}
	org, err := s.store.GetOrg(ctx, g.OrgID)
	if errors.Is(err, outreach.ErrNotFound) {
		return nil, ErrInvalidToken
	}
	if err != nil {
		return nil, s.serverFault("read org", err)
	}
	scope := storage.ScopeRead
	if g.Scope == storage.ScopeReadWrite {
		scope = storage.ScopeReadWrite
	}
	c := caller{principal: api.Principal{OrgID: org.ID, Scope: scope, RateLimitPerMinute: org.RateLimitPerMinute},
		actor: "oauth:" + g.ClientID + ":" + g.UserID}
	return &auth.TokenInfo{Scopes: []string{scope}, Expiration: g.ExpiresAt, UserID: c.actor,
		Extra: map[string]any{callerExtra: c}}, nil
}

// serverFault logs err and returns the generic error the SDK answers as a 500.
func (s *Server) serverFault(what string, err error) error {
	s.log.Error("mcp: "+what, "err", err)
	return errors.New("internal error; it has been logged")
}

// Rate-limit buckets, shared with the REST API (the same rows of the same table).
const (
	bucketDefault = "default"
	bucketInbox   = "inbox"
)

// spend counts one tool call against the caller's organization; an exhausted budget is an
// error the tool answers (the REST API's 429 in words).
func (s *Server) spend(ctx context.Context, c caller, bucket string) error {
	limit := s.cfg.RateLimitPerMinute
	if bucket == bucketInbox {
		limit = s.cfg.InboxRateLimitPerMinute
	} else if c.principal.RateLimitPerMinute != nil {
		limit = *c.principal.RateLimitPerMinute
	}
	now := s.now()
	used, windowStart, err := s.store.TakeRateToken(ctx, c.principal.OrgID, bucket, now)
	if err != nil {
		return s.serverFault("rate limit", err)
	}
	if used > limit {
		wait := max(1, int(windowStart.Add(time.Minute).Sub(now).Seconds()+0.999))
		return fmt.Errorf("rate limit exceeded: %d requests per minute for this organization; retry after %d seconds", limit, wait)
	}
	return nil
}
