package main_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"outreachd/internal/testenv"
	"outreachd/oauth"
	"outreachd/storage"
)

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// noUsers is the Users of an authorization server used here only to verify tokens.
type noUsers struct{}

func (noUsers) SignedIn(*http.Request) (oauth.User, bool) { return oauth.User{}, false }

// TestOAuthConsentRoundTrip drives the served binary the way an MCP client and a person in a
// browser would (a Go HTTP client with a cookie jar stands in for the browser): register, start
// the authorization, sign in through /app/login, Allow on the consent page, receive the code at a
// local redirect receiver, exchange it with the PKCE verifier, verify the access token (and open
// an MCP session with it), refresh, and revoke the assistant from the Connected assistants page.
func TestOAuthConsentRoundTrip(t *testing.T) {
	t.Parallel()
	rt := newRoundTrip(t)
	srv, redirect, clientID := rt.srv, rt.redirect, rt.clientID

	// The person's browser: sign-in happens on the way.
	verifier := rt.verifier
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	page := fetch(t, browser, http.MethodGet, rt.authorizeURL(), nil)
	if !strings.Contains(page.body, `name="password"`) {
		t.Fatalf("not sent to sign in first: %s", page.url)
	}
	next := hiddenValue(page.body, "next")
	page = fetch(t, browser, http.MethodPost, srv.URL+"/app/login",
		url.Values{"email": {rt.email}, "password": {rt.password}, "next": {next}})
	for _, want := range []string{"Round Trip Assistant", "Round Trip Co", ">Allow</button>", ">Deny</button>", "Event Destinations"} {
		if !strings.Contains(page.body, want) {
			t.Fatalf("consent page (%s) lacks %q:\n%s", page.url, want, page.body)
		}
	}
	form := url.Values{"decision": {"allow"}}
	for _, m := range hiddenInput.FindAllStringSubmatch(page.body, -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	fetch(t, browser, http.MethodPost, srv.URL+"/oauth/authorize", form)
	got := rt.received()
	code, state, iss := got.Get("code"), got.Get("state"), got.Get("iss")
	if code == "" || state != "xyz" || iss != srv.URL {
		t.Fatalf("redirect receiver got %v", got)
	}

	// The client exchanges the code with its verifier.
	tok := postForm(t, srv.URL+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {redirect}, "client_id": {clientID}, "code_verifier": {verifier}})
	rt.verify(tok)
	verifierSrv := rt.verifierSrv
	// The assistant server accepts the token, and refuses one that is not a live token.
	if c := mcpInitialize(t, srv.URL, tok["access_token"].(string)); c != http.StatusOK {
		t.Fatalf("the MCP server refused the OAuth access token: %d", c)
	}
	if c := mcpInitialize(t, srv.URL, "oat_not-a-token"); c != http.StatusUnauthorized {
		t.Fatalf("the MCP server accepted a made-up token: %d", c)
	}
	tok = postForm(t, srv.URL+"/oauth/token", url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {tok["refresh_token"].(string)}, "client_id": {clientID}})
	access2, _ := tok["access_token"].(string)
	if access2 == "" {
		t.Fatalf("refresh answer %v", tok)
	}

	// The person revokes the assistant on the Connected assistants page.
	page = fetch(t, browser, http.MethodGet, srv.URL+"/app/assistants", nil)
	m := regexp.MustCompile(`action="(/app/assistants/[^"]+/revoke)"`).FindStringSubmatch(page.body)
	if m == nil || !strings.Contains(page.body, "pat@roundtrip.test") || !strings.Contains(page.body, "Round Trip Assistant") {
		t.Fatalf("assistants page:\n%s", page.body)
	}
	fetch(t, browser, http.MethodPost, srv.URL+m[1], url.Values{})
	if c := mcpInitialize(t, srv.URL, access2); c != http.StatusUnauthorized {
		t.Fatalf("the MCP server accepted a revoked assistant's token: %d", c)
	}
	if _, err := verifierSrv.VerifyAccessToken(context.Background(), access2); err == nil {
		t.Fatal("token works after the assistant was revoked")
	}
}

// roundTrip is a served binary with an organization, a person who can sign in, a registered
// client and its local redirect receiver.
type roundTrip struct {
	t                            *testing.T
	srv                          *testenv.Server
	org, email, password         string
	redirect, clientID, verifier string
	challenge                    string
	verifierSrv                  *oauth.Server
	mu                           sync.Mutex
	got                          url.Values
}

func newRoundTrip(t *testing.T) *roundTrip {
	t.Helper()
	rt := &roundTrip{t: t, srv: testenv.StartServer(t, testenv.DatabaseURL(t)),
		email: "pat@roundtrip.test", password: "correct horse battery"}
	srv := rt.srv
	rt.org = testenv.Admin(t, srv.DBURL, "org", "create", "--name", "Round Trip Co")["org_id"].(string)
	testenv.Admin(t, srv.DBURL, "user", "create", "--org", rt.org, "--email", rt.email, "--password", rt.password)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			// A browser also asks the page's origin for /favicon.ico: not the redirect.
			http.NotFound(w, r)
			return
		}
		rt.mu.Lock()
		rt.got = r.URL.Query()
		rt.mu.Unlock()
		_, _ = io.WriteString(w, "you may close this window")
	}))
	t.Cleanup(receiver.Close)
	rt.redirect = receiver.URL + "/callback"

	// The client discovers the server and registers.
	meta := getJSON(t, srv.URL+"/.well-known/oauth-authorization-server")
	if meta["issuer"] != srv.URL || meta["registration_endpoint"] != srv.URL+"/oauth/register" {
		t.Fatalf("metadata %v", meta)
	}
	body, _ := json.Marshal(map[string]any{"client_name": "Round Trip Assistant", "redirect_uris": []string{rt.redirect}})
	resp, err := http.Post(srv.URL+"/oauth/register", "application/json", strings.NewReader(string(body)))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("register: %v %v", err, resp)
	}
	var client map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&client)
	resp.Body.Close()
	rt.clientID = client["client_id"].(string)

	var raw [32]byte
	_, _ = rand.Read(raw[:])
	rt.verifier = base64.RawURLEncoding.EncodeToString(raw[:])
	sum := sha256.Sum256([]byte(rt.verifier))
	rt.challenge = base64.RawURLEncoding.EncodeToString(sum[:])

	st, err := storage.Open(context.Background(), srv.DBURL, storage.Config{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	rt.verifierSrv, err = oauth.New(context.Background(), oauth.Deps{Store: st, Users: noUsers{}}, oauth.Config{PublicURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func (rt *roundTrip) authorizeURL() string {
	q := url.Values{"response_type": {"code"}, "client_id": {rt.clientID}, "redirect_uri": {rt.redirect},
		"code_challenge": {rt.challenge}, "code_challenge_method": {"S256"},
		"scope": {"read_write"}, "state": {"xyz"}, "resource": {rt.srv.URL + "/mcp"}}
	return rt.srv.URL + "/oauth/authorize?" + q.Encode()
}

func (rt *roundTrip) received() url.Values {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.got
}

// verify checks a token answer and its access token with VerifyAccessToken.
func (rt *roundTrip) verify(tok map[string]any) {
	rt.t.Helper()
	access, _ := tok["access_token"].(string)
	if access == "" || tok["scope"] != "read_write" {
		rt.t.Fatalf("token answer %v", tok)
	}
	g, err := rt.verifierSrv.VerifyAccessToken(context.Background(), access)
	if err != nil || g.OrgID != rt.org || g.ClientID != rt.clientID || g.Scope != "read_write" || !strings.HasPrefix(g.UserID, "usr_") {
		rt.t.Fatalf("VerifyAccessToken = %+v, %v", g, err)
	}
}

// mcpInitialize opens an MCP session at /mcp with the bearer token and returns the HTTP status.
func mcpInitialize(t *testing.T, base, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize",`+
		`"params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"oauth-test","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

type fetched struct {
	url  string
	body string
}

// fetch sends a request the way a browser would (following redirects, form-encoded bodies) and
// requires a 200 at the end.
func fetch(t *testing.T, c *http.Client, method, u string, form url.Values) fetched {
	t.Helper()
	var rd io.Reader
	if form != nil {
		rd = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, u, rd)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s ended at %s with %d:\n%s", method, u, resp.Request.URL, resp.StatusCode, b)
	}
	return fetched{resp.Request.URL.String(), string(b)}
}

func hiddenValue(page, name string) string {
	for _, m := range hiddenInput.FindAllStringSubmatch(page, -1) {
		if m[1] == name {
			return html.UnescapeString(m[2])
		}
	}
	return ""
}

func getJSON(t *testing.T, u string) map[string]any {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return m
}

func postForm(t *testing.T, u string, v url.Values) map[string]any {
	t.Helper()
	resp, err := http.PostForm(u, v)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %v", u, resp.StatusCode, m)
	}
	return m
}
