package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"outreachd/outreach"
)

// metadata answers the authorization server metadata (RFC 8414).
func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	base := s.cfg.PublicURL
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         base,
		"authorization_endpoint":                         base + "/oauth/authorize",
		"token_endpoint":                                 base + "/oauth/token",
		"registration_endpoint":                          base + "/oauth/register",
		"revocation_endpoint":                            base + "/oauth/revoke",
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"revocation_endpoint_auth_methods_supported":     []string{"none"},
		"scopes_supported":                               []string{"read", "read_write"},
		"authorization_response_iss_parameter_supported": true,
	})
}

// registration is the client metadata a registration may send (RFC 7591 section 2); other
// members are ignored, as the RFC allows.
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              *string  `json:"client_name"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod *string  `json:"token_endpoint_auth_method"`
	Scope                   *string  `json:"scope"`
}

// maxRegistrationBytes bounds a registration's body: client metadata is a few hundred bytes, ten
// redirect URIs of 2,000 characters fit well within it.
const maxRegistrationBytes = 64 << 10

// register registers a public client (RFC 7591).
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	var in registration
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistrationBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "invalid_client_metadata",
			"error_description": fmt.Sprintf("the request body exceeds %d bytes; client metadata is a small JSON object", tooBig.Limit)})
		return
	case err != nil:
		registrationError(w, "invalid_client_metadata", "the request body could not be read")
		return
	case outreach.JSONEscapesNUL(body):
		registrationError(w, "invalid_client_metadata", "the body contains a NUL character (\\u0000), which is not allowed")
		return
	}
	if err := json.Unmarshal(body, &in); err != nil {
		registrationError(w, "invalid_client_metadata", "the body must be a JSON object of client metadata: "+outreach.DescribeJSONError(err, "request body"))
		return
	}
	uris, code, msg := checkRedirectURIs(in.RedirectURIs)
	if code != "" {
		registrationError(w, code, msg)
		return
	}
	if msg := checkClientMetadata(in); msg != "" {
		registrationError(w, "invalid_client_metadata", msg)
		return
	}
	name := ""
	if in.ClientName != nil {
		name = strings.TrimSpace(*in.ClientName)
	}
	if name == "" {
		u, _ := url.Parse(uris[0])
		name = u.Host
	}
	c := registeredClient{ID: outreach.NewID("occ"), Name: name, RedirectURIs: uris, RegisteredBy: remoteHost(r)}
	err = s.db.registerClient(r.Context(), &c, s.cfg.RegistrationsPerHour, s.cfg.RegistrationsPerAddress, s.now())
	if errors.Is(err, errTooManyClients) {
		w.Header().Set("Retry-After", "3600")
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": "temporarily_unavailable",
			"error_description": "too many clients were registered in the last hour; try again later"})
		return
	}
	if err != nil {
		s.log.Error("register oauth client", "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error", "error_description": "the client could not be registered"})
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        c.CreatedAt.Unix(),
		"client_name":                c.Name,
		"redirect_uris":              c.RedirectURIs,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"scope":                      "read read_write",
	})
}

// checkRedirectURIs accepts absolute https URIs, and http URIs on a loopback host (native apps'
// local receivers), without fragments; at most 10, each at most 2000 characters.
func checkRedirectURIs(in []string) (out []string, code, msg string) {
	if len(in) == 0 {
		return nil, "invalid_redirect_uri", "redirect_uris is required: a list of at least one redirect URI"
	}
	if len(in) > 10 {
		return nil, "invalid_redirect_uri", "redirect_uris holds more than 10 URIs"
	}
	for _, raw := range in {
		if len(raw) > 2000 || !utf8.ValidString(raw) {
			return nil, "invalid_redirect_uri", "a redirect URI is longer than 2000 characters or not UTF-8"
		}
		u, err := url.Parse(raw)
		if err != nil || !u.IsAbs() || u.Host == "" {
			return nil, "invalid_redirect_uri", "redirect URI " + quote(raw) + " is not an absolute URL"
		}
		if u.Fragment != "" || strings.Contains(raw, "#") {
			return nil, "invalid_redirect_uri", "redirect URI " + quote(raw) + " must not hold a fragment"
		}
		if u.User != nil {
			return nil, "invalid_redirect_uri", "redirect URI " + quote(raw) + " must not hold user information"
		}
		switch {
		case u.Scheme == "https":
		case u.Scheme == "http" && isLoopback(u.Hostname()):
		default:
			return nil, "invalid_redirect_uri", "redirect URI " + quote(raw) + " must use https (http only on localhost, 127.0.0.1 or [::1])"
		}
		if !slices.Contains(out, raw) {
			out = append(out, raw)
		}
	}
	return out, "", ""
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkClientMetadata refuses metadata this server cannot honour: it issues only codes and
// refresh tokens. A client asking for a secret-based token_endpoint_auth_method is registered as
// a public client instead ("none" in the answer, no secret), as RFC 7591 lets the server replace
// requested values: PKCE protects its codes, and many MCP clients ask for client_secret_post by
// default yet work without a secret.
func checkClientMetadata(in registration) string {
	if in.ClientName != nil && (utf8.RuneCountInString(*in.ClientName) > 100 || strings.ContainsAny(*in.ClientName, "\x00\r\n")) {
		return "client_name must be at most 100 characters on one line"
	}
	for _, g := range in.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return "grant_types may hold only authorization_code and refresh_token, not " + quote(g)
		}
	}
	if in.GrantTypes != nil && !slices.Contains(in.GrantTypes, "authorization_code") {
		return "grant_types must include authorization_code"
	}
	for _, rt := range in.ResponseTypes {
		if rt != "code" {
			return "response_types may hold only code, not " + quote(rt)
		}
	}
	if m := in.TokenEndpointAuthMethod; m != nil && !slices.Contains([]string{"none", "client_secret_basic", "client_secret_post"}, *m) {
		return "token_endpoint_auth_method " + quote(*m) + " is not supported; clients here are public (none)"
	}
	if in.Scope != nil {
		for _, sc := range strings.Fields(*in.Scope) {
			if sc != "read" && sc != "read_write" {
				return "scope may hold only read and read_write, not " + quote(sc)
			}
		}
	}
	return ""
}

func registrationError(w http.ResponseWriter, code, msg string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": msg})
}

// remoteHost is the address a request came from (the proxy's, behind one).
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
