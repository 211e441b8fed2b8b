package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// BenchmarkStorePushLeads is the storage half of BenchmarkLeadPush in this process, without
// HTTP, the rate limiter or the background workers: run it with -cpuprofile to see where the
// Go side of a push spends its time, and compare its ns/op with the HTTP figure to see what the
// rest costs. One op is BENCH_PUSH_CALLS (default 200) calls of 100 new leads, one after the
// other, into a campaign of BENCH_SEED prospects, in an organization with BENCH_DESTS (default 1)
// destinations selecting every event, so each push also writes its deliveries (nothing sends them).
func BenchmarkStorePushLeads(b *testing.B) {
	dbURL := testenv.DatabaseURL(b)
	ctx := context.Background()
	st, ds := testenv.OpenStores(b, dbURL, 8)
	srv := testenv.StartServer(b, dbURL)
	org := testenv.NewOrg(b, srv)
	c := NewClient(srv.URL, org.WriteKey)
	cmp, err := c.CreateCampaign(ctx, "Bench store push")
	if err != nil {
		b.Fatal(err)
	}
	srv.Kill() // only its admin CLI and API were needed to set up; no workers compete from here on
	for i := range envInt("BENCH_DESTS", 1) {
		if _, err := ds.CreateDestination(ctx, delivery.Destination{OrgID: org.ID, Name: fmt.Sprint("bench ", i),
			Kind: outreach.DestinationHTTPS, URL: "https://receiver.example/hook", Enabled: true}); err != nil {
			b.Fatal(err)
		}
	}
	if err := SeedProspects(ctx, dbURL, org.ID, cmp, envInt("BENCH_SEED", 100000)); err != nil {
		b.Fatal(err)
	}
	calls := envInt("BENCH_PUSH_CALLS", 200)
	next := 0
	var lat Recorder
	var took time.Duration
	for b.Loop() {
		for range calls {
			leads := make([]storage.PushLead, 100)
			for i := range leads {
				leads[i] = storage.PushLead{Index: i, Input: leadInput(next + i)}
			}
			next += 100
			t0 := time.Now()
			res, err := st.PushLeads(ctx, storage.PushRequest{OrgID: org.ID, CampaignID: cmp, BatchID: fmt.Sprintf("bat-%d", next),
				DefaultSource: outreach.SourceAPI, Leads: leads})
			if err != nil {
				b.Fatal(err)
			}
			d := time.Since(t0)
			took += d
			lat.Add(d)
			if len(res.Accepted) != 100 {
				b.Fatalf("accepted %d of 100", len(res.Accepted))
			}
		}
	}
	sum, _, _ := lat.Result()
	b.ReportMetric(float64(sum.P50)/1e6, "call-p50-ms")
	b.ReportMetric(float64(sum.P99)/1e6, "call-p99-ms")
	b.ReportMetric(float64(next)/took.Seconds(), "leads/s")
	b.Logf("load average %s", LoadAvg())
}

// leadInput is the k-th lead of LeadsBody("store", …) as the API would hand it to storage.
func leadInput(k int) outreach.LeadInput {
	return outreach.LeadInput{LinkedInURL: fmt.Sprintf("https://www.linkedin.com/in/store-%d", k), FirstName: "Lead",
		LastName: fmt.Sprintf("Number %d", k), Company: fmt.Sprintf("Company %d", k%5000), Title: "VP Sales",
		Email: fmt.Sprintf("lead%d@example.com", k), Location: "Berlin, Germany", Headline: "Building the pipeline", Source: "bench"}
}
