package webapp_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
	"outreachd/webapp"
)

// TestLaunchPreview: Launch… says what will happen before the person confirms, and a campaign
// that could send nothing is explained and not launched, even when the confirmation is posted.
func TestLaunchPreview(t *testing.T) {
	t.Parallel()
	// The engine's clock stands on a Saturday, three days ahead of the wall clock (a demo).
	engineNow := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	e := newEnvDeps(t, webapp.Config{}, func(_ *env, d *webapp.Deps) { d.DomainNow = func() time.Time { return engineNow } })
	e.now = engineNow.Add(-72 * time.Hour)
	ctx := context.Background()
	orgID, _ := e.org("ops@acme.test", "a long enough password")
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	mk := func(name, typ string, steps []outreach.SequenceStep) storage.Campaign {
		t.Helper()
		camp, err := e.store.CreateCampaign(ctx, orgID, storage.NewCampaign{Name: name, OutreachType: typ, DailyLimit: 12,
			Schedule: outreach.Schedule{Timezone: "Europe/Berlin", WorkingDays: []string{"monday", "tuesday", "wednesday", "thursday", "friday"},
				StartTime: "09:00", EndTime: "17:00"}, Sequence: steps})
		if err != nil {
			t.Fatal(err)
		}
		return camp
	}
	launch := func(camp storage.Campaign, confirm bool) page {
		f := url.Values{"status": {"active"}}
		if confirm {
			f.Set("confirm", "yes")
		}
		return c.post("/app/campaigns/"+camp.ID+"/status", f)
	}
	statusOf := func(camp storage.Campaign) outreach.CampaignStatus {
		got, err := e.store.GetCampaign(ctx, orgID, camp.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Status
	}
	invite := []outreach.SequenceStep{{Type: outreach.StepConnect, Text: "Hi {{first_name}}"}, {Type: outreach.StepMessage, DelayDays: 2, Text: "Thanks"}}

	// No seat in the organization: explained, not launched.
	noSeat := mk("No seat", outreach.OutreachOutbound, invite)
	p := launch(noSeat, false)
	if p.Status != http.StatusOK || !strings.Contains(p.Body, "There is no LinkedIn account to send from") ||
		!strings.Contains(p.Body, "Connect one on the LinkedIn accounts page") || strings.Contains(p.Body, ">Launch campaign</button>") {
		t.Fatalf("no seat: %d %s", p.Status, p.Body)
	}
	if p := launch(noSeat, true); p.Status != http.StatusConflict || statusOf(noSeat) != outreach.CampaignDraft ||
		!strings.Contains(p.Body, "Not launched: There is no LinkedIn account") {
		t.Fatalf("a confirmed launch without a seat: %d, %s", p.Status, statusOf(noSeat))
	}

	sam := e.seat(orgID, "Sam Seller")
	// An inbound campaign without steps has nothing to send.
	empty := mk("Empty inbound", outreach.OutreachInbound, nil)
	if p := launch(empty, true); p.Status != http.StatusConflict || !strings.Contains(p.Body, "has no steps, so it has nothing to send") ||
		statusOf(empty) != outreach.CampaignDraft {
		t.Fatalf("inbound without steps: %d %s", p.Status, alert(p.Body))
	}

	// A campaign with leads: counts, seat, sequence, and the first invitations when the
	// schedule next opens, on the engine's clock (Monday 09:00 in Berlin).
	camp := mk("Berlin founders", outreach.OutreachOutbound, invite)
	p = launch(camp, false)
	if !strings.Contains(p.Body, "There are no leads yet") || !strings.Contains(p.Body, ">Launch campaign</button>") {
		t.Fatalf("no leads is said and still launchable: %s", p.Body)
	}
	var leads []storage.PushLead
	for i, u := range []string{"ada", "grace", "hank"} {
		leads = append(leads, storage.PushLead{Index: i, Input: outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/" + u, Name: u}})
	}
	if _, err := e.store.PushLeads(ctx, storage.PushRequest{OrgID: orgID, CampaignID: camp.ID, BatchID: "b", DefaultSource: "api", Leads: leads}); err != nil {
		t.Fatal(err)
	}
	p = launch(camp, false)
	for _, want := range []string{"accepted <b>0</b>", "pending (enrichment) <b>3</b>",
		"The first invitations go once enrichment accepts a lead; the schedule next opens on Monday 30 November 2026, 09:00 CET (08:00 UTC).",
		"Sam Seller (connected), the organization&#39;s oldest seat", "At most 12 a day",
		"which this service runs faster than real time (a demonstration): it reads 2026-11-28 10:00 UTC while the wall clock reads 2026-11-25 10:00 UTC"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the preview lacks %s", want)
		}
	}
	if _, err := e.store.Pool().Exec(ctx, `UPDATE prospects SET filter_verdict = 'accepted' WHERE campaign_id = $1 AND name <> 'hank'`, camp.ID); err != nil {
		t.Fatal(err)
	}
	p = launch(camp, false)
	if !strings.Contains(p.Body, "accepted <b>2</b>") || !strings.Contains(p.Body, "The first invitations go on Monday 30 November 2026, 09:00 CET (08:00 UTC), when the schedule next opens.") {
		t.Fatalf("with accepted leads: %s", p.Body)
	}
	if p := launch(camp, true); p.Status != http.StatusSeeOther || statusOf(camp) != outreach.CampaignActive {
		t.Fatalf("confirmed launch: %d %s", p.Status, statusOf(camp))
	}

	// Several seats: each is named with its state; one that is not connected is warned about
	// by name while the others carry on, and the campaign launches.
	ann, bob := e.seat(orgID, "Ann Other"), e.seat(orgID, "Bob Idle")
	if _, err := e.store.Pool().Exec(ctx, `UPDATE linkedin_accounts SET status = 'disconnected' WHERE id = $1`, bob); err != nil {
		t.Fatal(err)
	}
	listing := func(name string, seats ...string) storage.Campaign {
		t.Helper()
		camp := mk(name, outreach.OutreachOutbound, invite)
		if _, err := e.store.Pool().Exec(ctx, `UPDATE campaigns SET account_ids = $2 WHERE id = $1`, camp.ID, seats); err != nil {
			t.Fatal(err)
		}
		return camp
	}
	shared := listing("Shared", ann, sam, bob)
	p = launch(shared, false)
	for _, want := range []string{
		"<li>Ann Other (connected)</li><li>Sam Seller (connected)</li><li>Bob Idle (disconnected: nothing is sent from it until it is reconnected)</li>",
		"The campaign&#39;s people are shared among these seats: each new person goes to the one with the fewest of them so far",
		"Bob Idle is disconnected: nothing is sent from it until it is reconnected. The people it already reached wait for it; new people go to the campaign&#39;s connected seats.",
		">Launch campaign</button>",
	} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the preview of three seats lacks %s", want)
		}
	}
	if strings.Contains(p.Body, "Ann Other is ") || strings.Contains(p.Body, "Sam Seller is ") || strings.Contains(p.Body, "oldest seat") {
		t.Errorf("the preview of three seats warns about a connected seat or names the oldest:\n%s", p.Body)
	}
	// An inbound campaign writes to connections: its seats are not shared out.
	inbound := mk("Inbound pair", outreach.OutreachInbound, []outreach.SequenceStep{{Type: outreach.StepMessage, Text: "Hi {{first_name}}"}})
	if _, err := e.store.Pool().Exec(ctx, `UPDATE campaigns SET account_ids = $2 WHERE id = $1`, inbound.ID, []string{ann, sam}); err != nil {
		t.Fatal(err)
	}
	if p := launch(inbound, false); !strings.Contains(p.Body, "An inbound campaign writes to connections: from the seat a person is already in touch with, else from the first of these seats.") ||
		strings.Contains(p.Body, "shared among these seats") {
		t.Errorf("the preview of an inbound campaign of two seats:\n%s", p.Body)
	}
	if p := launch(shared, true); p.Status != http.StatusSeeOther || statusOf(shared) != outreach.CampaignActive {
		t.Fatalf("a launch with one seat of three disconnected: %d %s", p.Status, statusOf(shared))
	}

	// Every seat listed gone: explained, not launched; one gone of two: said, and launched.
	gone := listing("Gone", outreach.NewID("acc"), outreach.NewID("acc"))
	p = launch(gone, false)
	if !strings.Contains(p.Body, "There is no LinkedIn account to send from: none of the seats this campaign lists exists any more. Tick another under Send from") ||
		strings.Contains(p.Body, ">Launch campaign</button>") {
		t.Fatalf("every seat gone: %s", p.Body)
	}
	if p := launch(gone, true); p.Status != http.StatusConflict || statusOf(gone) != outreach.CampaignDraft {
		t.Fatalf("a confirmed launch with every seat gone: %d %s", p.Status, statusOf(gone))
	}
	half := listing("Half gone", outreach.NewID("acc"), ann)
	p = launch(half, false)
	if !strings.Contains(p.Body, "<dd>Ann Other (connected) <span class=\"hint\">1 more seat this campaign lists no longer exists.</span>") ||
		!strings.Contains(p.Body, "1 more seat this campaign lists no longer exists; the campaign sends from Ann Other alone.") ||
		!strings.Contains(p.Body, ">Launch campaign</button>") {
		t.Fatalf("one seat of two gone: %s", p.Body)
	}
}

// TestLeadsPage: the campaign's leads, filtered by verdict, 50 a page.
func TestLeadsPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{})
	ctx := context.Background()
	orgID, _ := e.org("ops@acme.test", "a long enough password")
	camp, err := e.store.CreateCampaign(ctx, orgID, storage.NewCampaign{Name: "C", OutreachType: outreach.OutreachOutbound, DailyLimit: 20,
		Schedule: outreach.DefaultSchedule(), HardFilters: outreach.HardFilters{Companies: &outreach.TermRule{Exclude: []string{"Globex"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var leads []storage.PushLead
	for i := range 60 {
		company := "Acme"
		if i%20 == 0 {
			company = "Globex"
		}
		leads = append(leads, storage.PushLead{Index: i, Input: outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/lead-" + strings.Repeat("x", i+1),
			Name: "Lead " + strings.Repeat("x", i+1), Company: company, Title: "CTO"}})
	}
	if _, err := e.store.PushLeads(ctx, storage.PushRequest{OrgID: orgID, CampaignID: camp.ID, BatchID: "b", DefaultSource: "api", Leads: leads}); err != nil {
		t.Fatal(err)
	}
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	base := "/app/campaigns/" + camp.ID + "/leads"
	p := c.get(base)
	if n := strings.Count(p.Body, `<td data-label="Verdict">`); n != 50 || !strings.Contains(p.Body, "Page 1 of 2 · 60 leads") {
		t.Fatalf("first page: %d rows", n)
	}
	if p := c.get(base + "?page=2"); strings.Count(p.Body, `<td data-label="Verdict">`) != 10 {
		t.Fatal("second page")
	}
	p = c.get(base + "?verdict=rejected")
	if n := strings.Count(p.Body, `<td data-label="Verdict">`); n != 3 || !strings.Contains(p.Body, "company &#34;Globex&#34; matches excluded term &#34;Globex&#34;") ||
		!strings.Contains(p.Body, "skipped") || !strings.Contains(p.Body, "Page 1 of 1 · 3 leads") {
		t.Fatalf("rejected: %d rows", n)
	}
	for _, bad := range []string{"?verdict=maybe", "?page=0", "?page=x"} {
		if p := c.get(base + bad); p.Status != http.StatusBadRequest {
			t.Errorf("%s: %d", bad, p.Status)
		}
	}
}
