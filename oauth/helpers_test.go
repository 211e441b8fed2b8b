package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// fakeUsers signs people in by a cookie naming them; it stands in for the application's sessions
// (the people themselves are real rows of the application's users).
type fakeUsers struct {
	mu    sync.Mutex
	users map[string]User // cookie value -> user
}

func (f *fakeUsers) SignedIn(r *http.Request) (User, bool) {
	c, err := r.Cookie("test_session")
	if err != nil {
		return User{}, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	u, ok := f.users[c.Value]
	return u, ok
}

// env is one authorization server on a fresh database, with a clock the test moves.
type env struct {
	t      *testing.T
	store  *storage.Store
	srv    *Server
	http   *httptest.Server
	users  *fakeUsers
	mu     sync.Mutex
	clock  time.Time
	orgID  string
	user   User
	cookie string
	spec   *testenv.OpenAPI
}

func newEnv(t *testing.T, cfg Config) *env {
	t.Helper()
	t.Parallel()
	e := &env{t: t, store: testenv.Store(t), users: &fakeUsers{users: map[string]User{}},
		clock: time.Now().UTC().Truncate(time.Millisecond), spec: testenv.LoadOpenAPI(t)}
	router := mux.NewRouter()
	e.http = httptest.NewServer(router)
	t.Cleanup(e.http.Close)
	cfg.PublicURL = e.http.URL
	srv, err := New(context.Background(), Deps{Store: e.store, Users: e.users, Now: e.now}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	srv.Routes(router)
	e.orgID, e.user, e.cookie = e.newUser("Acme", "ops@acme.test")
	return e
}

func (e *env) now() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.clock
}

func (e *env) advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.clock = e.clock.Add(d)
}

// newUser creates an organization and a signed-in user in it; it returns the session cookie value.
func (e *env) newUser(org, email string) (string, User, string) {
	e.t.Helper()
	o, err := e.store.CreateOrg(context.Background(), org, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	u := User{ID: outreach.NewID("usr"), OrgID: o.ID, Email: email}
	if _, err := e.store.Pool().Exec(context.Background(), `INSERT INTO app_users (id, org_id, email, password_hash)
		VALUES ($1, $2, $3, 'not-a-password-hash')`, u.ID, u.OrgID, u.Email); err != nil {
		e.t.Fatal(err)
	}
	cookie := "sess-" + u.ID
	e.users.mu.Lock()
	e.users.users[cookie] = u
	e.users.mu.Unlock()
	return o.ID, u, cookie
}

// response is an answer read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("status %d, body not JSON: %s", r.status, r.body)
	}
	return m
}

// do sends a request without following redirects; cookie "" sends none; headers are name, value pairs.
func (e *env) do(method, path, contentType, body, cookie string, headers ...string) response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.http.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "test_session", Value: cookie})
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	// Every answer of a documented endpoint must match docs/openapi.yaml.
	if _, ok := e.spec.Find(method, path); ok {
		e.spec.Check(e.t, method, path, testenv.Response{Status: resp.StatusCode, Header: resp.Header, Body: b})
	}
	return response{resp.StatusCode, resp.Header, b}
}

func (e *env) postForm(path string, v url.Values) response {
	e.t.Helper()
	return e.do(http.MethodPost, path, "application/x-www-form-urlencoded", v.Encode(), "")
}

// register registers a client with the given redirect URIs and returns its id.
func (e *env) register(name string, uris ...string) string {
	e.t.Helper()
	b, _ := json.Marshal(map[string]any{"client_name": name, "redirect_uris": uris})
	r := e.do(http.MethodPost, "/oauth/register", "application/json", string(b), "")
	if r.status != http.StatusCreated {
		e.t.Fatalf("register: %d %s", r.status, r.body)
	}
	return r.json(e.t)["client_id"].(string)
}

// pkce returns a verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = newSecret("v") + newSecret("-")[:20]
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// authzQuery is a valid authorization request for the client.
func authzQuery(clientID, redirect, challenge string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "scope": {"read_write"}, "state": {"st-123"}}
}

var hiddenRe = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// consentForm opens the consent page as cookie's user and returns its hidden fields.
func (e *env) consentForm(q url.Values, cookie string) (url.Values, string) {
	e.t.Helper()
	r := e.do(http.MethodGet, "/oauth/authorize?"+q.Encode(), "", "", cookie)
	if r.status != http.StatusOK {
		e.t.Fatalf("consent page: %d %s %v", r.status, r.body, r.header.Get("Location"))
	}
	form := url.Values{}
	for _, m := range hiddenRe.FindAllStringSubmatch(string(r.body), -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	return form, string(r.body)
}

// decideAs posts the consent form with decision as cookie's user and returns the redirect's query.
func (e *env) decideAs(form url.Values, decision, cookie string, headers ...string) (response, url.Values) {
	e.t.Helper()
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	f.Set("decision", decision)
	r := e.do(http.MethodPost, "/oauth/authorize", "application/x-www-form-urlencoded", f.Encode(), cookie, headers...)
	loc, err := url.Parse(r.header.Get("Location"))
	if err != nil {
		e.t.Fatal(err)
	}
	return r, loc.Query()
}

// code runs the authorization as the env's user, allowing, and returns the code.
func (e *env) code(clientID, redirect, challenge string) string {
	e.t.Helper()
	form, _ := e.consentForm(authzQuery(clientID, redirect, challenge), e.cookie)
	r, q := e.decideAs(form, "allow", e.cookie)
	if r.status != http.StatusSeeOther || q.Get("code") == "" {
		e.t.Fatalf("allow: %d %v %s", r.status, r.header, r.body)
	}
	return q.Get("code")
}

// exchange redeems a code.
func (e *env) exchange(clientID, code, redirect, verifier string) response {
	e.t.Helper()
	return e.postForm("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {redirect}, "client_id": {clientID}, "code_verifier": {verifier}})
}

// tokens runs the whole flow and returns the access and refresh tokens.
func (e *env) tokens(clientID, redirect string) (access, refresh string) {
	e.t.Helper()
	v, c := pkce()
	r := e.exchange(clientID, e.code(clientID, redirect, c), redirect, v)
	if r.status != http.StatusOK {
		e.t.Fatalf("exchange: %d %s", r.status, r.body)
	}
	m := r.json(e.t)
	return m["access_token"].(string), m["refresh_token"].(string)
}

func (e *env) refresh(clientID, rt string) response {
	e.t.Helper()
	return e.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {clientID}})
}

// wantError checks an OAuth error answer.
func wantError(t *testing.T, r response, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	m := r.json(t)
	if m["error"] != code {
		t.Fatalf("error %v, want %s: %s", m["error"], code, r.body)
	}
	if d, _ := m["error_description"].(string); d == "" {
		t.Fatalf("no error_description: %s", r.body)
	}
}

func (e *env) verifies(token string) bool {
	e.t.Helper()
	_, err := e.srv.VerifyAccessToken(context.Background(), token)
	return err == nil
}
