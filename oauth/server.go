// Package oauth is outreachd's OAuth 2.1 authorization server for assistants (MCP clients):
// server metadata (RFC 8414), dynamic registration of public clients (RFC 7591), the
// authorization code flow with PKCE S256 only and a consent page, rotating refresh tokens, token
// revocation (RFC 7009), the "Connected assistants" page, and VerifyAccessToken for the MCP
// server. Tokens are opaque; only their SHA-256 hashes are stored.
//
// It does not sign people in (the application does, behind the Users interface) and does not
// serve the protected resource's metadata (the MCP server does).
package oauth

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// User is the signed-in person as this package needs them.
type User struct {
	ID    string
	OrgID string
	Email string
}

// Users tells who is signed in to the application.
type Users interface {
	SignedIn(r *http.Request) (User, bool)
}

// PageFunc renders body as a page of the application, in its layout, with the given title.
type PageFunc func(w http.ResponseWriter, r *http.Request, status int, title string, body template.HTML)

// Store is what the server needs of storage: the pools its own SQL runs on, the service key that
// signs consent forms, and the organization a page names.
type Store interface {
	DB
	ServiceKey(ctx context.Context, name string, size int) (key []byte, created bool, err error)
	GetOrg(ctx context.Context, id string) (storage.Org, error)
}

// Deps are what the server is built from.
type Deps struct {
	Store Store
	Users Users
	// Page renders a page in the application's layout; nil uses this package's own plain layout.
	Page PageFunc
	// Protect wraps the pages (consent, connected assistants) in the application's security
	// headers and cross-origin checks; nil adds only this package's own.
	Protect func(http.Handler) http.Handler
	Logger  *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Config tunes the server.
type Config struct {
	// PublicURL is the issuer: the origin the service is reached at, without a trailing slash.
	PublicURL string
	// CodeTTL is an authorization code's life (default 60 s).
	CodeTTL time.Duration
	// AccessTTL is an access token's life (default 1 h).
	AccessTTL time.Duration
	// RefreshTTL is a refresh token's life (default 30 days).
	RefreshTTL time.Duration
	// RegistrationsPerHour bounds client registrations over the last hour, in total (default
	// 200) and from one address (RegistrationsPerAddress, default 20), so the open registration
	// endpoint cannot be used to fill the database.
	RegistrationsPerHour    int
	RegistrationsPerAddress int
}

func (c *Config) setDefaults() {
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	c.CodeTTL = cmp.Or(c.CodeTTL, 60*time.Second)
	c.AccessTTL = cmp.Or(c.AccessTTL, time.Hour)
	c.RefreshTTL = cmp.Or(c.RefreshTTL, 30*24*time.Hour)
	c.RegistrationsPerHour = cmp.Or(c.RegistrationsPerHour, 200)
	c.RegistrationsPerAddress = cmp.Or(c.RegistrationsPerAddress, 20)
}

// Validate checks the configuration.
func (c Config) Validate() error {
	if !outreach.IsOrigin(c.PublicURL) {
		return fmt.Errorf("oauth: PublicURL %q must be an http(s) origin", c.PublicURL)
	}
	if c.CodeTTL < 0 || c.AccessTTL < 0 || c.RefreshTTL < 0 || c.RegistrationsPerHour < 0 || c.RegistrationsPerAddress < 0 {
		return errors.New("oauth: lifetimes and registration bounds must not be negative")
	}
	return nil
}

// Server is the authorization server.
type Server struct {
	store      Store
	db         *db
	users      Users
	page       PageFunc
	protect    func(http.Handler) http.Handler
	log        *slog.Logger
	now        func() time.Time
	cfg        Config
	consentKey []byte
	csrf       *http.CrossOriginProtection
}

// consentKeyName names the service key that signs consent forms.
const consentKeyName = "oauth_consent_key"

// New builds the server. It reads (or creates) the key that signs consent forms, so every
// instance of the service accepts the forms of the others.
func New(ctx context.Context, deps Deps, cfg Config) (*Server, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Store == nil || deps.Users == nil {
		return nil, errors.New("oauth: Store and Users are required")
	}
	key, _, err := deps.Store.ServiceKey(ctx, consentKeyName, 32)
	if err != nil {
		return nil, fmt.Errorf("oauth: consent key: %w", err)
	}
	s := &Server{store: deps.Store, db: newDB(deps.Store), users: deps.Users, page: deps.Page, protect: deps.Protect,
		log: deps.Logger, now: deps.Now, cfg: cfg, consentKey: key, csrf: http.NewCrossOriginProtection()}
	if err := s.csrf.AddTrustedOrigin(cfg.PublicURL); err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	if s.protect == nil {
		s.protect = func(h http.Handler) http.Handler { return h }
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.page == nil {
		s.page = plainPage
	}
	return s, nil
}

// Routes mounts every endpoint on the root router.
func (s *Server) Routes(root *mux.Router) {
	api := func(path string, h http.HandlerFunc, methods ...string) {
		root.HandleFunc(path, cors(h)).Methods(append(methods, http.MethodOptions)...)
	}
	api("/.well-known/oauth-authorization-server", s.metadata, http.MethodGet)
	api("/oauth/register", s.register, http.MethodPost)
	api("/oauth/token", s.token, http.MethodPost)
	api("/oauth/revoke", s.revoke, http.MethodPost)
	page := func(path string, h http.HandlerFunc, method string) {
		root.Handle(path, s.protect(h)).Methods(method)
	}
	page("/oauth/authorize", s.authorize, http.MethodGet)
	page("/oauth/authorize", s.decide, http.MethodPost)
	page("/app/assistants", s.assistants, http.MethodGet)
	page("/app/assistants/{id}/revoke", s.revokeAssistant, http.MethodPost)
}

// Run prunes expired codes and tokens, long-revoked grants and clients nobody ever allowed, once
// an hour until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if err := s.db.prune(ctx, s.now()); err != nil && ctx.Err() == nil {
			s.log.Warn("prune oauth", "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// cors lets browser-based clients read the metadata and call the registration, token and
// revocation endpoints: none of them uses cookies, so any origin may.
func cors(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Authorization, MCP-Protocol-Version")
			w.Header().Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h(w, r)
	}
}

// newSecret returns prefix + 43 base64url characters of 32 random bytes.
func newSecret(prefix string) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

func hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// resourceURL is the one protected resource tokens are for: the MCP server.
func (s *Server) resourceURL() string { return s.cfg.PublicURL + "/mcp" }
