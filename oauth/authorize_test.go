package oauth

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Errors before the client and its redirect URI are validated are shown on a page, never redirected.
func TestAuthorizeUntrustedErrorsStayOnPage(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", "https://claude.example/cb")
	_, c := pkce()
	cases := map[string]url.Values{
		"unknown client":        authzQuery("occ_unknown", "https://claude.example/cb", c),
		"no client":             authzQuery("", "https://claude.example/cb", c),
		"redirect not matching": authzQuery(id, "https://evil.example/cb", c),
		"redirect prefix only":  authzQuery(id, "https://claude.example/cb/more", c),
		"redirect twice":        {"client_id": {id}, "redirect_uri": {"https://claude.example/cb", "https://evil.example/cb"}},
	}
	for name, q := range cases {
		t.Run(name, func(t *testing.T) {
			r := e.do(http.MethodGet, "/oauth/authorize?"+q.Encode(), "", "", e.cookie)
			if r.status != http.StatusBadRequest || r.header.Get("Location") != "" {
				t.Fatalf("%d Location=%q", r.status, r.header.Get("Location"))
			}
			if !strings.Contains(r.header.Get("Content-Type"), "text/html") || !strings.Contains(string(r.body), "cannot be completed") {
				t.Fatalf("no error page: %s", r.body)
			}
		})
	}
}

// After the redirect URI is validated, errors go back to the client with state and iss (RFC 9207);
// PKCE is S256 only.
func TestAuthorizeRedirectedErrors(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", "https://claude.example/cb?keep=1")
	_, c := pkce()
	cases := []struct {
		name  string
		edit  func(q url.Values)
		code  string
		about string
	}{
		{"plain refused", func(q url.Values) { q.Set("code_challenge_method", "plain") }, "invalid_request", "S256"},
		{"no method", func(q url.Values) { q.Del("code_challenge_method") }, "invalid_request", "S256"},
		{"no challenge", func(q url.Values) { q.Del("code_challenge") }, "invalid_request", "code_challenge"},
		{"short challenge", func(q url.Values) { q.Set("code_challenge", "abc") }, "invalid_request", "code_challenge"},
		{"token response", func(q url.Values) { q.Set("response_type", "token") }, "unsupported_response_type", "code"},
		{"no response_type", func(q url.Values) { q.Del("response_type") }, "invalid_request", "response_type"},
		{"unknown scope", func(q url.Values) { q.Set("scope", "admin") }, "invalid_scope", "scope"},
		{"other resource", func(q url.Values) { q.Set("resource", "https://other.example/mcp") }, "invalid_target", "/mcp"},
		{"scope twice", func(q url.Values) { q["scope"] = []string{"read", "read"} }, "invalid_request", "more than once"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := authzQuery(id, "https://claude.example/cb?keep=1", c)
			tc.edit(q)
			r := e.do(http.MethodGet, "/oauth/authorize?"+q.Encode(), "", "", e.cookie)
			loc, err := url.Parse(r.header.Get("Location"))
			if r.status != http.StatusSeeOther || err != nil || loc.Host != "claude.example" || loc.Path != "/cb" {
				t.Fatalf("%d Location=%q", r.status, r.header.Get("Location"))
			}
			got := loc.Query()
			if got.Get("error") != tc.code || !strings.Contains(got.Get("error_description"), tc.about) ||
				got.Get("state") != "st-123" || got.Get("iss") != e.http.URL || got.Get("keep") != "1" || got.Has("code") {
				t.Fatalf("redirect query %v", got)
			}
		})
	}
	// The MCP server itself is accepted as the resource, also with a query; its URL with a
	// fragment or another path is not.
	for res, ok := range map[string]bool{e.http.URL + "/mcp": true, e.http.URL + "/mcp/": true, e.http.URL + "/mcp?toolsets=sdr": true,
		e.http.URL + "/mcp#x": false, e.http.URL + "/mcpx": false, e.http.URL + "/api/v1": false, e.http.URL: false} {
		q := authzQuery(id, "https://claude.example/cb?keep=1", c)
		q.Set("resource", res)
		r := e.do(http.MethodGet, "/oauth/authorize?"+q.Encode(), "", "", e.cookie)
		if (r.status == http.StatusOK) != ok {
			t.Errorf("resource %s: %d", res, r.status)
		}
	}
}

// Not signed in: to the application's sign-in with this very request as next.
func TestAuthorizeSignsInFirst(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", "https://claude.example/cb")
	_, c := pkce()
	path := "/oauth/authorize?" + authzQuery(id, "https://claude.example/cb", c).Encode()
	r := e.do(http.MethodGet, path, "", "", "")
	loc, _ := url.Parse(r.header.Get("Location"))
	if r.status != http.StatusFound || loc.Path != "/app/login" || loc.Query().Get("next") != path {
		t.Fatalf("%d %q", r.status, r.header.Get("Location"))
	}
}

// The consent page names the client, the organization and the scope in words, offers Allow and
// Deny, cannot be framed, and Allow answers a code with state and iss; Deny answers access_denied.
func TestConsentAllowAndDeny(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude <Desktop>", "https://claude.example/cb")
	_, c := pkce()
	q := authzQuery(id, "https://claude.example/cb", c)
	form, page := e.consentForm(q, e.cookie)
	for _, want := range []string{"Claude &lt;Desktop&gt;", "Acme", "ops@acme.test", "approve or dismiss reply drafts",
		`name="decision" value="allow" class="primary">Allow</button>`, `<button type="submit" name="decision" value="deny">Deny</button>`} {
		if !strings.Contains(page, want) {
			t.Errorf("consent page lacks %q", want)
		}
	}
	r := e.do(http.MethodGet, "/oauth/authorize?"+q.Encode(), "", "", e.cookie)
	if r.header.Get("X-Frame-Options") != "DENY" || !strings.Contains(r.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
		!strings.Contains(r.header.Get("Content-Security-Policy"), "form-action 'self' https://claude.example;") && !strings.HasSuffix(r.header.Get("Content-Security-Policy"), "form-action 'self' https://claude.example") {
		t.Errorf("consent page may be framed: %v", r.header)
	}
	resp, got := e.decideAs(form, "allow", e.cookie)
	if resp.status != http.StatusSeeOther || !strings.HasPrefix(got.Get("code"), "oac_") || got.Get("state") != "st-123" || got.Get("iss") != e.http.URL {
		t.Fatalf("allow: %d %v", resp.status, got)
	}
	resp, got = e.decideAs(form, "deny", e.cookie)
	if resp.status != http.StatusSeeOther || got.Get("error") != "access_denied" || got.Has("code") || got.Get("state") != "st-123" {
		t.Fatalf("deny: %d %v", resp.status, got)
	}
	q.Set("scope", "read")
	_, page = e.consentForm(q, e.cookie)
	if !strings.Contains(page, "cannot change anything") {
		t.Error("read scope not said in words")
	}
}

// The consent POST is refused from another site, from another person, after tampering and late.
func TestConsentPostProtected(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", "https://claude.example/cb")
	_, c := pkce()
	form, _ := e.consentForm(authzQuery(id, "https://claude.example/cb", c), e.cookie)

	r, _ := e.decideAs(form, "allow", e.cookie, "Sec-Fetch-Site", "cross-site")
	if r.status != http.StatusForbidden || r.header.Get("Location") != "" {
		t.Fatalf("cross-site POST: %d %q", r.status, r.header.Get("Location"))
	}
	r, _ = e.decideAs(form, "allow", e.cookie, "Origin", "https://evil.example")
	if r.status != http.StatusForbidden {
		t.Fatalf("cross-origin POST: %d", r.status)
	}
	_, _, other := e.newUser("Other", "eve@other.test")
	if r, _ := e.decideAs(form, "allow", other); r.status != http.StatusBadRequest || r.header.Get("Location") != "" {
		t.Fatalf("another person's form: %d %q", r.status, r.header.Get("Location"))
	}
	tampered := url.Values{}
	for k, v := range form {
		tampered[k] = v
	}
	readForm, _ := e.consentForm(func() url.Values {
		q := authzQuery(id, "https://claude.example/cb", c)
		q.Set("scope", "read")
		return q
	}(), e.cookie)
	tampered.Set("consent_ticket", readForm.Get("consent_ticket")) // a read consent's ticket on a read_write form
	if r, _ := e.decideAs(tampered, "allow", e.cookie); r.status != http.StatusBadRequest {
		t.Fatalf("tampered form: %d", r.status)
	}
	r, _ = e.decideAs(form, "allow", "")
	if loc, _ := url.Parse(r.header.Get("Location")); r.status != http.StatusSeeOther || loc.Path != "/app/login" {
		t.Fatalf("signed out: %d %q", r.status, r.header.Get("Location"))
	}
	e.advance(consentTTL + 1e9)
	if r, _ := e.decideAs(form, "allow", e.cookie); r.status != http.StatusBadRequest {
		t.Fatalf("late form: %d", r.status)
	}
}
