package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"outreachd/outreach"
	"outreachd/storage"
)

// Principal is who a keyed request acts for.
type Principal struct {
	KeyID              string
	OrgID              string
	Scope              string
	RateLimitPerMinute *int
}

type principalKey struct{}

// PrincipalFrom returns the authenticated principal of a request that passed authenticate.
func PrincipalFrom(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey{}).(Principal)
	return p
}

// bearerKey extracts the key from "Authorization: Bearer <key>".
func bearerKey(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, key, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	key = strings.TrimSpace(key)
	return key, key != "" && len(key) <= 200
}

// authenticate resolves the Bearer key and, in the same statement, spends one request of the
// organization's budget for the request's bucket (see rateLimit, which answers from what was
// spent here). Missing, malformed, unknown, revoked and expired keys all answer the same 401 so
// that nothing leaks about which keys exist; they spend nothing.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, tok, ok := s.principal(w, r, requestBucket(r, bucketDefault))
		if !ok {
			return
		}
		traceOrg(r.Context(), p.OrgID)
		ctx := context.WithValue(r.Context(), principalKey{}, p)
		ctx = context.WithValue(ctx, spentKey{}, tok)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// keyed puts a handler outside /api/v1 behind the same authentication and rate limit as the v1
// routes (see Handler). Errors there answer in the shape of the handler's endpoint
// (plainErrorRoute), so POST /api/webhooks/conversions keeps its plain {"error": "..."}.
func (s *Server) keyed(h http.HandlerFunc) http.Handler {
	return s.authenticate(s.rateLimit(bucketDefault)(h))
}

// principal authenticates the request's key and takes one token of bucket; on false the
// request was answered (401 in the v1 shape, or 500).
func (s *Server) principal(w http.ResponseWriter, r *http.Request, bucket string) (Principal, spentToken, bool) {
	key, ok := bearerKey(r)
	if !ok {
		writeErrorFor(w, r, http.StatusUnauthorized, CodeInvalidAPIKey, "missing or malformed API key: send Authorization: Bearer <key>")
		return Principal{}, spentToken{}, false
	}
	p, tok, err := s.authenticateAndSpend(r, key, bucket)
	if errors.Is(err, outreach.ErrNotFound) {
		writeErrorFor(w, r, http.StatusUnauthorized, CodeInvalidAPIKey, "invalid, revoked or expired API key")
		return Principal{}, spentToken{}, false
	}
	if err != nil {
		s.failFor(w, r, err)
		return Principal{}, spentToken{}, false
	}
	return p, tok, true
}

// authenticateAndSpend is the one database round trip of a keyed request before its handler.
func (s *Server) authenticateAndSpend(r *http.Request, key, bucket string) (Principal, spentToken, error) {
	now := s.now()
	a, used, windowStart, err := s.store.AuthenticateAndSpend(r.Context(), key, bucket, now)
	if err != nil {
		return Principal{}, spentToken{}, err
	}
	return Principal{KeyID: a.KeyID, OrgID: a.OrgID, Scope: a.Scope, RateLimitPerMinute: a.RateLimitPerMinute},
		spentToken{bucket: bucket, used: used, windowStart: windowStart, now: now}, nil
}

// requireWrite answers 403 (in the shape of r's endpoint) unless the request's key has the
// read_write scope.
func requireWrite(w http.ResponseWriter, r *http.Request) bool {
	if PrincipalFrom(r.Context()).Scope != storage.ScopeReadWrite {
		writeErrorFor(w, r, http.StatusForbidden, CodeInsufficientScope, "this endpoint needs a read_write key; this key is read-only")
		return false
	}
	return true
}

// decodeWrite opens a handler that changes something with a JSON body: the read_write scope,
// then the body decoded into v. On failure it has answered.
func (s *Server) decodeWrite(w http.ResponseWriter, r *http.Request, v any) bool {
	if !requireWrite(w, r) {
		return false
	}
	if err := decodeJSON(r, v); err != nil {
		s.fail(w, r, err)
		return false
	}
	return true
}
