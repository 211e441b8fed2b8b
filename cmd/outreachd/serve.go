package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/oklog/run"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"outreachd/adapters/linkedin"
	"outreachd/adapters/unipile"
	"outreachd/api"
	"outreachd/delivery"
	"outreachd/engine"
	"outreachd/mcp"
	"outreachd/outreach"
	"outreachd/storage"
)

// worker is a background loop that runs until its context is cancelled.
type worker struct {
	name string
	run  func(ctx context.Context) error
}

// app is everything serve builds, so tests of the wiring and the demo set-up share one shape.
type app struct {
	cfg      Config
	log      *slog.Logger
	store    *storage.Store
	registry *prometheus.Registry
	apiDeps  api.Deps
	workers  []worker
	// sim and clock are the simulated LinkedIn world and the engine clock (wireEngine).
	sim   *linkedin.Simulator
	clock *outreach.VirtualClock
	// hub is the delivery hub (nil when not wired).
	hub *delivery.Hub
	// deliveries is the delivery hub's store, attached to store.
	deliveries *delivery.Store
	// seatLinks makes Unipile sign-in links for new seats (ConnectLink); nil with the simulator.
	seatLinks *unipile.Seats
	// seatEnricher, set by the wiring of a real LinkedIn provider, looks pushed leads up through
	// the organization's seats; nil: the enrichment simulator (wireEnrichment).
	seatEnricher engine.LeadEnricher
}

func runServe(ctx context.Context, args []string) error {
	var demo, fresh bool
	cfg, err := loadConfig(args, func(fs *flag.FlagSet) {
		fs.BoolVar(&demo, "demo", false, "create (or reuse) a demo organization and print a fresh read_write API key")
		fs.BoolVar(&fresh, "fresh", false, "with --demo: empty the (demo) database first and start the demo over")
	})
	if err != nil {
		return err
	}
	if fresh && !demo {
		return errors.New("--fresh starts the demo over and needs --demo")
	}
	if demo && cfg.LinkedInProvider != "simulator" {
		return fmt.Errorf("--demo runs on the LinkedIn simulator; unset LINKEDIN_PROVIDER")
	}
	log := newLogger(cfg.LogLevel, cfg.LogFormat, os.Stderr)
	if applyGCDefaults(os.Getenv) {
		log.Info("collector settings: serve's defaults (set GOGC or GOMEMLIMIT to choose your own)", "GOGC", serveGCPercent, "GOMEMLIMIT_bytes", serveMemoryLimit)
	}
	flushTraces, err := newTraces(ctx, &cfg, log)
	if err != nil {
		return err
	}
	defer flushTraces()
	st, ds, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	if fresh {
		if st, ds, err = emptyForFreshDemo(ctx, cfg, st, log); err != nil {
			return err
		}
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return err
	}

	a := &app{cfg: cfg, log: log, store: st, deliveries: ds, registry: prometheus.NewRegistry()}
	a.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	a.apiDeps = api.Deps{
		Logger:   log,
		Registry: a.registry,
		Metrics:  promhttp.HandlerFor(a.registry, promhttp.HandlerOpts{Registry: a.registry}),
		Traces:   cfg.Traces,
	}
	if err := a.wire(ctx); err != nil {
		return err
	}
	web, err := a.wireWebApp()
	if err != nil {
		return err
	}
	oa, err := a.wireOAuth(ctx, web)
	if err != nil {
		return err
	}
	if err := a.wireAssistant(oa); err != nil {
		return err
	}
	srv, err := api.NewServer(st, a.apiDeps, api.Config{
		PublicURL:                cfg.PublicURL,
		RateLimitPerMinute:       cfg.RateLimitPerMinute,
		InboxRateLimitPerMinute:  cfg.InboxRateLimitPerMinute,
		IntakeRateLimitPerMinute: cfg.IntakeRateLimitPerMinute,
	})
	if err != nil {
		return err
	}
	// The operator CLI builds intake URLs on this origin, not on its own environment's.
	if err := st.RecordPublicURL(ctx, cfg.PublicURL); err != nil {
		return err
	}
	if demo {
		if err := a.setUpDemo(ctx, os.Stdout); err != nil {
			return fmt.Errorf("demo set-up: %w", err)
		}
	}

	return a.serve(ctx, srv.Handler())
}

// serve listens on HTTP_ADDR and runs the HTTP server, every worker and the profiler as one run
// group (lifecycle.go) until a signal or a failure ends it.
func (a *app) serve(ctx context.Context, handler http.Handler) error {
	cfg, log := a.cfg, a.log
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	}
	httpSrv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	log.Info("serving", "addr", ln.Addr().String(), "public_url", cfg.PublicURL)
	if cfg.AllowPrivateDestinations {
		log.Warn("ALLOW_PRIVATE_DESTINATIONS=true: event destinations on loopback and private addresses are accepted (local development and tests only)")
	}
	stop := newStopping(log, cfg.ShutdownTimeout)
	var g run.Group
	signalActor(ctx, &g)
	httpActor(&g, stop, httpSrv, ln)
	for _, w := range a.workers {
		workerActor(&g, stop, w)
	}
	if cfg.PprofAddr != "" {
		pprofActor(&g, stop, cfg.PprofAddr)
	}
	err = g.Run()
	log.Info("stopped")
	if errors.Is(err, run.ErrSignal) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// wire builds the background parts (enrichment, delivery, engine) and adds their workers and
// routes. Each part is constructed from the configuration alone.
func (a *app) wire(ctx context.Context) error {
	a.workers = append(a.workers, worker{name: "janitor", run: a.janitor})
	// Delivery hub and the Event Destinations API (cmd/outreachd/admin_destination.go).
	box, err := loadSecretBox(ctx, a.cfg, a.store, a.log)
	if err != nil {
		return err
	}
	hub, err := buildHub(a.cfg, a.deliveries, box, a.registry, a.log)
	if err != nil {
		return err
	}
	a.hub = hub
	a.workers = append(a.workers, worker{name: "delivery", run: hub.Run})
	keep := func(d time.Duration) time.Duration { // 0 in the environment keeps everything
		if d == 0 {
			return -1
		}
		return d
	}
	retention, err := delivery.NewRetention(a.deliveries, a.store, a.registry, delivery.RetentionConfig{
		Attempts: keep(a.cfg.RetentionAttempts), Outbox: keep(a.cfg.RetentionOutbox),
		Interval: a.cfg.RetentionInterval, Logger: a.log,
	})
	if err != nil {
		return err
	}
	a.workers = append(a.workers, worker{name: "retention", run: retention.Run})
	if err := a.wireDestinations(box, hub); err != nil {
		return err
	}
	a.apiDeps.Secrets = box
	if err := a.wireEngine(ctx); err != nil {
		return err
	}
	return a.wireEnrichment()
}

// deletedDestinationKeep is how long a deleted destination's attempt log and deliveries stay
// readable (the delivery history's retention, 30 days) before the janitor purges them with it.
const deletedDestinationKeep = 30 * 24 * time.Hour

// janitor prunes finished rate-limit windows and old assistant proposals, purges destinations
// deleted longer ago than deletedDestinationKeep, drops destination secrets whose rotation overlap
// has ended (readers already ignore them), and folds the prospect counter deltas (every
// 5 s, so readers of prospect_counts sum few rows; counts are exact with or without it).
func (a *app) janitor(ctx context.Context) error {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	fold := time.NewTicker(5 * time.Second)
	defer fold.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-fold.C:
			if _, err := a.store.FoldProspectCounts(ctx); err != nil && ctx.Err() == nil {
				a.log.Warn("fold prospect counts", "err", err)
			}
			if err := a.deliveries.DropExpiredSecrets(ctx); err != nil && ctx.Err() == nil {
				a.log.Warn("drop expired destination secrets", "err", err)
			}
		case <-t.C:
			if err := a.store.PruneRateWindows(ctx, time.Now().Add(-2*time.Minute)); err != nil && ctx.Err() == nil {
				a.log.Warn("prune rate windows", "err", err)
			}
			if n, err := a.deliveries.PurgeDeletedDestinations(ctx, time.Now().Add(-deletedDestinationKeep)); err != nil && ctx.Err() == nil {
				a.log.Warn("purge deleted destinations", "err", err)
			} else if n > 0 {
				a.log.Info("purged deleted destinations with their history", "n", n)
			}
			if _, err := mcp.NewProposals(a.store).Prune(ctx, time.Now()); err != nil && ctx.Err() == nil {
				a.log.Warn("prune assistant proposals", "err", err)
			}
		}
	}
}

// newLogger writes to w at level (validated by loadConfig) in format "text" or "json".
func newLogger(level, format string, w io.Writer) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: l}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
