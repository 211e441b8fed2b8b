// Package api is outreachd's HTTP face: the keyed v1 API under /api/v1, the two webhook
// endpoints under /api/webhooks, health, readiness, metrics, and the API reference (GET
// /openapi.yaml and the page GET /docs rendered from it). It authenticates, scopes and
// rate-limits requests, decodes and validates input, calls storage and the domain, and maps
// every error to an HTTP answer in one place (errors.go). It holds no SQL.
package api

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"outreachd/delivery"
	"outreachd/docs"
	"outreachd/outreach"
	"outreachd/storage"
)

// Config is the API's share of the service configuration.
type Config struct {
	// PublicURL is the origin clients reach the service at, without a trailing slash.
	PublicURL string
	// RateLimitPerMinute is the default per-organization budget of keyed requests.
	RateLimitPerMinute int
	// InboxRateLimitPerMinute is the separate budget of GET /inbox.
	InboxRateLimitPerMinute int
	// IntakeRateLimitPerMinute is the budget of each intake URL (per token), apart from the
	// organization's.
	IntakeRateLimitPerMinute int
	// MaxBodyBytes caps every request body but a file upload's.
	MaxBodyBytes int64
	// MaxUploadBytes caps a file upload's body (multipart/form-data outside /api/, which no
	// endpoint of the API takes: the application's Import leads); default 11 MiB, a 10 MiB file
	// and its form.
	MaxUploadBytes int64
}

func (c *Config) setDefaults() {
	c.RateLimitPerMinute = cmp.Or(c.RateLimitPerMinute, 120)
	c.InboxRateLimitPerMinute = cmp.Or(c.InboxRateLimitPerMinute, 30)
	c.IntakeRateLimitPerMinute = cmp.Or(c.IntakeRateLimitPerMinute, 60)
	c.MaxBodyBytes = cmp.Or(c.MaxBodyBytes, 2<<20)
	c.MaxUploadBytes = cmp.Or(c.MaxUploadBytes, 11<<20)
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
}

// Validate reports a configuration the API cannot run with: the links it hands out (intake
// URLs, inbox and reconnect links) are built on PublicURL, so it must be an http(s) origin.
func (c Config) Validate() error {
	if !outreach.IsOrigin(c.PublicURL) {
		return fmt.Errorf("api: PublicURL %q must be an http(s) origin", c.PublicURL)
	}
	if c.RateLimitPerMinute < 1 || c.InboxRateLimitPerMinute < 1 || c.IntakeRateLimitPerMinute < 1 {
		return errors.New("api: rate limits must be positive")
	}
	if c.MaxBodyBytes < 1 || c.MaxUploadBytes < 1 {
		return errors.New("api: MaxBodyBytes and MaxUploadBytes must be positive")
	}
	return nil
}

// Deps are the parts the API calls besides the store. Each may be nil in tests that do not
// exercise it; the handlers that need a missing one answer 503.
type Deps struct {
	Logger *slog.Logger
	// Metrics serves GET /metrics.
	Metrics http.Handler
	// Registry receives the HTTP request metrics; nil means none are kept.
	Registry prometheus.Registerer
	// Now is the wall clock of authentication and rate limits; nil means time.Now.
	Now func() time.Time
	// DomainNow is the outreach engine's clock (the simulator's virtual clock when it runs sped
	// up for a demo): "today" of analytics, hours waiting, stall ages and stop/block stamps are
	// read on it so they agree with the times the engine writes. nil means Now.
	DomainNow func() time.Time
	// Extra lets other packages mount routes (the delivery hub's destinations API, say)
	// without this package importing them. Each is called with the keyed /api/v1 router
	// (auth and rate limit applied) and the root router.
	Extra []func(v1, root *mux.Router, h Helpers)
	// Destinations serves the Event Destinations endpoints (api/destinations.go) and the
	// delivery log's resend and recover (api/deliveries.go); nil answers 503.
	Destinations *delivery.Destinations
	// Inbox reads live LinkedIn conversations for GET /inbox (api/inbox.go); nil answers 503.
	Inbox InboxReader
	// Secrets seals intake tokens so their URL can be shown again (api/intake_url.go); nil
	// answers 503 there.
	Secrets SecretBox
	// Assistant serves the assistant (MCP) server at /mcp and its OAuth protected-resource
	// metadata at /.well-known/oauth-protected-resource; nil answers 501 at /mcp.
	Assistant http.Handler
	// Drafts approves and dismisses needs-human drafts (the outreach engine); nil answers 503.
	Drafts DraftDesk
	// Replies sends a client's own reply into a conversation (the outreach engine); nil answers 503.
	Replies ReplySender
	// Traces records a span per request (trace.go); nil records none.
	Traces trace.TracerProvider
}

// Server holds the dependencies of every handler.
type Server struct {
	// reference is the GET /docs page, rendered once from the embedded OpenAPI document.
	reference []byte

	store *storage.Store
	deps  Deps
	cfg   Config
	log   *slog.Logger
	now   func() time.Time
	// domainNow: see Deps.DomainNow.
	domainNow func() time.Time
	invokeState
}

// NewServer builds the API.
func NewServer(store *storage.Store, deps Deps, cfg Config) (*Server, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	page, err := renderReference(docs.OpenAPI, cfg.PublicURL)
	if err != nil {
		return nil, err
	}
	s := &Server{store: store, deps: deps, cfg: cfg, log: deps.Logger, now: deps.Now}
	s.reference = page
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.domainNow = deps.DomainNow
	if s.domainNow == nil {
		s.domainNow = s.now
	}
	return s, nil
}

// Handler returns the router with every route mounted.
func (s *Server) Handler() http.Handler {
	// No path cleaning: gorilla/mux would answer a path with an empty or dot segment (a client's
	// missing id, as in /campaigns//leads) with a bodiless 301 to the cleaned path, which clients
	// follow for a POST as a GET to another endpoint. Such a path is a 404 naming it instead.
	root := mux.NewRouter().SkipClean(true)
	if s.deps.Registry != nil {
		root.Use(newHTTPMetrics(s.deps.Registry).middleware)
	}
	// One handler for both: gorilla/mux reports a method mismatch only when the mismatching route
	// is the last one tried, so a known path with another method is told apart here.
	unmatched := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if allowed := allowedMethods(root, r); len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			writeError(w, http.StatusMethodNotAllowed, CodeInvalidRequest,
				"method "+r.Method+" is not allowed on "+r.URL.Path+"; allowed: "+strings.Join(allowed, ", "))
			return
		}
		msg := "no such endpoint: " + r.Method + " " + r.URL.Path
		if hint := oddSegment(r.URL.Path); hint != "" {
			msg += " (" + hint + ")"
		}
		writeError(w, http.StatusNotFound, CodeNotFound, msg)
	})
	root.NotFoundHandler, root.MethodNotAllowedHandler = unmatched, unmatched
	root.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	}).Methods(http.MethodGet)
	root.HandleFunc("/readyz", s.readyz).Methods(http.MethodGet)
	root.HandleFunc("/openapi.yaml", s.serveOpenAPI).Methods(http.MethodGet)
	root.HandleFunc("/docs", s.serveReference).Methods(http.MethodGet)
	if s.deps.Metrics != nil {
		root.Handle("/metrics", s.deps.Metrics).Methods(http.MethodGet)
	}
	if s.deps.Assistant != nil {
		root.Handle("/mcp", s.deps.Assistant)
		root.Handle("/.well-known/oauth-protected-resource", s.deps.Assistant)
	} else {
		root.PathPrefix("/mcp").HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusNotImplemented, CodeNotImplemented, "the assistant (MCP) server is not available in this process")
		})
	}

	v1 := root.PathPrefix("/api/v1").Subrouter()
	v1.NotFoundHandler = root.NotFoundHandler
	v1.MethodNotAllowedHandler = root.MethodNotAllowedHandler
	v1.Use(s.authenticate, s.rateLimit(bucketDefault))
	s.routes(v1, root)
	for _, mount := range s.deps.Extra {
		mount(v1, root, s.helpers())
	}

	h := s.limitBody(rejectBadText(root))
	if s.deps.Traces != nil {
		root.Use(nameSpan)
		h = traceRequests(s.deps.Traces, h)
	}
	return h
}

// oddSegment explains a path that no route can match because of an empty segment (usually an
// id left out) or a dot segment, which the router does not resolve; "" for any other path.
func oddSegment(path string) string {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, seg := range segs {
		switch {
		case seg == "" && i < len(segs)-1:
			return "the path has an empty segment; is an id missing?"
		case seg == "." || seg == "..":
			return "dot segments are not resolved; send the path without them"
		}
	}
	return ""
}

// allowedMethods lists the methods router serves on r's path.
func allowedMethods(router *mux.Router, r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		var match mux.RouteMatch
		if router.Match(probe, &match) && match.MatchErr == nil {
			out = append(out, m)
		}
	}
	return out
}

// rejectBadText answers 400 for a path or query that holds a NUL character or bytes that are not
// UTF-8 (after percent-decoding): no id, filter or name can hold them, and PostgreSQL would refuse
// them as text.
func rejectBadText(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bad := func(s string) bool { return !utf8.ValidString(s) || strings.ContainsRune(s, 0) }
		if bad(r.URL.Path) {
			writeErrorFor(w, r, http.StatusBadRequest, CodeInvalidRequest, "the request path holds a NUL character or bytes that are not UTF-8")
			return
		}
		for name, values := range r.URL.Query() {
			if bad(name) {
				writeErrorFor(w, r, http.StatusBadRequest, CodeInvalidRequest, "a query parameter name holds a NUL character or bytes that are not UTF-8")
				return
			}
			for _, v := range values {
				if bad(v) {
					writeErrorFor(w, r, http.StatusBadRequest, CodeInvalidRequest,
						"query parameter "+strconv.Quote(name)+" holds a NUL character or bytes that are not UTF-8")
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		w.Header().Set("Retry-After", unavailableRetryAfter)
		writeError(w, http.StatusServiceUnavailable, CodeNotReady, "database unreachable")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit := s.cfg.MaxBodyBytes
		// A file upload is the application's (Import leads): the API's own endpoints take JSON, so
		// a multipart body sent to them keeps the body cap and is never read past it.
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && mt == "multipart/form-data" &&
			!strings.HasPrefix(r.URL.Path, "/api/") {
			limit = s.cfg.MaxUploadBytes
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}
