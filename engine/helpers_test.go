package engine_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"outreachd/adapters/drafter"
	"outreachd/adapters/linkedin"
	"outreachd/engine"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// The engine's tests run it in-process on a fresh database, against the LinkedIn simulator on a
// VirtualClock that only moves when a test advances it, plugged in as `serve` does (the engine
// package itself must not import adapters; its tests may).

// monday is a Monday morning in November 2026 (after the 2026-07-02 sentiment cut-off).
var monday = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

type world struct {
	t     *testing.T
	ctx   context.Context
	st    *storage.Store
	clock *outreach.VirtualClock
	sim   *linkedin.Simulator
	li    engine.LinkedIn // the provider engines use: the simulator unless a test wraps it
	eng   *engine.Engine
	org   string
	acc   storage.LinkedInAccount
}

type worldOpt struct {
	sim     linkedin.SimConfig
	cfg     engine.Config
	drafter engine.Drafter
}

// quietSim never accepts, answers or drops on its own: tests decide every network event.
func quietSim() linkedin.SimConfig {
	return linkedin.SimConfig{Seed: 7, AcceptRate: -1, DisconnectPerDay: -1,
		ReplyDelayMin: 10000 * time.Hour, ReplyDelayMax: 10000 * time.Hour}
}

func newWorld(t *testing.T, start time.Time, opt worldOpt) *world {
	t.Helper()
	ctx := context.Background()
	st := testenv.Store(t)
	clock := outreach.NewVirtualClock(start, 0)
	if opt.sim == (linkedin.SimConfig{}) {
		opt.sim = quietSim()
	}
	sim, err := linkedin.NewSimulator(clock, opt.sim)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, ctx: ctx, st: st, clock: clock, sim: sim}
	if opt.drafter == nil {
		opt.drafter = draftAdapter{drafter.Builtin{}}
	}
	if opt.cfg.PublicURL == "" {
		opt.cfg.PublicURL = "https://app.test"
	}
	w.eng = w.newEngine(opt.drafter, opt.cfg)
	w.org = testenv.StoreOrg(t, st)
	pa, err := sim.ConnectAccount(ctx, w.org, "Sam Seller")
	if err != nil {
		t.Fatal(err)
	}
	if w.acc, err = engine.ConnectSeat(ctx, st.Pool(), w.org, "Sam Seller", pa.ID); err != nil {
		t.Fatal(err)
	}
	return w
}

// newEngine builds an engine on the world's store, simulator and clock. Tests that do not set
// the spacing act as soon as the schedule and the caps allow.
func (w *world) newEngine(d engine.Drafter, cfg engine.Config) *engine.Engine {
	w.t.Helper()
	if cfg.PublicURL == "" {
		cfg.PublicURL = "https://app.test"
	}
	if cfg.ActionSpacing == (engine.Spacing{}) {
		cfg.ActionSpacing = engine.Spacing{Immediate: true}
	}
	var li engine.LinkedIn = w.sim
	if w.li != nil {
		li = w.li
	}
	e, err := engine.New(w.st, li, d, w.clock, nil, cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	return e
}

func (w *world) pass() engine.PassStats {
	w.t.Helper()
	st, err := w.eng.Pass(w.ctx)
	if err != nil {
		w.t.Fatalf("pass: %v", err)
	}
	return st
}

// campaign creates an active campaign (outbound unless set) with the given schedule,
// sequence and daily limit.
func (w *world) campaign(outreachType string, sched outreach.Schedule, seq []outreach.SequenceStep, limit int) string {
	w.t.Helper()
	if outreachType == "" {
		outreachType = outreach.OutreachOutbound
	}
	if sched.Timezone == "" {
		sched = outreach.DefaultSchedule()
	}
	if limit == 0 {
		limit = 20
	}
	c, err := w.st.CreateCampaign(w.ctx, w.org, storage.NewCampaign{Name: "Campaign " + w.t.Name(), OutreachType: outreachType,
		DailyLimit: limit, Schedule: sched, Sequence: seq})
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.st.SetCampaignStatus(w.ctx, c.ID, outreach.CampaignActive); err != nil {
		w.t.Fatal(err)
	}
	return c.ID
}

// push pushes leads (handles) and accepts them through the enrichment worker, as the service
// does; it returns the prospect ids in order.
func (w *world) push(campaignID string, handles ...string) []string {
	w.t.Helper()
	req := storage.PushRequest{OrgID: w.org, CampaignID: campaignID, BatchID: outreach.NewID("bat"), DefaultSource: outreach.SourceAPI}
	for i, h := range handles {
		req.Leads = append(req.Leads, storage.PushLead{Index: i, Input: outreach.LeadInput{
			LinkedInURL: "https://www.linkedin.com/in/" + h, Name: "Person " + h, Company: "Company " + h, Title: "Head of Growth"}})
	}
	res, err := w.st.PushLeads(w.ctx, req)
	if err != nil {
		w.t.Fatal(err)
	}
	if len(res.Accepted) != len(handles) {
		w.t.Fatalf("push accepted %d of %d: %+v", len(res.Accepted), len(handles), res.Rejected)
	}
	w.enrich()
	ids := make([]string, len(res.Accepted))
	for i, a := range res.Accepted {
		ids[i] = a.LeadID
	}
	return ids
}

// enrich accepts every pushed lead waiting for enrichment, as the service's worker does.
func (w *world) enrich() {
	w.t.Helper()
	enr, err := engine.NewEnrichmentWorker(w.st, engine.EnricherFunc(func(context.Context, outreach.LookupRequest) (outreach.PersonLookup, error) {
		return outreach.PersonLookup{Found: true}, nil
	}), nil, engine.EnrichmentConfig{})
	if err != nil {
		w.t.Fatal(err)
	}
	for {
		n, err := enr.RunOnce(w.ctx)
		if err != nil {
			w.t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
}

func (w *world) prospect(id string) engine.EngineProspect {
	w.t.Helper()
	p, err := engine.GetEngineProspect(w.ctx, w.st.Pool(), id)
	if err != nil {
		w.t.Fatal(err)
	}
	return p
}

// events returns the organization's events so far; kinds lists just their kinds.
func (w *world) events() []outreach.Event {
	w.t.Helper()
	evs, err := w.st.OutboxEvents(w.ctx, w.org)
	if err != nil {
		w.t.Fatal(err)
	}
	return evs
}

func kinds(evs []outreach.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = string(e.Kind)
	}
	return out
}

// newEvents returns the events after the first n.
func (w *world) since(n int) []outreach.Event { return w.events()[n:] }

func (w *world) count(q string, args ...any) int {
	w.t.Helper()
	var n int
	if err := w.st.Pool().QueryRow(w.ctx, q, args...).Scan(&n); err != nil {
		w.t.Fatalf("%s: %v", q, err)
	}
	return n
}

func (w *world) exec(q string, args ...any) {
	w.t.Helper()
	if _, err := w.st.Pool().Exec(w.ctx, q, args...); err != nil {
		w.t.Fatalf("%s: %v", q, err)
	}
}

func wantKinds(t *testing.T, got []outreach.Event, want ...string) {
	t.Helper()
	if k := kinds(got); !slices.Equal(k, want) {
		t.Fatalf("events:\n got %v\nwant %v", k, want)
	}
}

func key(handle string) string { return "in:" + handle }

type draftAdapter struct{ d drafter.Drafter }

func (d draftAdapter) Draft(ctx context.Context, in engine.DraftInput) (string, error) {
	hist := make([]drafter.Turn, len(in.History))
	for i, t := range in.History {
		hist[i] = drafter.Turn(t)
	}
	return d.d.Draft(ctx, drafter.Input{ProspectName: in.ProspectName, Company: in.Company, CampaignName: in.CampaignName,
		Incoming: in.Incoming, Classification: in.Classification, History: hist})
}

// fixedDrafter answers every message with one text, or fails.
type fixedDrafter struct {
	text string
	err  error
}

func (f fixedDrafter) Draft(context.Context, engine.DraftInput) (string, error) { return f.text, f.err }

// engineCfg is a configuration with an instance id ("" for a fresh one).
func engineCfg(id string) engine.Config { return engine.Config{InstanceID: id} }
