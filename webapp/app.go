// Package webapp is the application in a browser: the pages under /app/ where a customer's
// operations person signs in and manages Event Destinations, API keys, campaigns (built, fed
// with leads from files and launched here) and the needs-human desk. Pages are rendered on the server (html/template) with one embedded
// stylesheet and one small script; nothing is loaded from elsewhere.
//
// Its own SQL is the sign-in's (Accounts: the people who sign in, their sessions and failed
// sign-ins) and the imports' (Imports: the files of leads, pushed through storage's push inside
// their own transactions). It holds no business rules: destinations go through the same manager
// as the API (delivery.Destinations), deliveries through the hub, drafts through the engine,
// everything else through storage. It must never send anything itself.
package webapp

import (
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"outreachd/delivery"
	"outreachd/storage"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Config is the application's share of the service configuration.
type Config struct {
	// PublicURL is the service's origin (PUBLIC_URL); under https the session cookie is Secure.
	PublicURL string
	// SessionIdle ends a session after this long without a request (default 12 h).
	SessionIdle time.Duration
	// SessionAbsolute ends a session this long after sign-in whatever happens (default 7 days).
	SessionAbsolute time.Duration
	// MaxFailuresPerAccount and MaxFailuresPerAddress are the failed sign-ins allowed per
	// FailureWindow for one email and for one client address (defaults 5, 50 and 15 minutes).
	MaxFailuresPerAccount int
	MaxFailuresPerAddress int
	FailureWindow         time.Duration
	// MaxImportRows and MaxImportBytes bound a file of leads (defaults 10,000 rows, 10 MiB);
	// ImportPoll is how often the import worker looks for files another process took in
	// (default 2 s; a file taken in here wakes it at once).
	MaxImportRows  int
	MaxImportBytes int64
	ImportPoll     time.Duration
}

func (c *Config) setDefaults() {
	c.SessionIdle = cmp.Or(c.SessionIdle, 12*time.Hour)
	c.SessionAbsolute = cmp.Or(c.SessionAbsolute, 7*24*time.Hour)
	c.MaxFailuresPerAccount = cmp.Or(c.MaxFailuresPerAccount, 5)
	c.MaxFailuresPerAddress = cmp.Or(c.MaxFailuresPerAddress, 50)
	c.FailureWindow = cmp.Or(c.FailureWindow, 15*time.Minute)
	c.MaxImportRows = cmp.Or(c.MaxImportRows, 10_000)
	c.MaxImportBytes = cmp.Or(c.MaxImportBytes, 10<<20)
	c.ImportPoll = cmp.Or(c.ImportPoll, 2*time.Second)
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
}

// Validate reports a configuration the application cannot run with.
func (c *Config) Validate() error {
	if !strings.HasPrefix(c.PublicURL, "http://") && !strings.HasPrefix(c.PublicURL, "https://") {
		return fmt.Errorf("webapp: PublicURL must start with http:// or https://, got %q", c.PublicURL)
	}
	if c.SessionIdle <= 0 || c.SessionAbsolute < c.SessionIdle {
		return errors.New("webapp: session limits must be positive and the absolute one at least the idle one")
	}
	if c.MaxImportRows < 1 || c.MaxImportBytes < 1 || c.ImportPoll <= 0 {
		return errors.New("webapp: the import limits and poll interval must be positive")
	}
	return nil
}

// Hub is what the pages need of the delivery hub (delivery.Destinations, built with the hub).
type Hub interface {
	Resend(ctx context.Context, orgID, deliveryID string) error
	Recover(ctx context.Context, orgID string, r delivery.RecoverRange) (int, error)
}

// Deps are the parts the pages call besides the store. Destinations is required; a nil Hub or
// Drafts makes the actions that need them answer that they are not available in this process.
type Deps struct {
	Logger       *slog.Logger
	Destinations *delivery.Destinations
	Hub          Hub
	Drafts       Drafts
	// Now is the wall clock (sessions, throttling, "x minutes ago"); nil means time.Now.
	Now func() time.Time
	// DomainNow is the outreach engine's clock (sped up in the demo), used for the days of the
	// campaign chart so they agree with the times the engine writes; nil means Now.
	DomainNow func() time.Time
	// SealIntakeToken keeps a sealed copy of a new intake token (the secrets box), so the API's
	// GET /campaigns/{id}/intake-url can show the URL again; nil keeps only its hash.
	SealIntakeToken storage.SealFunc
	// Inbox reads the seats' conversations live from the LinkedIn provider, the reader GET /inbox
	// uses; nil makes the Inbox say it is not available in this process.
	Inbox InboxReader
	// Replies sends a person's own reply from the Inbox (the outreach engine); nil: not available.
	Replies Replies
	// ClockSpeed is how many times faster than real time DomainNow runs (the simulator's speed);
	// above 1 every page says where the demo's clock stands. 0 means 1.
	ClockSpeed float64
	// Seats connects LinkedIn seats at once (the simulator); SeatLinks through the provider's
	// hosted sign-in (Unipile), and is used when both are set. With neither, the LinkedIn
	// accounts page says seats cannot be connected in this process.
	Seats     SeatConnector
	SeatLinks SeatLinks
}

// App serves the pages under /app/.
type App struct {
	store     *storage.Store
	accounts  *Accounts
	imports   *Imports
	deps      Deps
	cfg       Config
	log       *slog.Logger
	now       func() time.Time
	domainNow func() time.Time
	pages     map[string]*template.Template
	cop       *http.CrossOriginProtection
	secure    bool
	cookie    string
	version   string
	// importWake wakes the import worker when this process took in a file.
	importWake chan struct{}
}

// New builds the application.
func New(store *storage.Store, deps Deps, cfg Config) (*App, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if store == nil || deps.Destinations == nil {
		return nil, errors.New("webapp: store and destinations are required")
	}
	a := &App{store: store, accounts: NewAccounts(store), imports: NewImports(store), deps: deps, cfg: cfg, log: deps.Logger, now: deps.Now, domainNow: deps.DomainNow,
		secure: strings.HasPrefix(cfg.PublicURL, "https://"), importWake: make(chan struct{}, 1)}
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.now == nil {
		a.now = time.Now
	}
	if a.domainNow == nil {
		a.domainNow = a.now
	}
	a.cookie = "outreachd_session"
	if a.secure {
		// __Host-: the browser keeps it only if Secure, Path=/ and no Domain.
		a.cookie = "__Host-outreachd_session"
	}
	a.version = assetVersion()
	a.cop = http.NewCrossOriginProtection()
	if err := a.cop.AddTrustedOrigin(cfg.PublicURL); err != nil {
		return nil, fmt.Errorf("webapp: %w", err)
	}
	a.cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.renderError(w, r, http.StatusForbidden, "This request came from another site and was refused. Go back, reload the page and try again.")
	}))
	if err := a.parseTemplates(); err != nil {
		return nil, err
	}
	return a, nil
}

// Mount registers the pages on root under /app/. The subrouter has no not-found handler of its
// own, so other packages may still register paths under /app/ on root (the OAuth helper's
// /app/assistants).
func (a *App) Mount(root *mux.Router) {
	root.Handle("/app", http.RedirectHandler("/app/", http.StatusMovedPermanently)).Methods(http.MethodGet)
	sub := root.PathPrefix("/app").Subrouter()
	sub.Use(a.Protect, a.checkInput)
	static, _ := fs.Sub(staticFiles, "static")
	sub.PathPrefix("/static/").Handler(http.StripPrefix("/app/static/", cacheStatic(http.FileServerFS(static)))).
		Methods(http.MethodGet, http.MethodHead)
	sub.HandleFunc("/", a.home).Methods(http.MethodGet)
	sub.HandleFunc("/login", a.loginPage).Methods(http.MethodGet)
	sub.HandleFunc("/login", a.login).Methods(http.MethodPost)
	sub.HandleFunc("/logout", a.logout).Methods(http.MethodPost)
	a.destinationRoutes(sub)
	a.keyRoutes(sub)
	a.campaignRoutes(sub)
	a.needsHumanRoutes(sub)
	a.linkedInAccountRoutes(sub)
	a.inboxRoutes(sub)
	a.doNotContactRoutes(sub)
	a.analyticsRoutes(sub)
}

// Protect adds the application's security headers (a Content-Security-Policy that allows only
// this origin's script and style, no framing) and refuses cross-origin state changes
// (http.CrossOriginProtection). Other packages serving pages of the application wrap their
// handlers in it.
func (a *App) Protect(next http.Handler) http.Handler {
	guarded := a.cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		if a.secure {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		guarded.ServeHTTP(w, r)
	})
}

func cacheStatic(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Links carry ?v=<hash of the assets>, so a new build is fetched at once.
		w.Header().Set("Cache-Control", "public, max-age=86400")
		next.ServeHTTP(w, r)
	})
}

func (a *App) home(w http.ResponseWriter, r *http.Request) {
	if _, ok := a.SignedIn(r); !ok {
		http.Redirect(w, r, "/app/login", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/app/destinations", http.StatusSeeOther)
}
