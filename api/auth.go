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

// authenticate resolves the Bearer key. Missing, malformed, unknown, revoked and expired keys
// all answer the same 401 so that nothing leaks about which keys exist.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := s.principal(w, r)
		if !ok {
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}

func (s *Server) principal(w http.ResponseWriter, r *http.Request) (Principal, bool) {
	key, ok := bearerKey(r)
	if !ok {
		writeError(w, http.StatusUnauthorized, codeInvalidAPIKey, "missing or malformed API key: send Authorization: Bearer <key>")
		return Principal{}, false
	}
	a, err := s.store.Authenticate(r.Context(), key, s.now())
	if errors.Is(err, outreach.ErrNotFound) {
		writeError(w, http.StatusUnauthorized, codeInvalidAPIKey, "invalid, revoked or expired API key")
		return Principal{}, false
	}
	if err != nil {
		s.fail(w, r, err)
		return Principal{}, false
	}
	return Principal{KeyID: a.KeyID, OrgID: a.OrgID, Scope: a.Scope, RateLimitPerMinute: a.RateLimitPerMinute}, true
}

// requireWrite answers 403 unless the request's key has the read_write scope.
func requireWrite(w http.ResponseWriter, r *http.Request) bool {
	if PrincipalFrom(r.Context()).Scope != storage.ScopeReadWrite {
		writeError(w, http.StatusForbidden, codeInsufficientScope, "this endpoint needs a read_write key; this key is read-only")
		return false
	}
	return true
}
