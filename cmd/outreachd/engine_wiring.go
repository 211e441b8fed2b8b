package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"outreachd/adapters/drafter"
	"outreachd/adapters/linkedin"
	"outreachd/engine"
	"outreachd/outreach"
	"outreachd/storage"
)

// The outreach engine's wiring: the LinkedIn simulator (the configured provider) on a
// VirtualClock running at SIMULATOR_SPEED, shared by the engine so that sequence delays and
// simulated network delays are measured on one clock, plus the adapters that turn the
// adapters' types into the engine's.

// engineClock starts the engine clock where the last serving instance's clock stood (so a
// restart does not move a sped-up clock back), or at the wall clock. SIMULATOR_SPEED 0 means
// real time here: a serving engine on a frozen clock would never do anything.
func (a *app) engineClock(ctx context.Context) *outreach.VirtualClock {
	start := time.Now()
	if t, ok, err := a.store.EngineClock(ctx); err == nil && ok && t.After(start) {
		start = t
	}
	speed := a.cfg.SimulatorSpeed
	if speed == 0 {
		speed = 1
	}
	return outreach.NewVirtualClock(start, speed)
}

// newSimulator builds the configured LinkedIn provider: the simulator under SIMULATOR_SEED.
func newSimulator(cfg Config, clock outreach.Clock) (*linkedin.Simulator, error) {
	return linkedin.NewSimulator(clock, linkedin.SimConfig{Seed: cfg.SimulatorSeed})
}

// wireEngine adds the outreach engine worker and lets GET /inbox read the same simulator.
func (a *app) wireEngine(ctx context.Context) error {
	clock := a.engineClock(ctx)
	sim, err := newSimulator(a.cfg, clock)
	if err != nil {
		return err
	}
	d, err := newDrafter(a.cfg)
	if err != nil {
		return err
	}
	eng, err := engine.New(a.store, engineLinkedIn{sim: sim}, d, clock, a.log, engine.Config{
		PublicURL: a.cfg.PublicURL,
		// The simulator's report sequence starts over in every process.
		ProviderName:     "simulator/" + outreach.NewID("run"),
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
	a.workers = append(a.workers, worker{name: "engine", run: eng.Run})
	return nil
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

const demoCampaignName = "Demo campaign"

// setUpEngineDemo gives the demo organization something to watch: a simulated LinkedIn seat and
// an active campaign with a dozen pushed leads, which enrichment accepts and the engine works on
// the sped-up clock (invites at once, acceptances within hours, replies, needs-human items).
// It runs once per organization; later starts reuse the campaign.
func (a *app) setUpEngineDemo(ctx context.Context, orgID string, out io.Writer) error {
	camps, err := a.store.ListCampaigns(ctx, orgID)
	if err != nil {
		return err
	}
	for _, c := range camps {
		if c.Name == demoCampaignName {
			fmt.Fprintf(out, "demo campaign: %s (already set up)\n\n", c.ID)
			return nil
		}
	}
	sim, err := newSimulator(a.cfg, outreach.SystemClock{})
	if err != nil {
		return err
	}
	pa, err := engineLinkedIn{sim: sim}.ConnectAccount(ctx, orgID, "Demo Seller")
	if err != nil {
		return err
	}
	if _, err := a.store.ConnectLinkedInAccount(ctx, orgID, "Demo Seller", pa.ID); err != nil {
		return err
	}
	c, err := a.store.CreateCampaign(ctx, orgID, storage.NewCampaign{
		Name: demoCampaignName, OutreachType: outreach.OutreachOutbound, DailyLimit: 20,
		Schedule: outreach.Schedule{Timezone: "UTC", WorkingDays: outreach.DefaultSchedule().WorkingDays, StartTime: "00:00", EndTime: "23:59"},
		Sequence: []outreach.SequenceStep{
			{Type: outreach.StepConnect, Text: "Hi {first_name}, I work with growth teams like yours. Happy to connect!", Attachments: []outreach.Attachment{}},
			{Type: outreach.StepMessage, DelayDays: 1, Text: "Thanks for connecting, {first_name}! Would a 20-minute chat about reporting at {company} be useful?", Attachments: []outreach.Attachment{}},
			{Type: outreach.StepMessage, DelayDays: 3, Text: "Following up, {first_name}: happy to send a short overview instead.", Attachments: []outreach.Attachment{}},
		},
	})
	if err != nil {
		return err
	}
	if _, err := a.store.SetCampaignStatus(ctx, c.ID, outreach.CampaignActive); err != nil {
		return err
	}
	people := []struct{ first, last, company string }{
		{"Ada", "Quinn", "Northwind"}, {"Ben", "Okafor", "Contoso"}, {"Chloe", "Martin", "Fabrikam"},
		{"Dev", "Patel", "Tailspin"}, {"Eva", "Novak", "Litware"}, {"Felix", "Berg", "Adatum"},
		{"Grace", "Liu", "Proseware"}, {"Hugo", "Silva", "Wingtip"}, {"Iris", "Kim", "Lucerne"},
		{"Jonas", "Weber", "Coho"}, {"Kara", "Singh", "Woodgrove"}, {"Leo", "Rossi", "Humongous"},
	}
	req := storage.PushRequest{OrgID: orgID, CampaignID: c.ID, BatchID: "demo", DefaultSource: storage.SourceAPI}
	for i, p := range people {
		req.Leads = append(req.Leads, storage.PushLead{Index: i, Input: outreach.LeadInput{
			LinkedInURL: fmt.Sprintf("https://www.linkedin.com/in/demo-%s-%s", strings.ToLower(p.first), strings.ToLower(p.last)),
			FirstName:   p.first, LastName: p.last, Company: p.company, Title: "Head of Growth"}})
	}
	if _, err := a.store.PushLeads(ctx, req); err != nil {
		return err
	}
	fmt.Fprintf(out, "demo campaign: %s with %d leads on a simulated LinkedIn seat, clock at %gx real time\n"+
		"  watch: GET /api/v1/prospects?campaign_id=%s, /api/v1/analytics/daily, /api/v1/needs-human, /api/v1/inbox\n\n",
		c.ID, len(people), a.cfg.SimulatorSpeed, c.ID)
	return nil
}
