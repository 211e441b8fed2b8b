package oauth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"outreachd/outreach"
)

// authzParams are the authorization request's parameters, carried from the GET that shows the
// consent page to the POST that decides, in the form's hidden fields.
var authzParams = []string{"response_type", "client_id", "redirect_uri", "code_challenge",
	"code_challenge_method", "scope", "state", "resource"}

// authzRequest is a validated authorization request.
type authzRequest struct {
	client registeredClient
	// redirectURI is the parameter as given ("" when omitted: allowed when the client registered
	// exactly one); redirectTo is where answers go.
	redirectURI, redirectTo string
	challenge, scope        string
	state, resource         string
}

// authzError is an error the client learns through its redirect URI.
type authzError struct{ code, desc string }

// consentTTL bounds how long a consent form may be answered.
const consentTTL = 10 * time.Minute

// parseAuthz validates an authorization request. pageErr is set when the client or the
// redirect URI cannot be trusted: then nothing may be redirected, and the person sees the error.
func (s *Server) parseAuthz(ctx context.Context, v url.Values) (req authzRequest, pageErr string, redirErr *authzError) {
	if err := outreach.CheckFields(v, 0); err != nil { // lengths are checked parameter by parameter
		return req, "The request cannot be read: " + err.Error() + ".", nil
	}
	for _, p := range []string{"client_id", "redirect_uri"} {
		if len(v[p]) > 1 {
			return req, p + " is given more than once", nil
		}
	}
	id := v.Get("client_id")
	if id == "" {
		return req, "The request names no client (client_id is missing).", nil
	}
	c, err := s.db.getClient(ctx, id)
	if errors.Is(err, outreach.ErrNotFound) {
		return req, "The assistant asking for access (client " + quote(id) + ") is not registered here.", nil
	}
	if err != nil {
		s.log.Error("read oauth client", "err", err)
		return req, "The request could not be checked just now; try again.", nil
	}
	req.client, req.redirectURI = c, v.Get("redirect_uri")
	switch {
	case req.redirectURI == "" && len(c.RedirectURIs) == 1:
		req.redirectTo = c.RedirectURIs[0]
	case req.redirectURI == "":
		return req, "The request names no redirect_uri, and the client registered several.", nil
	case !slices.Contains(c.RedirectURIs, req.redirectURI):
		return req, "The redirect_uri " + quote(req.redirectURI) + " is not one the client registered.", nil
	default:
		req.redirectTo = req.redirectURI
	}
	if len(v["state"]) == 1 {
		req.state = v.Get("state")
	}
	for _, p := range authzParams {
		if len(v[p]) > 1 {
			return req, "", &authzError{"invalid_request", p + " is given more than once"}
		}
	}
	if e := s.checkAuthzParams(v, &req); e != nil {
		return req, "", e
	}
	return req, "", nil
}

func (s *Server) checkAuthzParams(v url.Values, req *authzRequest) *authzError {
	switch rt := v.Get("response_type"); {
	case rt == "":
		return &authzError{"invalid_request", "response_type is required"}
	case rt != "code":
		return &authzError{"unsupported_response_type", "only response_type=code is supported"}
	}
	req.challenge = v.Get("code_challenge")
	if req.challenge == "" {
		return &authzError{"invalid_request", "code_challenge is required (PKCE with S256)"}
	}
	if m := v.Get("code_challenge_method"); m != "S256" {
		return &authzError{"invalid_request", "code_challenge_method must be S256 (plain is not accepted)"}
	}
	if !validChallenge(req.challenge) {
		return &authzError{"invalid_request", "code_challenge must be the 43-character base64url SHA-256 of the code verifier"}
	}
	scope, ok := parseScope(v.Get("scope"))
	if !ok {
		return &authzError{"invalid_scope", "scope must be read or read_write"}
	}
	req.scope = scope
	req.resource = v.Get("resource")
	if req.resource != "" && !s.isResource(req.resource) {
		return &authzError{"invalid_target", "resource must be " + s.resourceURL()}
	}
	if len(req.state) > 2000 {
		return &authzError{"invalid_request", "state is longer than 2000 characters"}
	}
	return nil
}

// parseScope reads a space-separated scope; none means read, and read_write includes read.
func parseScope(raw string) (string, bool) {
	scope := "read"
	for _, sc := range strings.Fields(raw) {
		switch sc {
		case "read":
		case "read_write":
			scope = "read_write"
		default:
			return "", false
		}
	}
	return scope, true
}

// isResource accepts the MCP server's URL as the resource (RFC 8707), with or without a trailing
// slash or a query (a client configured with PUBLIC_URL/mcp?toolsets=... names that URL), never
// with a fragment.
func (s *Server) isResource(r string) bool {
	base, query, _ := strings.Cut(r, "?")
	if strings.Contains(query, "#") || strings.Contains(base, "#") {
		return false
	}
	return base == s.resourceURL() || base == s.resourceURL()+"/"
}

func validChallenge(c string) bool {
	b, err := base64.RawURLEncoding.DecodeString(c)
	return err == nil && len(b) == sha256.Size && len(c) == 43
}

// authzOf reads the authorization request in v (parseAuthz) for the consent page and its form.
// A request that cannot be answered to its client is refused on a page; any other error goes back
// to the client's redirect URI. On failure it has answered.
func (s *Server) authzOf(w http.ResponseWriter, r *http.Request, v url.Values) (authzRequest, bool) {
	req, pageErr, redirErr := s.parseAuthz(r.Context(), v)
	if pageErr != "" {
		s.errorPage(w, r, http.StatusBadRequest, pageErr)
		return req, false
	}
	if redirErr != nil {
		s.redirectError(w, r, req, redirErr)
		return req, false
	}
	return req, true
}

// authorize shows the consent page, or sends the person to sign in first.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	req, ok := s.authzOf(w, r, r.URL.Query())
	if !ok {
		return
	}
	user, ok := s.users.SignedIn(r)
	if !ok {
		http.Redirect(w, r, "/app/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusFound)
		return
	}
	s.consentPage(w, r, req, user, r.URL.Query())
}

// decide handles the consent form: Allow answers a code, Deny access_denied.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	if err := s.csrf.Check(r); err != nil {
		s.errorPage(w, r, http.StatusForbidden, "This form was sent from another site and was refused.")
		return
	}
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	form := r.PostForm
	req, ok := s.authzOf(w, r, form)
	if !ok {
		return
	}
	user, ok := s.users.SignedIn(r)
	if !ok {
		again := url.Values{}
		for _, p := range authzParams {
			if form.Has(p) {
				again.Set(p, form.Get(p))
			}
		}
		next := "/oauth/authorize?" + again.Encode()
		http.Redirect(w, r, "/app/login?next="+url.QueryEscape(next), http.StatusSeeOther)
		return
	}
	if !s.checkTicket(form.Get("consent_ticket"), user, form) {
		s.errorPage(w, r, http.StatusBadRequest, "This consent form has expired or was opened by someone else. Start again from the assistant.")
		return
	}
	switch form.Get("decision") {
	case "allow":
	case "deny":
		s.redirectError(w, r, req, &authzError{"access_denied", "the person denied access"})
		return
	default:
		s.errorPage(w, r, http.StatusBadRequest, "Choose Allow or Deny.")
		return
	}
	code := newSecret("oac_")
	err := s.db.createCode(r.Context(), pendingCode{Hash: hash(code), ClientID: req.client.ID,
		OrgID: user.OrgID, UserID: user.ID, UserEmail: user.Email, Scope: req.scope, RedirectURI: req.redirectURI,
		CodeChallenge: req.challenge, Resource: req.resource, ExpiresAt: s.now().Add(s.cfg.CodeTTL)}, s.now())
	if err != nil {
		s.log.Error("create oauth code", "err", err)
		s.redirectError(w, r, req, &authzError{"server_error", "the authorization could not be saved"})
		return
	}
	s.redirectTo(w, r, req, url.Values{"code": {code}})
}

// redirectError sends the client an error through its (validated) redirect URI.
func (s *Server) redirectError(w http.ResponseWriter, r *http.Request, req authzRequest, e *authzError) {
	s.redirectTo(w, r, req, url.Values{"error": {e.code}, "error_description": {e.desc}})
}

// redirectTo adds params, the state and the issuer (RFC 9207) to the redirect URI's query.
func (s *Server) redirectTo(w http.ResponseWriter, r *http.Request, req authzRequest, params url.Values) {
	u, err := url.Parse(req.redirectTo)
	if err != nil { // registered URIs were parsed at registration
		s.errorPage(w, r, http.StatusBadRequest, "The client's redirect URI cannot be used.")
		return
	}
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if req.state != "" {
		q.Set("state", req.state)
	}
	q.Set("iss", s.cfg.PublicURL)
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

// ticket signs the consent form for one user and exactly these request parameters, so a form
// cannot be answered by another person, altered, or kept for later.
func (s *Server) ticket(user User, v url.Values, issued time.Time) string {
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(issued.Unix()))
	return base64.RawURLEncoding.EncodeToString(append(ts[:], s.ticketMAC(user, v, ts[:])...))
}

func (s *Server) ticketMAC(user User, v url.Values, ts []byte) []byte {
	m := hmac.New(sha256.New, s.consentKey)
	m.Write([]byte("oauth-consent\x00" + user.ID + "\x00" + user.OrgID + "\x00"))
	m.Write(ts)
	for _, p := range authzParams {
		m.Write([]byte("\x00" + p + "=" + v.Get(p)))
	}
	return m.Sum(nil)
}

func (s *Server) checkTicket(t string, user User, v url.Values) bool {
	b, err := base64.RawURLEncoding.DecodeString(t)
	if err != nil || len(b) != 8+sha256.Size {
		return false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(b[:8])), 0)
	if age := s.now().Sub(issued); age < -time.Minute || age > consentTTL {
		return false
	}
	return subtle.ConstantTimeCompare(b[8:], s.ticketMAC(user, v, b[:8])) == 1
}

func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}
