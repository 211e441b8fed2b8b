package oauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"time"

	"outreachd/outreach"
)

// tokenError is an error of the token or revocation endpoint (RFC 6749 section 5.2).
type tokenError struct {
	status     int
	code, desc string
}

func (e *tokenError) Error() string { return e.code + ": " + e.desc }

func badRequest(code, desc string) *tokenError {
	return &tokenError{status: http.StatusBadRequest, code: code, desc: desc}
}

// maxParam bounds the characters of a parameter of a token or revocation request: the longest a
// client legitimately sends is a redirect URI (at most 2,000 when registered). Parameters are also
// refused with a NUL character or bytes that are not UTF-8, which no identifier, URI or token
// holds and which PostgreSQL would refuse.
const maxParam = 2000

// tokenForm reads the form-encoded body of a token or revocation request, refusing parameters
// given twice (RFC 6749 section 3.2) and text no parameter can hold (maxParam).
func tokenForm(r *http.Request) (url.Values, *tokenError) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/x-www-form-urlencoded" {
		return nil, badRequest("invalid_request", "the body must be application/x-www-form-urlencoded")
	}
	if err := r.ParseForm(); err != nil {
		return nil, badRequest("invalid_request", "the form body could not be read")
	}
	for k, v := range r.PostForm {
		if len(v) > 1 {
			return nil, badRequest("invalid_request", k+" is given more than once")
		}
	}
	if err := outreach.CheckFields(r.PostForm, maxParam); err != nil {
		return nil, badRequest("invalid_request", err.Error())
	}
	return r.PostForm, nil
}

// token is the token endpoint: authorization_code and refresh_token grants.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	form, terr := tokenForm(r)
	if terr == nil {
		var g grantRecord
		var access, refresh string
		g, access, refresh, terr = s.grant(r, form)
		if terr == nil {
			writeJSON(w, http.StatusOK, map[string]any{
				"access_token":  access,
				"token_type":    "Bearer",
				"expires_in":    int(s.cfg.AccessTTL / time.Second),
				"refresh_token": refresh,
				"scope":         g.Scope,
			})
			return
		}
	}
	writeTokenError(w, terr)
}

func (s *Server) grant(r *http.Request, form url.Values) (grantRecord, string, string, *tokenError) {
	gt := form.Get("grant_type")
	if gt == "" {
		return grantRecord{}, "", "", badRequest("invalid_request", "grant_type is required")
	}
	if gt != "authorization_code" && gt != "refresh_token" {
		return grantRecord{}, "", "", badRequest("unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
	}
	clientID, terr := formClientID(r, form)
	if terr != nil {
		return grantRecord{}, "", "", terr
	}
	if clientID == "" {
		return grantRecord{}, "", "", badRequest("invalid_request", "client_id is required")
	}
	if _, err := s.db.getClient(r.Context(), clientID); err != nil {
		if errors.Is(err, outreach.ErrNotFound) {
			return grantRecord{}, "", "", &tokenError{status: http.StatusUnauthorized, code: "invalid_client", desc: "client_id is not a registered client"}
		}
		return grantRecord{}, "", "", s.serverError("read oauth client", err)
	}
	if res := form.Get("resource"); res != "" && !s.isResource(res) {
		return grantRecord{}, "", "", badRequest("invalid_target", "resource must be "+s.resourceURL())
	}
	now := s.now()
	access, refresh := newSecret("oat_"), newSecret("ort_")
	pair := tokenPair{AccessHash: hash(access), RefreshHash: hash(refresh),
		AccessExpiresAt: now.Add(s.cfg.AccessTTL), RefreshExpiresAt: now.Add(s.cfg.RefreshTTL)}
	var g grantRecord
	var err error
	if gt == "authorization_code" {
		g, err = s.redeemCode(r, form, clientID, now, pair)
	} else {
		g, err = s.rotateRefresh(r, form, clientID, now, pair)
	}
	var te *tokenError
	switch {
	case err == nil:
		return g, access, refresh, nil
	case errors.As(err, &te):
		return g, "", "", te
	case errors.Is(err, outreach.ErrNotFound):
		return g, "", "", badRequest("invalid_grant", "the "+credential(gt)+" is not valid")
	case errors.Is(err, errExpired):
		return g, "", "", badRequest("invalid_grant", "the "+credential(gt)+" has expired")
	case errors.Is(err, errRevoked):
		return g, "", "", badRequest("invalid_grant", "the "+credential(gt)+" was revoked")
	case errors.Is(err, errReused):
		return g, "", "", badRequest("invalid_grant", "the "+credential(gt)+" was already used; every token issued from it is now revoked")
	}
	return g, "", "", s.serverError("oauth token", err)
}

func credential(grantType string) string {
	if grantType == "authorization_code" {
		return "authorization code"
	}
	return "refresh token"
}

// redeemCode checks the code's client, redirect URI and PKCE verifier while it is locked.
func (s *Server) redeemCode(r *http.Request, form url.Values, clientID string, now time.Time, pair tokenPair) (grantRecord, error) {
	code, verifier := form.Get("code"), form.Get("code_verifier")
	if code == "" {
		return grantRecord{}, badRequest("invalid_request", "code is required")
	}
	if verifier == "" {
		return grantRecord{}, badRequest("invalid_request", "code_verifier is required (PKCE)")
	}
	if !validVerifier(verifier) {
		return grantRecord{}, badRequest("invalid_request", "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~")
	}
	return s.db.exchangeCode(r.Context(), hash(code), now, func(c pendingCode) error {
		switch {
		case c.ClientID != clientID:
			return badRequest("invalid_grant", "the authorization code was issued to another client")
		case c.RedirectURI != form.Get("redirect_uri"):
			return badRequest("invalid_grant", "redirect_uri does not match the one of the authorization request")
		case !pkceMatches(verifier, c.CodeChallenge):
			return badRequest("invalid_grant", "code_verifier does not match the code_challenge (PKCE)")
		}
		return nil
	}, pair)
}

func (s *Server) rotateRefresh(r *http.Request, form url.Values, clientID string, now time.Time, pair tokenPair) (grantRecord, error) {
	rt := form.Get("refresh_token")
	if rt == "" {
		return grantRecord{}, badRequest("invalid_request", "refresh_token is required")
	}
	var scope string
	if raw := form.Get("scope"); raw != "" {
		sc, ok := parseScope(raw)
		if !ok {
			return grantRecord{}, badRequest("invalid_scope", "scope must be read or read_write")
		}
		scope = sc
	}
	return s.db.rotateRefreshToken(r.Context(), hash(rt), now, func(g grantRecord) error {
		if g.ClientID != clientID {
			return badRequest("invalid_grant", "the refresh token was issued to another client")
		}
		if scope != "" && scope != g.Scope {
			return badRequest("invalid_scope", "a refresh keeps the scope consented ("+g.Scope+"); ask for authorization again to change it")
		}
		return nil
	}, pair)
}

// formClientID is the client_id of the form, or the user name of HTTP Basic authentication (some
// clients send their id that way even without a secret); both given must agree. Public clients
// have no secret, so a password sent along is ignored.
func formClientID(r *http.Request, form url.Values) (string, *tokenError) {
	id := form.Get("client_id")
	if user, _, ok := r.BasicAuth(); ok && user != "" {
		user, err := url.QueryUnescape(user)
		if err != nil || (id != "" && id != user) {
			return "", badRequest("invalid_request", "client_id in the form and in the Authorization header differ")
		}
		id = user
	}
	return id, nil
}

// validVerifier checks the code verifier's form (RFC 7636 section 4.1).
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for _, c := range v {
		ok := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
		if !ok {
			return false
		}
	}
	return true
}

// pkceMatches is the S256 check: BASE64URL(SHA256(verifier)) == challenge.
func pkceMatches(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// revoke is the revocation endpoint (RFC 7009): an unknown token is answered 200 like a revoked one.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	form, terr := tokenForm(r)
	if terr != nil {
		writeTokenError(w, terr)
		return
	}
	tok := form.Get("token")
	if tok == "" {
		writeTokenError(w, badRequest("invalid_request", "token is required"))
		return
	}
	clientID, terr := formClientID(r, form)
	if terr != nil {
		writeTokenError(w, terr)
		return
	}
	err := s.db.revokeToken(r.Context(), hash(tok), clientID, s.now())
	switch {
	case errors.Is(err, outreach.ErrConflict):
		writeTokenError(w, &tokenError{status: http.StatusUnauthorized, code: "invalid_client", desc: "the token was not issued to this client"})
	case err != nil:
		writeTokenError(w, s.serverError("revoke oauth token", err))
	default:
		w.WriteHeader(http.StatusOK)
	}
}

func (s *Server) serverError(what string, err error) *tokenError {
	s.log.Error(what, "err", err)
	return &tokenError{status: http.StatusInternalServerError, code: "server_error", desc: "the request could not be completed; try again"}
}

func writeTokenError(w http.ResponseWriter, e *tokenError) {
	writeJSON(w, e.status, map[string]string{"error": e.code, "error_description": e.desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
