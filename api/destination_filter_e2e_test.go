package api_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

// TestDestinationFilterEndToEnd runs filters through the built binary: two destinations on local
// receivers, one without a filter and one that wants only the prospect_added events of one person.
// Events come from the API (a push) and from the operator CLI (a launch, another process). Each
// receiver gets exactly its events, and the filtered-out events left no delivery row.
func TestDestinationFilterEndToEnd(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	everything, filtered := newReceiver(t, 200), newReceiver(t, 200)
	all := createDest(t, org.Write, map[string]any{"url": everything.URL + "/all", "events": "prospect_added,campaign_started"})
	one := createDest(t, org.Write, map[string]any{"url": filtered.URL + "/one", "events": "prospect_added,campaign_started",
		"filter": map[string]any{"event": "prospect_added", "data.prospect.name": map[string]any{"$in": []string{"Ada Filter"}}}})

	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "Filtered"})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	campaign := r.JSON["item"].(map[string]any)["id"].(string)
	var leads []map[string]any
	for _, n := range []string{"Ada Filter", "Bo Filter", "Cy Filter"} {
		leads = append(leads, map[string]any{"linkedin_url": "https://www.linkedin.com/in/" + n[:2] + "-e2e", "name": n})
	}
	if r := org.Write.Do(t, "POST", "/api/v1/campaigns/"+campaign+"/leads", map[string]any{"leads": leads}); r.Status != 202 {
		t.Fatalf("push: %d %s", r.Status, r.Body)
	}
	testenv.Admin(t, srv.DBURL, "campaign", "set-status", "--campaign", campaign, "--status", "active")

	// The deliveries were written with the events: three prospect_added and one campaign_started
	// to the destination without a filter, Ada's prospect_added alone to the filtered one.
	kindsOf := func(dest string) []string {
		t.Helper()
		r := org.Read.Do(t, "GET", "/api/v1/deliveries?limit=100&destination_id="+dest, nil)
		var out []string
		for _, d := range r.JSON["data"].([]any) {
			out = append(out, d.(map[string]any)["event"].(string))
		}
		sort.Strings(out)
		return out
	}
	if got := fmt.Sprint(kindsOf(all["id"].(string))); got != "[campaign_started prospect_added prospect_added prospect_added]" {
		t.Fatalf("deliveries to the destination without a filter: %s", got)
	}
	if got := fmt.Sprint(kindsOf(one["id"].(string))); got != "[prospect_added]" {
		t.Fatalf("deliveries to the filtered destination: %s (the filtered-out events must leave no delivery)", got)
	}

	// The receivers: everything gets its four; once it has them, the filtered one has had Ada's.
	testenv.EventuallyTrue(t, 20*time.Second, "four deliveries at the receiver without a filter", func() bool {
		return len(everything.requests()) == 4
	})
	testenv.EventuallyTrue(t, 20*time.Second, "Ada's prospect_added at the filtered receiver", func() bool {
		return len(filtered.requests()) >= 1
	})
	got := filtered.requests()
	var env struct {
		Event string `json:"event"`
		Data  struct {
			Prospect struct {
				Name string `json:"name"`
			} `json:"prospect"`
		} `json:"data"`
	}
	if err := json.Unmarshal(got[0].body, &env); err != nil || len(got) != 1 || env.Event != "prospect_added" || env.Data.Prospect.Name != "Ada Filter" {
		t.Fatalf("the filtered receiver got %d requests, the first %s", len(got), got[0].body)
	}
	// A Test send ignores the filter: campaign_started is selected, the filter would refuse it.
	test := org.Write.Do(t, "POST", "/api/v1/destinations/"+one["id"].(string)+"/test", map[string]any{"event": "campaign_started"})
	if test.Status != 200 || data(t, test)["ok"] != true || len(filtered.requests()) != 2 {
		t.Fatalf("test send to the filtered destination: %d %s; receiver has %d", test.Status, test.Body, len(filtered.requests()))
	}
}
