package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"outreachd/engine"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// Each lead gets the enricher answer named by its handle; the worker must turn it into the
// right enrichment_status, verdict and person block.
func TestEnrichmentWorkerOutcomes(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org, err := st.CreateOrg(ctx, "Org "+t.Name(), nil)
	if err != nil {
		t.Fatal(err)
	}
	camp := outreach.NewID("cmp")
	if _, err := st.Pool().Exec(ctx, `INSERT INTO campaigns (id, org_id, name, status, schedule, hard_filters)
		VALUES ($1, $2, 'C', 'active', '{}', '{"industries":{"include":["software"]}}')`, camp, org.ID); err != nil {
		t.Fatal(err)
	}
	req := storage.PushRequest{OrgID: org.ID, CampaignID: camp, BatchID: "b1", DefaultSource: "api"}
	for i, h := range []string{"found-soft", "found-bank", "not-known", "always-err"} {
		req.Leads = append(req.Leads, storage.PushLead{Index: i, Input: outreach.LeadInput{LinkedInURL: h, Company: "Pushed"}})
	}
	res, err := st.PushLeads(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	soft, bank := "Computer Software", "Banking"
	enr := engine.EnricherFunc(func(_ context.Context, r outreach.LookupRequest) (outreach.PersonLookup, error) {
		switch r.PublicIdentifier {
		case "found-soft":
			return outreach.PersonLookup{Found: true, Person: outreach.Person{Industry: &soft}}, nil
		case "found-bank":
			return outreach.PersonLookup{Found: true, Person: outreach.Person{Industry: &bank}}, nil
		case "not-known":
			return outreach.PersonLookup{}, nil
		}
		return outreach.PersonLookup{}, errors.New("provider down")
	})
	w, err := engine.NewEnrichmentWorker(st, enr, nil, engine.EnrichmentConfig{MaxAttempts: 2, RetryBackoff: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	// The failing lead needs a second round once its (tiny) backoff is due: run rounds until no
	// lead of the campaign is pending.
	testenv.Eventually(t, 10*time.Second, func() (bool, string) {
		if _, err := w.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		var pending int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM prospects WHERE campaign_id = $1 AND enrichment_status = 'pending'`,
			camp).Scan(&pending); err != nil {
			t.Fatal(err)
		}
		return pending == 0, fmt.Sprintf("%d leads still pending", pending)
	})
	want := map[string][2]string{
		"found-soft": {"done", "accepted"}, "found-bank": {"done", "rejected"},
		"not-known": {"not_found", "rejected"}, "always-err": {"failed", "rejected"},
	}
	for _, a := range res.Accepted {
		p, _, err := st.GetLead(ctx, org.ID, a.LeadID)
		if err != nil {
			t.Fatal(err)
		}
		w := want[p.LinkedInID]
		if p.EnrichmentStatus != w[0] || p.FilterVerdict != w[1] {
			t.Errorf("%s: %s/%s, want %v", p.LinkedInID, p.EnrichmentStatus, p.FilterVerdict, w)
		}
		if p.Company == nil || *p.Company != "Pushed" {
			t.Errorf("%s: pushed company lost", p.LinkedInID)
		}
		if unknownOnly := p.LinkedInID != "found-bank" && p.LinkedInID != "found-soft"; p.FilterUnknownOnly != unknownOnly {
			t.Errorf("%s: filter_unknown_only = %v", p.LinkedInID, p.FilterUnknownOnly)
		}
	}
	evs, _ := st.OutboxEvents(ctx, org.ID)
	n := map[outreach.EventKind]int{}
	for _, e := range evs {
		n[e.Kind]++
	}
	if n[outreach.EventLeadAccepted] != 1 || n[outreach.EventLeadRejected] != 3 {
		t.Fatalf("events = %v", n)
	}
}

func TestEnrichmentConfigValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []engine.EnrichmentConfig{{BatchSize: -1}, {Concurrency: -2}, {PollInterval: -time.Second}} {
		if _, err := engine.NewEnrichmentWorker(nil, nil, nil, c); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}
