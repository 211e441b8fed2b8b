package engine_test

import (
	"testing"
	"time"

	"outreachd/engine"
	"outreachd/outreach"
	"outreachd/storage"
)

// TestEnrichThroughSeat: with the LinkedIn provider as the enricher, a lead is looked up through
// a seat of its organization: the profile fills the person block and its member id is kept (the
// invitation needs no second look-up), a profile the provider does not know ends not_found, each
// look-up counts as a profile view of the seat, and a lead no seat may look up now waits its turn
// without using up an attempt.
func TestEnrichThroughSeat(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	li := w.useFaulty(engineCfg(""))
	member := "ACoAAA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvWx"
	headline, industry := "VP Growth at Acme", "Computer Software"
	li.profiles = map[string]outreach.MemberProfile{
		key("known-person"): {ProviderID: member, PublicIdentifier: "known-person", Name: "Known Person",
			Headline: headline, Company: "Acme", Person: outreach.Person{Industry: &industry}},
		key("ghost-person"): {},
	}
	w.setLimits(engine.SeatLimitsChange{ProfileViewsPerDay: new(2)})
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	worker, err := engine.NewLeadEnrichmentWorker(w.st, w.eng, nil, engine.EnrichmentConfig{})
	if err != nil {
		t.Fatal(err)
	}
	pushed := func(handles ...string) []string {
		req := storage.PushRequest{OrgID: w.org, CampaignID: cid, BatchID: outreach.NewID("bat"), DefaultSource: outreach.SourceAPI}
		for i, h := range handles {
			req.Leads = append(req.Leads, storage.PushLead{Index: i, Input: outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/" + h}})
		}
		res, err := w.st.PushLeads(w.ctx, req)
		if err != nil || len(res.Accepted) != len(handles) {
			t.Fatalf("push: %v %+v", err, res.Rejected)
		}
		if _, err := worker.RunOnce(w.ctx); err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(handles))
		for i, a := range res.Accepted {
			ids[i] = a.LeadID
		}
		return ids
	}
	ids := pushed("known-person", "ghost-person")
	later := pushed("waits-its-turn")[0]

	known, _, err := w.st.GetLead(w.ctx, w.org, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if known.EnrichmentStatus != outreach.EnrichmentDone || known.Headline == nil || *known.Headline != headline ||
		known.Company == nil || *known.Company != "Acme" || known.Industry == nil || *known.Industry != industry {
		t.Fatalf("known person: %s, headline %v company %v industry %v", known.EnrichmentStatus, known.Headline, known.Company, known.Industry)
	}
	if p := w.prospect(ids[0]); p.MemberID == nil || *p.MemberID != member {
		t.Fatalf("member id kept: %v", p.MemberID)
	}
	if ghost, _, _ := w.st.GetLead(w.ctx, w.org, ids[1]); ghost.EnrichmentStatus != outreach.EnrichmentNotFound {
		t.Fatalf("unknown profile: %s", ghost.EnrichmentStatus)
	}
	var status string
	var attempts int
	var next time.Time
	if err := w.st.Pool().QueryRow(w.ctx, `SELECT enrichment_status, enrichment_attempts, enrichment_next_at FROM prospects WHERE id = $1`,
		later).Scan(&status, &attempts, &next); err != nil {
		t.Fatal(err)
	}
	if status != "pending" || attempts != 0 || !next.After(time.Now()) {
		t.Fatalf("the lead over the cap: %s after %d attempts, next at %s", status, attempts, next)
	}
	if used := w.seatCaps().Used; used.ProfileViewsToday != 2 {
		t.Fatalf("%d profile views counted, want 2", used.ProfileViewsToday)
	}
	w.setLimits(engine.SeatLimitsChange{ProfileViewsPerDay: new(3)})
	w.exec(`UPDATE prospects SET enrichment_next_at = NULL WHERE id = $1`, later)
	if _, err := worker.RunOnce(w.ctx); err != nil {
		t.Fatal(err)
	}
	if p, _, _ := w.st.GetLead(w.ctx, w.org, later); p.EnrichmentStatus != outreach.EnrichmentDone {
		t.Fatalf("the waiting lead once a view was free: %s", p.EnrichmentStatus)
	}
	w.setLimits(engine.SeatLimitsChange{ProfileViewsPerDay: new(10)})
	w.passes(2)
	// The two people found are invited by the member ids kept; the one LinkedIn does not know is
	// looked up once more before an invitation, and their sequence ends.
	if calls, invites := li.count(li.calls, "LookUpProfile"), li.count(li.performed, "SendInvite"); calls != 4 || invites != 2 {
		t.Fatalf("%d look-ups and %d invitations, want 4 and 2", calls, invites)
	}
	if p := w.prospect(ids[1]); p.Status != outreach.ProspectCompleted || p.InvitedAt != nil || p.NextStepAt != nil {
		t.Fatalf("the unknown person: %s invited %v next %v", p.Status, p.InvitedAt, p.NextStepAt)
	}
}
