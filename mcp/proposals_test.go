package mcp_test

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"outreachd/internal/testenv"
)

// TestAssistantProposals drives every writing tool of the campaigns, leads and messaging
// groups: each answers a proposal and changes nothing; confirm_proposal carries it out once and
// answers the REST API's result; a second confirmation, an expired proposal and another
// organization's are tool errors.
func TestAssistantProposals(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	cs := connect(t, w.srv, w.org.WriteKey, allGroups)
	checkCampaignProposals(t, w, cs)
	checkLeadProposals(t, w, cs)
	checkMessagingProposals(t, w, cs)
}

func checkCampaignProposals(t *testing.T, w workspace, cs *sdk.ClientSession) {
	campaigns := func() int { return len(restJSON(t, w.org.Read, "GET", "/api/v1/campaigns", nil)["data"].([]any)) }

	// create_campaign: nothing exists until the confirmation; then exactly once.
	p := propose(t, cs, "create_campaign", map[string]any{"name": "Paris CTOs", "outreach_type": "inbound"})
	if s := p["summary"].(string); !strings.Contains(s, `"Paris CTOs"`) || !strings.Contains(s, "inbound") || p["irreversible"] != false {
		t.Fatalf("create_campaign proposal: %v", p)
	}
	if n := campaigns(); n != 1 {
		t.Fatalf("a proposal created a campaign: %d campaigns", n)
	}
	res := confirm(t, cs, p)
	item, _ := res["item"].(map[string]any)
	if res["ok"] != true || item["name"] != "Paris CTOs" || item["outreach_type"] != "inbound" || item["status"] != "draft" {
		t.Fatalf("create_campaign result: %v", res)
	}
	// One plain sentence: when it was confirmed, no error chain.
	again := text(call(t, cs, "confirm_proposal", map[string]any{"proposal_id": p["id"]}))
	if !strings.HasPrefix(again, "proposal "+p["id"].(string)+" was already confirmed at 20") ||
		!strings.HasSuffix(again, "; a proposal is carried out only once") || strings.Contains(again, "conflict") {
		t.Fatalf("second confirmation: %q", again)
	}
	if n := campaigns(); n != 2 {
		t.Fatalf("after confirming twice: %d campaigns, want 2", n)
	}
	toolError(t, cs, "create_campaign", map[string]any{"name": "  "}, "name")
	toolError(t, cs, "create_campaign", map[string]any{"name": "x", "outreach_type": "carrier pigeon"}, "outreach_type")

	// Another organization cannot confirm it, and an expired proposal cannot be confirmed.
	other := testenv.NewOrg(t, w.srv)
	ocs := connect(t, w.srv, other.WriteKey, allGroups)
	p = propose(t, cs, "duplicate_campaign", map[string]any{"campaign_id": w.campaignID})
	if s := p["summary"].(string); !strings.Contains(s, `"Berlin founders"`) || !strings.Contains(s, "2 prospects") {
		t.Fatalf("duplicate_campaign proposal: %v", p)
	}
	toolError(t, ocs, "confirm_proposal", map[string]any{"proposal_id": p["id"]}, "not found")
	toolError(t, cs, "confirm_proposal", map[string]any{"proposal_id": "prp_nope"}, "not found")
	execSQL(t, w.srv, `UPDATE assistant_proposals SET expires_at = now() - interval '1 second' WHERE id = $1`, p["id"])
	toolError(t, cs, "confirm_proposal", map[string]any{"proposal_id": p["id"]}, "expired")
	if n := campaigns(); n != 2 {
		t.Fatalf("an expired proposal ran: %d campaigns", n)
	}
	p = propose(t, cs, "duplicate_campaign", map[string]any{"campaign_id": w.campaignID})
	if item := confirm(t, cs, p)["item"].(map[string]any); !strings.Contains(item["name"].(string), "Berlin founders") || item["id"] == w.campaignID {
		t.Fatalf("duplicate result: %v", item)
	}
}

func checkLeadProposals(t *testing.T, w workspace, cs *sdk.ClientSession) {

	// push_leads: the summary counts from the data; the result is the REST push answer.
	p := propose(t, cs, "push_leads", map[string]any{"campaign_id": w.campaignID, "leads": []map[string]any{
		{"linkedin_url": "https://www.linkedin.com/in/ada-lovelace"},
		{"linkedin_url": "https://www.linkedin.com/in/carl-closed"},
		{"linkedin_url": "https://www.linkedin.com/in/dora-new", "name": "Dora New"},
		{"linkedin_url": "https://www.linkedin.com/in/eve-new", "first_name": "Eve"},
		{"linkedin_url": "not a profile"}}})
	want := `push 5 leads into "Berlin founders" (1 already there, 1 on your do-not-contact list, 1 not a readable LinkedIn profile or listed twice): 2 would be added; the campaign is draft, so nothing is sent until it is launched`
	if p["summary"] != want || p["irreversible"] != false {
		t.Fatalf("push_leads summary:\n got %v\nwant %s", p["summary"], want)
	}
	if n := len(restJSON(t, w.org.Read, "GET", "/api/v1/campaigns/"+w.campaignID+"/leads", nil)["data"].([]any)); n != 2 {
		t.Fatalf("a proposal pushed leads: %d", n)
	}
	res := confirm(t, cs, p)
	counts, _ := res["counts"].(map[string]any)
	if res["campaign_id"] != w.campaignID || counts["received"] != float64(5) || counts["accepted"] != float64(3) ||
		counts["rejected"] != float64(2) || counts["duplicates"] != float64(1) {
		t.Fatalf("push_leads result: %v", res)
	}
	toolError(t, cs, "push_leads", map[string]any{"campaign_id": w.campaignID, "leads": []map[string]any{}}, "leads")
	toolError(t, cs, "push_leads", map[string]any{"campaign_id": w.campaignID, "leads": []map[string]any{
		{"linkedin_url": "https://www.linkedin.com/in/x-y", "company": strings.Repeat("x", 501)}}}, "leads[0].company")

	// add_exclusions
	p = propose(t, cs, "add_exclusions", map[string]any{"entries": []map[string]any{
		{"value": "https://www.linkedin.com/in/carl-closed", "type": "account"},
		{"value": "Acme Corp", "type": "company"}, {"value": "", "type": "company"}}})
	if s := p["summary"].(string); !strings.HasPrefix(s, "add 1 new entry to your do-not-contact list (1 already there); 1 cannot be read") {
		t.Fatalf("add_exclusions summary: %s", s)
	}
	if res = confirm(t, cs, p); res["added"] != float64(1) || res["already_present"] != float64(1) {
		t.Fatalf("add_exclusions result: %v", res)
	}

	// mark_outcome
	lead := w.leadIDs[1]
	p = propose(t, cs, "mark_outcome", map[string]any{"prospect_id": lead, "outcome": "interested"})
	if s := p["summary"].(string); !strings.Contains(s, `"Bob Babbage"`) || !strings.HasSuffix(s, "as interested") {
		t.Fatalf("mark_outcome summary: %s", s)
	}
	if d := confirm(t, cs, p)["data"].(map[string]any); d["id"] != lead || d["outcome"] != "interested" {
		t.Fatalf("mark_outcome result: %v", d)
	}
	toolError(t, cs, "mark_outcome", map[string]any{"prospect_id": lead, "outcome": "married"}, "outcome")
}

func checkMessagingProposals(t *testing.T, w workspace, cs *sdk.ClientSession) {

	// stop_person and block_person
	p := propose(t, cs, "stop_person", map[string]any{"linkedin_urls": []string{"https://www.linkedin.com/in/ada-lovelace", "kim-unknown"}})
	if s := p["summary"].(string); !strings.Contains(s, `"Ada Lovelace"`) || !strings.Contains(s, "kim-unknown") || p["irreversible"] != true {
		t.Fatalf("stop_person proposal: %v", p)
	}
	if res := confirm(t, cs, p); res["requested"] != float64(2) || res["applied"] != float64(1) {
		t.Fatalf("stop_person result: %v", res)
	}
	toolError(t, cs, "block_person", map[string]any{"linkedin_urls": []string{"https://www.linkedin.com/in/bob-babbage"}, "reason": strings.Repeat("é", 501)},
		"reason must be at most 500 characters, got 501") // the API's limit and words
	p = propose(t, cs, "block_person", map[string]any{"linkedin_urls": []string{"https://www.linkedin.com/in/bob-babbage"}, "reason": "asked us to stop"})
	if s := p["summary"].(string); !strings.Contains(s, "do-not-contact") || p["irreversible"] != true {
		t.Fatalf("block_person proposal: %v", p)
	}
	if res := confirm(t, cs, p); res["blocked"] != float64(1) {
		t.Fatalf("block_person result: %v", res)
	}
	bl := restJSON(t, w.org.Read, "GET", "/api/v1/blacklist?type=account", nil)["data"].([]any)
	if len(bl) != 2 {
		t.Fatalf("block list after block_person: %v", bl)
	}

	// Who proposed and confirmed is kept with each proposal.
	var by, confirmedBy string
	queryRow(t, w.srv, `SELECT proposed_by, confirmed_by FROM assistant_proposals WHERE id = $1`, []any{p["id"]}, &by, &confirmedBy)
	if !strings.HasPrefix(by, "key:key_") || by != confirmedBy {
		t.Fatalf("proposed_by %q confirmed_by %q", by, confirmedBy)
	}
}
