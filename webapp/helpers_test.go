package webapp_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"outreachd/adapters/webhook"
	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
	"outreachd/webapp"
)

// env is the application served in-process on a fresh database, with a clock the test moves.
type env struct {
	t     testing.TB
	store *storage.Store
	dests *delivery.Store
	app   *webapp.App
	srv   *httptest.Server
	mu    sync.Mutex
	now   time.Time
	// errs counts the records the application logged at level ERROR.
	errs atomic.Int64
}

// errorCounter passes records on to the default logger and counts those at level ERROR.
type errorCounter struct {
	slog.Handler
	n *atomic.Int64
}

func (h errorCounter) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		h.n.Add(1)
	}
	return h.Handler.Handle(ctx, r)
}

func (e *env) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *env) advance(d time.Duration) {
	e.mu.Lock()
	e.now = e.now.Add(d)
	e.mu.Unlock()
}

// newEnv starts the application. Private destination addresses are refused, as in production.
func newEnv(t testing.TB, cfg webapp.Config) *env {
	t.Helper()
	return newEnvWith(t, cfg, nil)
}

// newEnvWith is newEnv with a draft desk for the Needs Human page.
func newEnvWith(t testing.TB, cfg webapp.Config, drafts webapp.Drafts) *env {
	t.Helper()
	return newEnvDeps(t, cfg, func(_ *env, d *webapp.Deps) { d.Drafts = drafts })
}

// newEnvDeps is newEnv with the parts set gives the application (a draft desk, an inbox reader,
// replies, the engine's clock).
func newEnvDeps(t testing.TB, cfg webapp.Config, set func(e *env, d *webapp.Deps)) *env {
	t.Helper()
	st, ds := testenv.Stores(t)
	key := make([]byte, 32)
	box, err := delivery.NewSecretBox(key)
	if err != nil {
		t.Fatal(err)
	}
	dests, err := delivery.NewDestinations(ds, delivery.DestinationsConfig{Sealer: box, Guard: webhook.Guard{},
		NewSecret: delivery.GenerateSecret})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, store: st, dests: ds, now: time.Now()}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://127.0.0.1"
	}
	logger := slog.New(errorCounter{Handler: slog.Default().Handler(), n: &e.errs})
	deps := webapp.Deps{Destinations: dests, Now: e.clock, Logger: logger}
	set(e, &deps)
	e.app, err = webapp.New(st, deps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	root := mux.NewRouter()
	e.app.Mount(root)
	e.srv = httptest.NewServer(root)
	t.Cleanup(e.srv.Close)
	return e
}

// org makes an organization with one user and returns both ids.
func (e *env) org(email, password string) (orgID, userID string) {
	e.t.Helper()
	ctx := context.Background()
	o, err := e.store.CreateOrg(ctx, "Org of "+email, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	hash, err := webapp.HashPassword(password)
	if err != nil {
		e.t.Fatal(err)
	}
	u, err := webapp.NewAccounts(e.store).CreateUser(ctx, o.ID, email, hash, webapp.RoleMember)
	if err != nil {
		e.t.Fatal(err)
	}
	return o.ID, u.ID
}

// client is a browser-like client: a cookie jar, redirects not followed.
type client struct {
	t    testing.TB
	base string
	http *http.Client
}

func (e *env) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: e.t, base: e.srv.URL, http: &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	Status int
	Header http.Header
	Body   string
}

func (c *client) do(method, path string, form url.Values, headers ...string) page {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return c.send(req, headers...)
}

// send sends req with the extra headers (name, value, …) and reads the answer.
func (c *client) send(req *http.Request, headers ...string) page {
	c.t.Helper()
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return page{Status: res.StatusCode, Header: res.Header, Body: string(b)}
}

func (c *client) get(path string) page { return c.do(http.MethodGet, path, nil) }

func (c *client) post(path string, form url.Values) page { return c.do(http.MethodPost, path, form) }

func (c *client) login(email, password string) page {
	c.t.Helper()
	return c.post("/app/login", url.Values{"email": {email}, "password": {password}})
}

func (c *client) mustLogin(email, password string) {
	c.t.Helper()
	if p := c.login(email, password); p.Status != http.StatusSeeOther {
		c.t.Fatalf("sign in as %s: %d %s", email, p.Status, p.Body)
	}
}

// seat connects a LinkedIn seat of the organization (a fixture: the row the engine writes when a
// provider connects one) and returns its id.
func (e *env) seat(orgID, name string) string {
	e.t.Helper()
	id := outreach.NewID("acc")
	if _, err := e.store.Pool().Exec(context.Background(), `INSERT INTO linkedin_accounts (id, org_id, name, provider_account_id)
		VALUES ($1, $2, $3, $4)`, id, orgID, name, "sim-"+id); err != nil {
		e.t.Fatal(err)
	}
	return id
}
