package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"outreachd/adapters/drafter"
	"outreachd/adapters/linkedin"
	"outreachd/engine"
	"outreachd/outreach"
)

// The outreach engine's wiring: the LinkedIn simulator (the configured provider) on a
// VirtualClock running at SIMULATOR_SPEED, shared by the engine so that sequence delays and
// simulated network delays are measured on one clock, plus the adapters that turn the
// adapters' types into the engine's.

// engineClock starts the engine clock where the last serving instance's clock stood, or where
// the simulated world's clock was saved when its last process stopped (so a restart does not
// move a sped-up clock back behind the world's pending events and the prospects' next steps),
// or at the wall clock, whichever is latest. SIMULATOR_SPEED 0 means real time here: a serving
// engine on a frozen clock would never do anything.
func (a *app) engineClock(ctx context.Context) (*outreach.VirtualClock, error) {
	start := time.Now()
	if t, ok, err := a.store.EngineClock(ctx); err == nil && ok && t.After(start) {
		start = t
	}
	world, err := a.store.OpenSimWorld(ctx, linkedin.WorldBase(a.cfg.SimulatorSeed))
	if err != nil {
		return nil, err
	}
	t, ok, err := a.store.SimClock(ctx, world)
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
// adds the outreach engine worker and lets GET /inbox read the same simulator.
func (a *app) wireEngine(ctx context.Context) error {
	clock, err := a.engineClock(ctx)
	if err != nil {
		return err
	}
	sim, err := linkedin.OpenSimulator(ctx, clock, a.store, linkedin.SimConfig{Seed: a.cfg.SimulatorSeed})
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
	d, err := newDrafter(a.cfg)
	if err != nil {
		return err
	}
	eng, err := engine.New(a.store, engineLinkedIn{sim: sim}, d, clock, a.log, engine.Config{
		PublicURL: a.cfg.PublicURL,
		// The world's report sequence continues across restarts (it is rebuilt from the journal),
		// so the poll cursor is the world's.
		ProviderName:     sim.World(),
		SimulatedContent: true,
		ClockSpeed:       clock.Speed(),
	})
	if err != nil {
		return err
	}
	a.apiDeps.DomainNow = clock.Now
	a.apiDeps.Drafts = eng
	if a.apiDeps.Inbox == nil {
		a.apiDeps.Inbox = linkedinInbox{p: sim}
	}
	a.workers = append(a.workers, worker{name: "engine", run: eng.Run},
		worker{name: "simulator clock", run: a.saveSimClock})
	return nil
}

// saveSimClock records the simulated clock every few seconds and once more at shutdown, so the
// next start resumes the world's time where this one stopped.
func (a *app) saveSimClock(ctx context.Context) error {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return a.store.SaveSimClock(context.WithoutCancel(ctx), a.sim.World(), a.clock.Now())
		case <-t.C:
			if err := a.store.SaveSimClock(ctx, a.sim.World(), a.clock.Now()); err != nil && ctx.Err() == nil {
				a.log.Warn("save the simulated clock", "err", err)
			}
		}
	}
}

// engineLinkedIn adapts the simulator to engine.LinkedIn and engine.Operator.
type engineLinkedIn struct{ sim *linkedin.Simulator }

var (
	_ engine.LinkedIn = engineLinkedIn{}
	_ engine.Operator = engineLinkedIn{}
)

// liErr maps the adapter's errors onto the engine's, keeping the original text.
func liErr(err error) error {
	pairs := []struct{ from, to error }{
		{linkedin.ErrRateLimited, engine.ErrRateLimited},
		{linkedin.ErrAccountDisconnected, engine.ErrAccountDown},
		{linkedin.ErrNotConnected, engine.ErrNotConnected},
		{linkedin.ErrUnknownProfile, engine.ErrNotConnected},
		{linkedin.ErrAlreadyInvited, engine.ErrAlreadyInvited},
		{linkedin.ErrNoPendingInvite, engine.ErrNoPendingInvite},
		{linkedin.ErrUnknownChat, engine.ErrUnknownChat},
		{linkedin.ErrUnknownAccount, engine.ErrUnknownAccount},
	}
	for _, p := range pairs {
		if errors.Is(err, p.from) {
			return fmt.Errorf("%w: %w", p.to, err)
		}
	}
	return err
}

func toRef(p engine.ProfileRef) linkedin.ProfileRef {
	return linkedin.ProfileRef{ProfileKey: p.ProfileKey, ProviderID: p.ProviderID, PublicIdentifier: p.PublicIdentifier, Name: p.Name}
}

func (l engineLinkedIn) Accounts(ctx context.Context) ([]engine.ProviderAccount, error) {
	accs, err := l.sim.Accounts(ctx)
	out := make([]engine.ProviderAccount, len(accs))
	for i, a := range accs {
		out[i] = engine.ProviderAccount{ID: a.ID, OrgID: a.OrgID, Name: a.Name}
	}
	return out, liErr(err)
}

func (l engineLinkedIn) ConnectAccount(ctx context.Context, orgID, name string) (engine.ProviderAccount, error) {
	a, err := l.sim.ConnectAccount(ctx, orgID, name)
	return engine.ProviderAccount{ID: a.ID, OrgID: a.OrgID, Name: a.Name}, liErr(err)
}

func (l engineLinkedIn) SendInvite(ctx context.Context, accountID string, p engine.ProfileRef, note string) error {
	_, err := l.sim.SendInvite(ctx, accountID, toRef(p), note)
	return liErr(err)
}

func (l engineLinkedIn) WithdrawInvite(ctx context.Context, accountID string, p engine.ProfileRef) error {
	return liErr(l.sim.WithdrawInvite(ctx, accountID, toRef(p)))
}

func (l engineLinkedIn) SendMessage(ctx context.Context, accountID, chatOrProfile, text string) (string, string, error) {
	c, m, err := l.sim.SendMessage(ctx, accountID, chatOrProfile, text)
	return c, m, liErr(err)
}

func (l engineLinkedIn) Messages(ctx context.Context, chatID string) ([]engine.ProviderMessage, error) {
	msgs, err := l.sim.Messages(ctx, chatID)
	out := make([]engine.ProviderMessage, len(msgs))
	for i, m := range msgs {
		out[i] = engine.ProviderMessage{ID: m.ID, ChatID: m.ChatID, Text: m.Text, At: m.At, FromMe: m.FromMe}
	}
	return out, liErr(err)
}

func (l engineLinkedIn) Poll(ctx context.Context, after int64, limit int) ([]engine.Report, error) {
	reps, err := l.sim.Poll(ctx, after, limit)
	out := make([]engine.Report, len(reps))
	for i, r := range reps {
		out[i] = engine.Report{Seq: r.Seq, Kind: string(r.Kind), AccountID: r.AccountID, ProfileKey: r.ProfileKey,
			ProviderID: r.ProviderID, AttendeeName: r.AttendeeName, ChatID: r.ChatID, MessageID: r.MessageID,
			Text: r.Text, CooldownHours: r.CooldownHours, At: r.At}
	}
	return out, liErr(err)
}

func (l engineLinkedIn) InjectAccept(profileKey string) error {
	return liErr(l.sim.InjectAccept(profileKey))
}

func (l engineLinkedIn) InjectReply(profileKey, text string) (string, error) {
	c, err := l.sim.InjectReply(profileKey, text)
	return c, liErr(err)
}

func (l engineLinkedIn) InjectDisconnect(accountID string) error {
	return liErr(l.sim.InjectDisconnect(accountID))
}

func (l engineLinkedIn) InjectReconnect(accountID string) error {
	return liErr(l.sim.InjectReconnect(accountID))
}

func (l engineLinkedIn) InjectRateLimit(accountID string, cooldown time.Duration) error {
	return liErr(l.sim.InjectRateLimit(accountID, cooldown))
}

func (l engineLinkedIn) InjectSalesNav(accountID string, lapsed bool) error {
	return liErr(l.sim.InjectSalesNav(accountID, lapsed))
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
