package storage_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// leadCampaign inserts a campaign with the given status and filters JSON straight into the
// table, so these tests do not depend on campaign creation rules.
func leadCampaign(t *testing.T, st *storage.Store, orgID, status, filters string) string {
	t.Helper()
	id := outreach.NewID("cmp")
	_, err := st.Pool().Exec(context.Background(), `INSERT INTO campaigns (id, org_id, name, status, schedule, hard_filters)
		VALUES ($1, $2, $3, $4, '{}', $5)`, id, orgID, "Campaign "+id[len(id)-4:], status, filters)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func push(t *testing.T, st *storage.Store, orgID, campaignID string, ins ...outreach.LeadInput) storage.PushResult {
	t.Helper()
	res, err := st.PushLeads(context.Background(), pushReq(orgID, campaignID, ins...))
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	return res
}

func pushReq(orgID, campaignID string, ins ...outreach.LeadInput) storage.PushRequest {
	req := storage.PushRequest{OrgID: orgID, CampaignID: campaignID, BatchID: outreach.NewID("bat"), DefaultSource: outreach.SourceAPI}
	for i, in := range ins {
		req.Leads = append(req.Leads, storage.PushLead{Index: i, Input: in})
	}
	return req
}

func countProspects(t *testing.T, st *storage.Store, campaignID string) int {
	t.Helper()
	var n int
	if err := st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM prospects WHERE campaign_id = $1`, campaignID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPushLeadsRules(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org := testenv.StoreOrg(t, st)
	camp := leadCampaign(t, st, org, "active", `{"roles":{"exclude":["intern"]},"locations":{"include":["germany"]}}`)
	other := leadCampaign(t, st, org, "active", `{}`)
	closedOther := leadCampaign(t, st, org, "active", `{}`)
	push(t, st, org, other, outreach.LeadInput{LinkedInURL: "busy-person"})
	push(t, st, org, closedOther, outreach.LeadInput{LinkedInURL: "finished-person"})
	if _, err := st.Pool().Exec(ctx, `UPDATE campaigns SET status = 'completed' WHERE id = $1`, closedOther); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddBlacklist(ctx, org, []storage.BlacklistEntry{
		{Type: "account", Key: "in:blocked-person", Value: "blocked-person"},
		{Type: "company", Key: "name:acme", Value: "ACME Inc."},
		{Type: "company", Key: "url:globex", Value: "linkedin.com/company/globex"},
	}); err != nil {
		t.Fatal(err)
	}

	res := push(t, st, org, camp,
		outreach.LeadInput{LinkedInURL: "https://de.linkedin.com/in/Jane-Doe/?trk=x", FirstName: "Jane", LastName: "Doe", Location: "Berlin, Germany"},
		outreach.LeadInput{LinkedInURL: "JANE-DOE"},
		outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/company/acme"},
		outreach.LeadInput{LinkedInURL: "blocked-person"},
		outreach.LeadInput{LinkedInURL: "acme-worker", Company: "Acme, Inc"},
		outreach.LeadInput{LinkedInURL: "globex-worker", Company: "https://www.linkedin.com/company/Globex/"},
		outreach.LeadInput{LinkedInURL: "busy-person"},
		outreach.LeadInput{LinkedInURL: "finished-person", Location: "Munich, Germany"},
		outreach.LeadInput{LinkedInURL: "an-intern", Title: "Marketing Intern"},
		outreach.LeadInput{LinkedInURL: "far-away", Location: "Paris, France"},
	)
	want := []struct {
		index  int
		reason string
	}{{1, "duplicate_in_request"}, {2, "invalid_linkedin_url"}, {3, "blacklisted"}, {4, "blacklisted"}, {5, "blacklisted"},
		{6, "already_in_another_campaign"}, {8, "hard_filter"}, {9, "hard_filter"}}
	if len(res.Rejected) != len(want) {
		t.Fatalf("rejected = %+v", res.Rejected)
	}
	for i, w := range want {
		got := res.Rejected[i]
		if got.Index != w.index || got.Reason != w.reason || got.Message == "" {
			t.Errorf("rejected[%d] = %+v, want index %d reason %s", i, got, w.index, w.reason)
		}
		if (w.reason == "hard_filter") != (got.LeadID != "") {
			t.Errorf("rejected[%d] lead_id = %q", i, got.LeadID)
		}
	}
	if len(res.Accepted) != 2 || res.Accepted[0].Index != 0 || res.Accepted[1].Index != 7 || !res.Accepted[0].Created {
		t.Fatalf("accepted = %+v", res.Accepted)
	}
	if res.Accepted[0].Name != "Jane Doe" || res.Accepted[0].LinkedInID != "jane-doe" {
		t.Fatalf("accepted[0] = %+v", res.Accepted[0])
	}
	// Two accepted plus two hard_filter rejections are saved; nothing else.
	if n := countProspects(t, st, camp); n != 4 {
		t.Fatalf("campaign holds %d prospects, want 4", n)
	}

	// A re-send answers the same lead ids and creates nothing; the hard_filter rejection replays.
	again := push(t, st, org, camp, outreach.LeadInput{LinkedInURL: "linkedin.com/in/jane-doe"}, outreach.LeadInput{LinkedInURL: "an-intern"})
	if len(again.Accepted) != 1 || again.Accepted[0].Created || again.Accepted[0].LeadID != res.Accepted[0].LeadID || again.Duplicates != 1 {
		t.Fatalf("re-send accepted = %+v", again)
	}
	if len(again.Rejected) != 1 || again.Rejected[0].Reason != "hard_filter" || again.Rejected[0].LeadID != res.Rejected[6].LeadID {
		t.Fatalf("re-send rejected = %+v", again.Rejected)
	}
	if n := countProspects(t, st, camp); n != 4 {
		t.Fatalf("re-send wrote rows: %d", n)
	}

	p, _, err := st.GetLead(ctx, org, res.Accepted[0].LeadID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != "api" || !p.Pushed || p.BatchID == nil || *p.BatchID != res.BatchID || p.EnrichmentStatus != "pending" ||
		p.FilterVerdict != "pending" || p.LinkedInURL == nil || *p.LinkedInURL != "https://www.linkedin.com/in/jane-doe" {
		t.Fatalf("stored lead = %+v", p)
	}
	if _, _, err := st.GetLead(ctx, testenv.StoreOrg(t, st), p.ID); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("cross-org GetLead: %v", err)
	}

	evs, err := st.OutboxEvents(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[outreach.EventKind]int{}
	for _, e := range evs {
		kinds[e.Kind]++
	}
	// other + closedOther + Jane + finished-person added; an-intern and far-away rejected.
	if kinds[outreach.EventProspectAdded] != 4 || kinds[outreach.EventLeadRejected] != 2 {
		t.Fatalf("events = %v", kinds)
	}
}

func TestPushLeadsClosedAndMissingCampaign(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	org := testenv.StoreOrg(t, st)
	for _, status := range []string{"completed", "archived"} {
		camp := leadCampaign(t, st, org, status, `{}`)
		_, err := st.PushLeads(context.Background(), pushReq(org, camp, outreach.LeadInput{LinkedInURL: "someone-new"}))
		if !errors.Is(err, outreach.ErrCampaignClosed) {
			t.Fatalf("%s: err = %v", status, err)
		}
		if n := countProspects(t, st, camp); n != 0 {
			t.Fatalf("%s: %d rows written", status, n)
		}
	}
	camp := leadCampaign(t, st, org, "draft", `{}`)
	if _, err := st.PushLeads(context.Background(), pushReq(testenv.StoreOrg(t, st), camp, outreach.LeadInput{LinkedInURL: "someone-new"})); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("other org: err = %v", err)
	}
}

// Concurrent pushes of the same person into one campaign create one row and all answer its id.
func TestPushLeadsConcurrentSamePerson(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	org := testenv.StoreOrg(t, st)
	camp := leadCampaign(t, st, org, "active", `{}`)
	const n = 8
	ids := make([]string, n)
	created := make([]bool, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := st.PushLeads(context.Background(), pushReq(org, camp,
				outreach.LeadInput{LinkedInURL: "same-person"}, outreach.LeadInput{LinkedInURL: fmt.Sprintf("solo-%d", i)}))
			if err != nil || len(res.Accepted) != 2 {
				t.Errorf("push %d: %+v %v", i, res, err)
				return
			}
			ids[i], created[i] = res.Accepted[0].LeadID, res.Accepted[0].Created
		}()
	}
	wg.Wait()
	nCreated := 0
	for i := range n {
		if ids[i] != ids[0] {
			t.Fatalf("lead ids differ: %v", ids)
		}
		if created[i] {
			nCreated++
		}
	}
	if nCreated != 1 {
		t.Fatalf("%d pushes report created=true, want 1", nCreated)
	}
	if c := countProspects(t, st, camp); c != n+1 {
		t.Fatalf("%d rows, want %d", c, n+1)
	}
}

func TestEnrichPendingLeads(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org := testenv.StoreOrg(t, st)
	camp := leadCampaign(t, st, org, "active", `{"industries":{"include":["software"]}}`)
	res := push(t, st, org, camp,
		outreach.LeadInput{LinkedInURL: "will-pass", Company: "Pushed Co"},
		outreach.LeadInput{LinkedInURL: "will-fail"},
		outreach.LeadInput{LinkedInURL: "unknown-one"},
		outreach.LeadInput{LinkedInURL: "flaky-one"})
	sw, fin := "Computer Software", "Financial Services"
	resolve := func(_ context.Context, leads []storage.PendingLead) ([]storage.LeadResolution, error) {
		var out []storage.LeadResolution
		for _, l := range leads {
			r := storage.LeadResolution{ID: l.ID, Person: l.Person, EnrichmentStatus: "done"}
			switch l.LinkedInID {
			case "will-pass":
				r.Person.Industry = &sw
			case "will-fail":
				r.Person.Industry = &fin
			case "unknown-one":
				r.EnrichmentStatus = "not_found"
			case "flaky-one":
				out = append(out, storage.LeadResolution{ID: l.ID, Retry: true, RetryAt: l.CreatedAt.Add(1e12)})
				continue
			}
			r.Verdict = l.Filters.Evaluate(r.Person.Facts(), true)
			out = append(out, r)
		}
		return out, nil
	}
	n, err := st.EnrichPendingLeads(ctx, 10, resolve)
	if err != nil || n != 4 {
		t.Fatalf("claimed %d, err %v", n, err)
	}
	if n, err := st.EnrichPendingLeads(ctx, 10, resolve); err != nil || n != 0 {
		t.Fatalf("second round claimed %d (the retried lead must wait), err %v", n, err)
	}
	want := map[string][3]string{ // linkedin id -> enrichment, verdict, company
		"will-pass":   {"done", "accepted", "Pushed Co"},
		"will-fail":   {"done", "rejected", ""},
		"unknown-one": {"not_found", "rejected", ""},
		"flaky-one":   {"pending", "pending", ""},
	}
	for _, a := range res.Accepted {
		p, _, err := st.GetLead(ctx, org, a.LeadID)
		if err != nil {
			t.Fatal(err)
		}
		w := want[p.LinkedInID]
		if p.EnrichmentStatus != w[0] || p.FilterVerdict != w[1] {
			t.Errorf("%s: enrichment %s verdict %s, want %v", p.LinkedInID, p.EnrichmentStatus, p.FilterVerdict, w)
		}
		if w[2] != "" && (p.Company == nil || *p.Company != w[2]) {
			t.Errorf("%s: pushed company lost: %v", p.LinkedInID, p.Company)
		}
		if p.LinkedInID == "unknown-one" && !p.FilterUnknownOnly {
			t.Errorf("unknown-one: filter_unknown_only false")
		}
	}
	evs, _ := st.OutboxEvents(ctx, org)
	kinds := map[outreach.EventKind]int{}
	for _, e := range evs {
		kinds[e.Kind]++
		if e.Kind == outreach.EventLeadAccepted && (e.Data.Prospect.Industry != sw || e.Data.Lead.BatchID != res.BatchID) {
			t.Errorf("lead_accepted data = %+v %+v", e.Data.Prospect, e.Data.Lead)
		}
	}
	if kinds[outreach.EventLeadAccepted] != 1 || kinds[outreach.EventLeadRejected] != 2 {
		t.Fatalf("events = %v", kinds)
	}
}

// Two workers taking from the queue at once (as two instances do) never decide a lead twice, and
// together decide them all, although neither holds a transaction while resolving.
func TestEnrichPendingLeadsConcurrentWorkers(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org := testenv.StoreOrg(t, st)
	camp := leadCampaign(t, st, org, "active", `{}`)
	var in []outreach.LeadInput
	for i := range 40 {
		in = append(in, outreach.LeadInput{LinkedInURL: fmt.Sprintf("worker-lead-%d", i)})
	}
	push(t, st, org, camp, in...)
	var mu sync.Mutex
	resolvedBy := map[string]int{}
	resolve := func(_ context.Context, leads []storage.PendingLead) ([]storage.LeadResolution, error) {
		time.Sleep(20 * time.Millisecond) // both workers are resolving at the same time
		var out []storage.LeadResolution
		mu.Lock()
		defer mu.Unlock()
		for _, l := range leads {
			resolvedBy[l.ID]++
			out = append(out, storage.LeadResolution{ID: l.ID, Person: l.Person, EnrichmentStatus: "done",
				Verdict: outreach.Verdict{Verdict: outreach.VerdictAccepted}})
		}
		return out, nil
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				n, err := st.EnrichPendingLeads(ctx, 7, resolve)
				if err != nil {
					t.Error(err)
					return
				}
				if n == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	if len(resolvedBy) != 40 {
		t.Fatalf("%d of 40 leads resolved", len(resolvedBy))
	}
	evs, _ := st.OutboxEvents(ctx, org)
	accepted := map[string]int{}
	for _, e := range evs {
		if e.Kind == outreach.EventLeadAccepted {
			accepted[e.Data.Prospect.LeadID]++
		}
	}
	if len(accepted) != 40 {
		t.Fatalf("%d leads accepted, want 40", len(accepted))
	}
	for id, n := range accepted {
		if n != 1 {
			t.Errorf("lead %s accepted %d times", id, n)
		}
	}
	// The session locks are gone with the batches: a third worker finds nothing held (in this
	// test's database: pg_locks shows the whole server, where other processes enrich too).
	var held int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, 0x656e72).Scan(&held); err != nil || held != 0 {
		t.Fatalf("%d advisory locks left (%v)", held, err)
	}
}
