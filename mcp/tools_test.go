package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"outreachd/internal/testenv"
)

// workspace is an organization with a draft campaign holding two leads, a do-not-contact entry
// and a destination, made through the REST API.
type workspace struct {
	srv        *testenv.Server
	org        testenv.Org
	campaignID string
	leadIDs    []string
	destID     string
}

func newWorkspace(t *testing.T, env ...string) workspace {
	t.Helper()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), env...)
	w := workspace{srv: srv, org: testenv.NewOrg(t, srv)}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	t.Cleanup(hook.Close)
	d := restJSON(t, w.org.Write, "POST", "/api/v1/destinations", map[string]any{"url": hook.URL + "/hook", "name": "hook"})
	w.destID = d["data"].(map[string]any)["id"].(string)
	c := restJSON(t, w.org.Write, "POST", "/api/v1/campaigns", map[string]any{"name": "Berlin founders"})
	w.campaignID = c["item"].(map[string]any)["id"].(string)
	p := restJSON(t, w.org.Write, "POST", "/api/v1/campaigns/"+w.campaignID+"/leads", map[string]any{"leads": []map[string]any{
		{"linkedin_url": "https://www.linkedin.com/in/ada-lovelace", "name": "Ada Lovelace", "company": "Engines"},
		{"linkedin_url": "https://www.linkedin.com/in/bob-babbage", "name": "Bob Babbage"}}})
	for _, a := range p["accepted"].([]any) {
		w.leadIDs = append(w.leadIDs, a.(map[string]any)["lead_id"].(string))
	}
	restJSON(t, w.org.Write, "POST", "/api/v1/blacklist", map[string]any{"entries": []map[string]any{
		{"value": "https://www.linkedin.com/in/carl-closed", "type": "account"}}})
	return w
}

// settle waits until the enricher has resolved the leads and the hub has delivered their events,
// so that two reads of the same thing agree.
func (w workspace) settle(t *testing.T) {
	t.Helper()
	testenv.EventuallyTrue(t, 30*time.Second, "enrichment and deliveries", func() bool {
		leads := restJSON(t, w.org.Read, "GET", "/api/v1/campaigns/"+w.campaignID+"/leads", nil)["data"].([]any)
		for _, l := range leads {
			if l.(map[string]any)["enrichment_status"] == "pending" {
				return false
			}
		}
		pending := restJSON(t, w.org.Read, "GET", "/api/v1/deliveries?status=pending", nil)
		done := restJSON(t, w.org.Read, "GET", "/api/v1/deliveries?status=succeeded", nil)
		return len(pending["data"].([]any)) == 0 && len(done["data"].([]any)) > 0
	})
}

// TestAssistantReadingTools calls every read-only tool and requires its structuredContent to be
// exactly the body of the REST endpoint it stands for.
func TestAssistantReadingTools(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.settle(t)
	cs := connect(t, w.srv, w.org.ReadKey, allGroups)
	cid, lid := w.campaignID, w.leadIDs[0]
	cases := []struct {
		tool string
		args map[string]any
		rest string
	}{
		{"get_me", nil, "/me"},
		{"list_campaigns", nil, "/campaigns"},
		{"get_campaign", map[string]any{"campaign_id": cid}, "/campaigns/" + cid},
		{"list_prospects", map[string]any{"campaign_id": cid, "limit": 1}, "/prospects?campaign_id=" + cid + "&limit=1"},
		{"get_prospect", map[string]any{"id": lid}, "/prospects/" + lid},
		{"list_leads", map[string]any{"campaign_id": cid, "source": "api"}, "/campaigns/" + cid + "/leads?source=api"},
		{"get_lead", map[string]any{"id": lid}, "/leads/" + lid},
		{"get_analytics", nil, "/analytics"},
		{"get_analytics_daily", map[string]any{"campaign_id": cid}, "/analytics/daily?campaign_id=" + cid},
		{"list_stalled_leads", map[string]any{"days": 3}, "/stalled-leads?days=3"},
		{"list_destinations", nil, "/destinations"},
		{"list_exclusions", map[string]any{"type": "account"}, "/blacklist?type=account"},
		{"list_needs_human", nil, "/needs-human"},
		{"list_destination_attempts", map[string]any{"destination_id": w.destID}, "/destinations/" + w.destID + "/attempts"},
		{"list_deliveries", map[string]any{"status": "succeeded", "limit": 5}, "/deliveries?status=succeeded&limit=5"},
	}
	for _, c := range cases {
		got := ok(t, cs, c.tool, c.args)
		want := restJSON(t, w.org.Read, "GET", "/api/v1"+c.rest, nil)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: structuredContent differs from GET %s:\n got %v\nwant %v", c.tool, c.rest, got, want)
		}
	}
	if got := ok(t, cs, "list_campaigns", nil)["data"].([]any); len(got) != 1 || got[0].(map[string]any)["name"] != "Berlin founders" {
		t.Fatalf("list_campaigns: %v", got)
	}

	// Bad input: a clear tool error, never another organization's data.
	other := testenv.NewOrg(t, w.srv)
	ocs := connect(t, w.srv, other.WriteKey, allGroups)
	toolError(t, ocs, "get_campaign", map[string]any{"campaign_id": cid}, "not found")
	toolError(t, ocs, "get_lead", map[string]any{"id": lid}, "not found")
	toolError(t, ocs, "list_leads", map[string]any{"campaign_id": cid}, "not found")
	toolError(t, ocs, "mark_outcome", map[string]any{"prospect_id": lid, "outcome": "booked"}, "not found")
	toolError(t, ocs, "push_leads", map[string]any{"campaign_id": cid, "leads": []map[string]any{{"linkedin_url": "https://www.linkedin.com/in/x-y"}}}, "not found")
	toolError(t, ocs, "duplicate_campaign", map[string]any{"campaign_id": cid}, "not found")
	// Two organizations with the same view (scope and groups) share nothing, call after call.
	wcs := connect(t, w.srv, w.org.WriteKey, allGroups)
	for i := 0; i < 3; i++ {
		for _, c := range []struct {
			cs  *sdk.ClientSession
			org string
		}{{wcs, w.org.ID}, {ocs, other.ID}} {
			if me := ok(t, c.cs, "get_me", nil)["data"].(map[string]any); me["org_id"] != c.org {
				t.Fatalf("get_me answered %v, want organization %s", me, c.org)
			}
		}
	}
	if l := ok(t, ocs, "list_prospects", map[string]any{"campaign_id": cid})["data"].([]any); len(l) != 0 {
		t.Fatalf("another organization's prospects: %v", l)
	}
	toolError(t, cs, "get_campaign", map[string]any{"campaign_id": "../me"}, "not an id")
	toolError(t, cs, "list_prospects", map[string]any{"limit": "ten"}, "limit")
	toolError(t, cs, "list_prospects", map[string]any{"limit": 500}, "limit")
	toolError(t, cs, "get_analytics_daily", map[string]any{"from": "yesterday"}, "YYYY-MM-DD")
	toolError(t, cs, "get_campaign", map[string]any{}, "campaign_id")
	toolError(t, cs, "no_such_tool", nil, `unknown tool "no_such_tool"`)
}

// TestAssistantRateLimit: every tool call spends one request of the organization's budget,
// shared with the REST API.
func TestAssistantRateLimit(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv, "--rate-limit-per-minute", "4")
	if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < 15*time.Second {
		time.Sleep(left + time.Second) // the budget is per minute: stay inside one
	}
	cs := connect(t, srv, org.ReadKey, allGroups) // initialize and tools/list spend nothing
	ok(t, cs, "get_me", nil)
	ok(t, cs, "list_campaigns", nil)
	if r := org.Read.Do(t, "GET", "/api/v1/me", nil); r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Fatalf("REST after two tool calls: %d remaining %q", r.Status, r.Header.Get("X-RateLimit-Remaining"))
	}
	ok(t, cs, "get_analytics", nil)
	toolError(t, cs, "get_me", nil, "rate limit exceeded: 4 requests per minute")
}
