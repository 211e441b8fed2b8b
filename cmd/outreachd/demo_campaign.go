package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"outreachd/adapters/linkedin"
	"outreachd/engine"
	"outreachd/outreach"
	"outreachd/storage"
)

// The demo's campaign. Every `make run` must show a campaign moving within two minutes at the
// demo speed (an hour a second): invitations accepted, a positive reply answered on its own, a
// reply only a person may answer (a request for email, "am I talking to a bot?") waiting in
// Needs Human, and later a positive conversation that stalls. So each start either resumes the
// demo campaign and adds a new wave of leads to it, or, when there is nothing to resume (no
// campaign yet, the last one completed or stopped, or its invitations unknown to the simulated
// world), starts a fresh one; it says which.
//
// The wave's people are cast: a few of them are picked, by their profile URLs, among people
// the simulated network (under SIMULATOR_SEED) will have accept within hours and answer within
// hours as the story needs (linkedin.Simulator.Foresee); the others are whoever the URLs give.

const (
	demoCampaignName = "Demo campaign"
	demoSeatName     = "Demo Seller"
	// demoFast bounds the cast people's acceptance and first reply, in simulated time: with the
	// first message a day after acceptance, the replies come within about 40 simulated hours.
	demoFast = 10 * time.Hour
)

// demoRole is one place in a wave; want, when set, is the forecast its person is cast for.
type demoRole struct {
	want func(linkedin.Forecast) bool
}

func castAs(persona string) func(linkedin.Forecast) bool {
	return func(f linkedin.Forecast) bool {
		return f.Accepts && f.Persona == persona && f.AcceptAfter <= demoFast && f.FirstReplyAfter <= demoFast
	}
}

var demoWave = []demoRole{
	{castAs("positive")},     // answered on its own, stalls later
	{castAs("wants_email")},  // needs a person: wants email
	{castAs("bot_question")}, // needs a person: "a bot?"
	{castAs("positive")},
	{}, {}, {}, {}, {}, {}, {}, {},
}

// The demo's people are named from these lists so that no two leads of the organization share a
// name (up to 24 × 24 of them): each wave's needs-human queue and inbox then tell people apart.
// The first wave is Ada Quinn at Northwind, Ben Okafor at Contoso, Chloe Martin at Fabrikam …
var (
	demoFirst = []string{"Ada", "Ben", "Chloe", "Dev", "Eva", "Felix", "Grace", "Hugo", "Iris", "Jonas", "Kara", "Leo",
		"Mia", "Nils", "Omar", "Priya", "Quentin", "Rosa", "Sami", "Tara", "Umar", "Vera", "Wes", "Yara"}
	demoLast = []string{"Quinn", "Okafor", "Martin", "Patel", "Novak", "Berg", "Liu", "Silva", "Kim", "Weber", "Singh", "Rossi",
		"Moreau", "Haddad", "Tanaka", "Costa", "Dubois", "Nowak", "Larsen", "Fischer", "Ibrahim", "Keller", "Mendes", "Walsh"}
	demoCompany = []string{"Northwind", "Contoso", "Fabrikam", "Tailspin", "Litware", "Adatum", "Proseware", "Wingtip", "Lucerne",
		"Coho", "Woodgrove", "Humongous", "Alpine", "Bluebird", "Cedar", "Datum", "Evergreen", "Fourth Coffee", "Graphic",
		"Heron", "Ironwood", "Juniper", "Kestrel", "Lumen", "Margie"}
)

// demoName is the name and company of the organization's nth demo lead: every pair of a first
// and a last name once (n < 576), the first 24 leads with the last name of the same rank.
func demoName(n int) (first, last, company string) {
	k := len(demoFirst)
	return demoFirst[n%k], demoLast[(n/k+n)%len(demoLast)], demoCompany[n%len(demoCompany)]
}

// setUpEngineDemo gives the demo organization a simulated seat and a campaign with a new wave of
// leads, resuming the last demo campaign when it can still move.
func (a *app) setUpEngineDemo(ctx context.Context, orgID string, out io.Writer) error {
	seat, err := a.demoSeat(ctx, orgID)
	if err != nil {
		return err
	}
	camp, why, err := a.resumableDemo(ctx, orgID, seat)
	if err != nil {
		return err
	}
	resumed := camp != nil
	if !resumed {
		if camp, err = a.newDemoCampaign(ctx, orgID); err != nil {
			return err
		}
	}
	_, total, err := a.store.ListProspects(ctx, orgID, storage.ProspectQuery{Limit: 1})
	if err != nil {
		return err
	}
	n, err := a.pushDemoWave(ctx, orgID, camp.ID, seat, total)
	if err != nil {
		return err
	}
	if resumed {
		fmt.Fprintf(out, "demo: resumed campaign %s (%q, %d leads so far, the simulated LinkedIn continues where it stopped) and added %d new leads\n",
			camp.ID, camp.Name, prospectTotal(camp), n)
	} else {
		fmt.Fprintf(out, "demo: started a fresh demo campaign %s (%q) with %d leads (%s)\n", camp.ID, camp.Name, n, why)
	}
	fmt.Fprintf(out, "  on a simulated LinkedIn seat, clock at %gx real time: within two minutes invitations are accepted,\n"+
		"  a reply is answered on its own and replies that need a person wait in Needs Human\n"+
		"  watch: GET /api/v1/prospects?campaign_id=%s, /api/v1/needs-human, /api/v1/inbox, /api/v1/analytics/daily\n\n",
		a.cfg.SimulatorSpeed, camp.ID)
	a.log.Info("demo ready", "campaign", camp.ID, "resumed", resumed, "new_leads", n)
	a.workers = append(a.workers, worker{name: "demo seat", run: func(ctx context.Context) error {
		return a.keepDemoSeat(ctx, seat.ProviderAccountID)
	}})
	return nil
}

// demoReconnectAfter is how long (simulated) the demo leaves its seat disconnected before it
// logs in again: long enough for the disconnect to show (an account_disconnected event, the seat's
// status), short enough that the demo keeps moving. The simulated network drops a seat on about
// one day in 500, which at an hour a second is every few hours of `make run`.
const demoReconnectAfter = 12 * time.Hour

// keepDemoSeat reconnects the demo seat when the simulated network dropped it, as its owner would
// by logging in again, so a long or tenth `make run` does not stall on a dropped seat.
func (a *app) keepDemoSeat(ctx context.Context, providerAccountID string) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var downSince time.Time
	for {
		h, err := a.sim.AccountHealth(ctx, providerAccountID)
		switch {
		case err != nil || h.Status != outreach.AccountDisconnected:
			downSince = time.Time{}
		case downSince.IsZero():
			downSince = h.CheckedAt
		case h.CheckedAt.Sub(downSince) >= demoReconnectAfter:
			if err := a.sim.InjectReconnect(providerAccountID); err != nil {
				a.log.Warn("demo: reconnect the demo seat", "err", err)
			} else {
				a.log.Info("demo: the simulated network had dropped the demo seat; it logged in again", "account", providerAccountID)
			}
			downSince = time.Time{}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

func prospectTotal(c *storage.Campaign) int {
	n := 0
	for _, v := range c.ProspectCounts {
		n += v
	}
	return n
}

// demoSeat returns the demo organization's simulated seat, connecting it the first time.
func (a *app) demoSeat(ctx context.Context, orgID string) (storage.LinkedInAccount, error) {
	accs, err := engine.Seats(ctx, a.store.Pool())
	if err != nil {
		return storage.LinkedInAccount{}, err
	}
	for _, acc := range accs {
		if acc.OrgID == orgID && acc.Name == demoSeatName {
			// Connecting again reconnects a seat the simulated network dropped meanwhile.
			if _, err := a.sim.ConnectAccount(ctx, orgID, demoSeatName); err != nil {
				return storage.LinkedInAccount{}, err
			}
			return acc, nil
		}
	}
	return (simulatedSeats{sim: a.sim, q: a.store.Pool()}).Connect(ctx, orgID, demoSeatName)
}

// resumableDemo returns the newest demo campaign when it is active and the simulated world knows
// its invitations; otherwise nil and why a fresh one is started. A campaign whose invitations
// the world does not know (sent by an earlier simulator that kept no world, or under another
// SIMULATOR_SEED) would never move again, so it is paused.
func (a *app) resumableDemo(ctx context.Context, orgID string, seat storage.LinkedInAccount) (*storage.Campaign, string, error) {
	camps, err := a.store.ListCampaigns(ctx, orgID)
	if err != nil {
		return nil, "", err
	}
	var demos []storage.Campaign
	for _, c := range camps {
		if strings.HasPrefix(c.Name, demoCampaignName) {
			demos = append(demos, c)
		}
	}
	if len(demos) == 0 {
		return nil, "first run", nil
	}
	sort.Slice(demos, func(i, j int) bool { return demos[i].CreatedAt.After(demos[j].CreatedAt) })
	last := demos[0]
	if last.Status != outreach.CampaignActive {
		return nil, fmt.Sprintf("the last demo campaign, %s, is %s", last.ID, last.Status), nil
	}
	pending, _, err := a.store.ListProspects(ctx, orgID, storage.ProspectQuery{CampaignID: last.ID, Status: "connection_sent", Limit: 1000})
	if err != nil {
		return nil, "", err
	}
	for _, p := range pending {
		if !a.sim.KnowsInvite(seat.ProviderAccountID, p.LeadKey) {
			if _, err := a.store.SetCampaignStatus(ctx, last.ID, outreach.CampaignPaused); err != nil {
				return nil, "", err
			}
			return nil, fmt.Sprintf("the last demo campaign, %s, was run on a simulated LinkedIn that did not keep its world; it is paused", last.ID), nil
		}
	}
	return &last, "", nil
}

func (a *app) newDemoCampaign(ctx context.Context, orgID string) (*storage.Campaign, error) {
	camps, err := a.store.ListCampaigns(ctx, orgID)
	if err != nil {
		return nil, err
	}
	name, n := demoCampaignName, 1
	for taken := true; taken; {
		taken = false
		for _, c := range camps {
			if c.Name == name {
				taken, n = true, n+1
				name = fmt.Sprintf("%s %d", demoCampaignName, n)
			}
		}
	}
	every := []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
	c, err := a.store.CreateCampaign(ctx, orgID, storage.NewCampaign{
		Name: name, OutreachType: outreach.OutreachOutbound, DailyLimit: 100,
		// Every day, all day: at an hour a second a weekend would be 48 idle seconds.
		Schedule: outreach.Schedule{Timezone: "UTC", WorkingDays: every, StartTime: "00:00", EndTime: "23:59"},
		Sequence: []outreach.SequenceStep{
			{Type: outreach.StepConnect, Text: "Hi {first_name}, I work with growth teams like yours. Happy to connect!", Attachments: []outreach.Attachment{}},
			{Type: outreach.StepMessage, DelayDays: 1, Text: "Thanks for connecting, {first_name}! Would a 20-minute chat about reporting at {company} be useful?", Attachments: []outreach.Attachment{}},
			{Type: outreach.StepMessage, DelayDays: 3, Text: "Following up, {first_name}: happy to send a short overview instead.", Attachments: []outreach.Attachment{}},
		},
	})
	if err != nil {
		return nil, err
	}
	if c, err = a.store.SetCampaignStatus(ctx, c.ID, outreach.CampaignActive); err != nil {
		return nil, err
	}
	return &c, nil
}

// castTries bounds the search for one cast person (the rarest, a bot question with a fast
// acceptance and reply, is about 1 in 250).
const castTries = 50_000

// pushDemoWave pushes a wave of leads whose profile URLs are new to the organization (each wave
// searches its own range of URL suffixes, from the organization's lead count on), casting the
// people the story needs.
func (a *app) pushDemoWave(ctx context.Context, orgID, campaignID string, seat storage.LinkedInAccount, base int) (int, error) {
	req := storage.PushRequest{OrgID: orgID, CampaignID: campaignID, BatchID: fmt.Sprintf("demo-%d", base), DefaultSource: outreach.SourceAPI}
	for i, role := range demoWave {
		first, last, company := demoName(base + i)
		u, err := a.castURL(first, last, role, seat.ProviderAccountID, base*castTries)
		if err != nil {
			return 0, err
		}
		req.Leads = append(req.Leads, storage.PushLead{Index: i, Input: outreach.LeadInput{
			LinkedInURL: u, FirstName: first, LastName: last, Company: company, Title: "Head of Growth"}})
	}
	if _, err := a.store.PushLeads(ctx, req); err != nil {
		return 0, err
	}
	return len(req.Leads), nil
}

// castURL returns the first profile URL "first-last-<hex>" from from on whose person the
// simulated network will treat as role wants.
func (a *app) castURL(first, last string, role demoRole, accountID string, from int) (string, error) {
	for i := from; i < from+castTries; i++ {
		u := fmt.Sprintf("https://www.linkedin.com/in/%s-%s-%x", strings.ToLower(first), strings.ToLower(last), i)
		if role.want == nil {
			return u, nil
		}
		prof, err := outreach.NormalizeProfile(u)
		if err != nil {
			return "", err
		}
		if role.want(a.sim.Foresee(accountID, prof.Key)) {
			return u, nil
		}
	}
	return "", fmt.Errorf("demo: no one to cast as %s %s under SIMULATOR_SEED %d", first, last, a.cfg.SimulatorSeed)
}
