package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"outreachd/adapters/drafter"
	"outreachd/adapters/enrichment"
	"outreachd/adapters/linkedin"
	"outreachd/api"
	"outreachd/engine"
	"outreachd/outreach"
)

// The outreach engine's wiring: the LinkedIn simulator (the configured provider) on a
// VirtualClock running at SIMULATOR_SPEED, shared by the engine so that sequence delays and
// simulated network delays are measured on one clock. The simulator is the engine's LinkedIn and
// Operator ports and GET /inbox's reader as it is; the drafter's glue is here.

var (
	_ engine.LinkedIn = (*linkedin.Simulator)(nil)
	_ engine.Operator = (*linkedin.Simulator)(nil)
	_ api.InboxReader = (*linkedin.Simulator)(nil)
)

// engineClock starts the engine clock where the last serving instance's clock stood, or where
// the simulated world's clock was saved when its last process stopped (so a restart does not
// move a sped-up clock back behind the world's pending events and the prospects' next steps),
// or at the wall clock, whichever is latest. SIMULATOR_SPEED 0 means real time here: a serving
// engine on a frozen clock would never do anything.
func (a *app) engineClock(ctx context.Context, worlds *linkedin.PostgresWorlds) (*outreach.VirtualClock, error) {
	start := time.Now()
	if t, ok, err := engine.ServingClock(ctx, a.store.Pool()); err == nil && ok && t.After(start) {
		start = t
	}
	world, err := worlds.OpenSimWorld(ctx, linkedin.WorldBase(a.cfg.SimulatorSeed))
	if err != nil {
		return nil, err
	}
	t, ok, err := worlds.SimClock(ctx, world)
	if err != nil {
		return nil, fmt.Errorf("read the simulated clock: %w", err)
	}
	if ok && t.After(start) {
		start = t
	}
	speed := a.cfg.SimulatorSpeed
	if speed == 0 {
		speed = 1
	}
	return outreach.NewVirtualClock(start, speed), nil
}

// newSimulator builds an in-memory simulator under SIMULATOR_SEED, for what derives from the
// seed alone (a seat's provider id in `admin account connect`).
func newSimulator(cfg Config, clock outreach.Clock) (*linkedin.Simulator, error) {
	return linkedin.NewSimulator(clock, linkedin.SimConfig{Seed: cfg.SimulatorSeed})
}

// wireEngine opens the simulated LinkedIn world kept in PostgreSQL (the configured provider),
// adds the outreach engine worker and lets GET /inbox read the same simulator; with
// LINKEDIN_PROVIDER=unipile it wires Unipile instead (unipile_wiring.go).
func (a *app) wireEngine(ctx context.Context) error {
	if a.cfg.LinkedInProvider == "unipile" {
		return a.wireUnipileEngine(ctx)
	}
	worlds := linkedin.NewPostgresWorlds(a.store.Pool())
	clock, err := a.engineClock(ctx, worlds)
	if err != nil {
		return err
	}
	sim, err := linkedin.OpenSimulator(ctx, clock, worlds, linkedin.SimConfig{Seed: a.cfg.SimulatorSeed})
	if err != nil {
		return err
	}
	a.sim, a.clock = sim, clock
	if n, at := sim.Replayed(); n > 0 {
		a.log.Info("simulated LinkedIn resumed", "world", sim.World(), "calls_replayed", n,
			"last_call_at", at.UTC().Format(time.RFC3339), "clock", clock.Now().UTC().Format(time.RFC3339))
	} else {
		a.log.Info("simulated LinkedIn: new world", "world", sim.World())
	}
	if _, err := a.startEngine(sim, clock, engine.Config{
		// The world's report sequence continues across restarts (it is rebuilt from the journal),
		// so the poll cursor is the world's.
		ProviderName:     sim.World(),
		SimulatedContent: true,
		ClockSpeed:       clock.Speed(),
	}); err != nil {
		return err
	}
	a.apiDeps.DomainNow = clock.Now
	if a.apiDeps.Inbox == nil {
		a.apiDeps.Inbox = sim
	}
	a.workers = append(a.workers,
		worker{name: "simulator clock", run: func(ctx context.Context) error { return a.saveSimClock(ctx, worlds) }})
	return nil
}

// startEngine builds the outreach engine on li and clock with cfg plus what every provider's
// engine shares (PUBLIC_URL, the action spacing, traces, the drafter), answers the API's drafts
// and replies with it, and runs it as the "engine" worker.
func (a *app) startEngine(li engine.LinkedIn, clock outreach.Clock, cfg engine.Config) (*engine.Engine, error) {
	d, err := newDrafter(a.cfg)
	if err != nil {
		return nil, err
	}
	cfg.PublicURL, cfg.ActionSpacing, cfg.Traces = a.cfg.PublicURL, a.cfg.LinkedInActionSpacing, a.cfg.Traces
	eng, err := engine.New(a.store, li, d, clock, a.log, cfg)
	if err != nil {
		return nil, err
	}
	a.apiDeps.Drafts, a.apiDeps.Replies = eng, eng
	a.workers = append(a.workers, worker{name: "engine", run: eng.Run})
	return eng, nil
}

// wireEnrichment adds the enrichment worker: through the organization's LinkedIn seats when a
// real provider's wiring set a.seatEnricher (each look-up a profile view of a seat), else the
// enrichment simulator under SIMULATOR_SEED.
func (a *app) wireEnrichment() error {
	var w *engine.EnrichmentWorker
	var err error
	if a.seatEnricher != nil {
		w, err = engine.NewLeadEnrichmentWorker(a.store, a.seatEnricher, a.log, engine.EnrichmentConfig{})
	} else {
		var sim *enrichment.Simulator
		if sim, err = enrichment.NewSimulator(enrichment.SimConfig{Seed: a.cfg.SimulatorSeed}); err != nil {
			return err
		}
		w, err = engine.NewEnrichmentWorker(a.store, engine.EnricherFunc(func(ctx context.Context, r outreach.LookupRequest) (outreach.PersonLookup, error) {
			p, err := sim.Enrich(ctx, r)
			if errors.Is(err, enrichment.ErrNotFound) {
				return outreach.PersonLookup{}, nil
			}
			return p, err
		}), a.log, engine.EnrichmentConfig{})
	}
	if err != nil {
		return err
	}
	a.workers = append(a.workers, worker{name: "enrichment", run: w.Run})
	return nil
}

// saveSimClock records the simulated clock every few seconds and once more at shutdown, so the
// next start resumes the world's time where this one stopped.
func (a *app) saveSimClock(ctx context.Context, worlds *linkedin.PostgresWorlds) error {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return worlds.SaveSimClock(context.WithoutCancel(ctx), a.sim.World(), a.clock.Now())
		case <-t.C:
			if err := worlds.SaveSimClock(ctx, a.sim.World(), a.clock.Now()); err != nil && ctx.Err() == nil {
				a.log.Warn("save the simulated clock", "err", err)
			}
		}
	}
}

// newDrafter is the configured reply drafter: an OpenAI-compatible endpoint when DRAFTER_URL is
// set, else the deterministic built-in one.
func newDrafter(cfg Config) (engineDrafter, error) {
	if cfg.DrafterURL == "" {
		return engineDrafter{d: drafter.Builtin{}}, nil
	}
	d, err := drafter.NewOpenAI(drafter.OpenAIConfig{BaseURL: cfg.DrafterURL, APIKey: cfg.DrafterAPIKey, Model: cfg.DrafterModel})
	if err != nil {
		return engineDrafter{}, fmt.Errorf("DRAFTER_URL: %w", err)
	}
	return engineDrafter{d: d}, nil
}

// engineDrafter adapts a drafter.Drafter to engine.Drafter.
type engineDrafter struct{ d drafter.Drafter }

func (d engineDrafter) Draft(ctx context.Context, in engine.DraftInput) (string, error) {
	hist := make([]drafter.Turn, len(in.History))
	for i, t := range in.History {
		hist[i] = drafter.Turn(t)
	}
	return d.d.Draft(ctx, drafter.Input{ProspectName: in.ProspectName, Company: in.Company, CampaignName: in.CampaignName,
		Incoming: in.Incoming, Classification: in.Classification, History: hist})
}
