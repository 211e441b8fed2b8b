package mcp_test

import (
	"reflect"
	"testing"
)

// TestAssistantRefusesNUL: an argument holding a NUL character (\u0000), which PostgreSQL cannot
// store, is a tool error naming the argument, for every tool, before any proposal is stored; the
// REST API refuses such a body the same way.
func TestAssistantRefusesNUL(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	cs := connect(t, w.srv, w.org.WriteKey, allGroups)
	const nul = " contains a NUL character (\\u0000), which is not allowed"
	item := "nhu_06h1psmn5d8c81g192rtyxxahm"
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"push_leads", map[string]any{"campaign_id": w.campaignID, "leads": []any{map[string]any{"linkedin_url": "https://www.linkedin.com/in/x\u0000y"}}}, "argument leads[0].linkedin_url"},
		{"push_leads", map[string]any{"campaign_id": w.campaignID, "leads": []any{map[string]any{"linkedin_url": "https://www.linkedin.com/in/xy", "data": map[string]any{"note\u0000": "v"}}}}, "a key of argument leads[0].data"},
		{"push_leads", map[string]any{"campaign_id": w.campaignID, "leads": []any{map[string]any{"linkedin_url": "https://www.linkedin.com/in/xy", "data": map[string]any{"tags": []any{"a", "b\u0000"}}}}}, "argument leads[0].data.tags[1]"},
		{"stop_person", map[string]any{"linkedin_urls": []any{"https://www.linkedin.com/in/x\u0000y"}}, "argument linkedin_urls[0]"},
		{"block_person", map[string]any{"linkedin_urls": []any{"https://www.linkedin.com/in/ada-lovelace"}, "reason": "spam\u0000"}, "argument reason"},
		{"approve_draft", map[string]any{"item_id": item, "text": "Hello\u0000"}, "argument text"},
		{"dismiss_draft", map[string]any{"item_id": "nhu_\u0000"}, "argument item_id"},
		{"create_campaign", map[string]any{"name": "a\u0000"}, "argument name"},
		{"add_exclusions", map[string]any{"entries": []any{map[string]any{"value": "Acme\u0000", "type": "company"}}}, "argument entries[0].value"},
		{"mark_outcome", map[string]any{"prospect_id": w.leadIDs[0], "outcome": "booked\u0000"}, "argument outcome"},
		{"confirm_proposal", map[string]any{"proposal_id": "prp_\u0000"}, "argument proposal_id"},
		{"list_leads", map[string]any{"campaign_id": w.campaignID, "source": "a\u0000"}, "argument source"},
		{"create_campaign", map[string]any{"na\u0000me": "x"}, "an argument name"},
	} {
		toolError(t, cs, tc.tool, tc.args, tc.want+nul)
	}
	var n int
	queryRow(t, w.srv, `SELECT count(*) FROM assistant_proposals`, nil, &n)
	if n != 0 {
		t.Fatalf("%d proposals stored from refused arguments", n)
	}
}

// TestAssistantNullIsAbsent: a null argument (which clients send for an optional argument they
// have no value for) is the argument left out, at any depth of an object; a required argument
// sent as null is missing; a null inside a list is still refused.
func TestAssistantNullIsAbsent(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	cs := connect(t, w.srv, w.org.WriteKey, allGroups)
	without := ok(t, cs, "list_prospects", map[string]any{"campaign_id": w.campaignID, "limit": 1})
	with := ok(t, cs, "list_prospects", map[string]any{"campaign_id": w.campaignID, "limit": 1, "status": nil, "offset": nil})
	if len(without["data"].([]any)) != 1 || !reflect.DeepEqual(with["data"], without["data"]) {
		t.Fatalf("with nulls %v, without %v", with, without)
	}
	p := propose(t, cs, "push_leads", map[string]any{"campaign_id": w.campaignID, "idempotency_key": nil,
		"leads": []any{map[string]any{"linkedin_url": "https://www.linkedin.com/in/grace-hopper", "first_name": "Grace", "company": nil, "title": nil}}})
	res := confirm(t, cs, p)
	if acc, _ := res["accepted"].([]any); len(acc) != 1 {
		t.Fatalf("push with null members: %v", res)
	}
	var company *string
	queryRow(t, w.srv, `SELECT company FROM prospects WHERE linkedin_id = 'grace-hopper'`, nil, &company)
	if company != nil {
		t.Fatalf("a null company was stored as %q", *company)
	}
	toolError(t, cs, "get_campaign", map[string]any{"campaign_id": nil}, "campaign_id")
	toolError(t, cs, "stop_person", map[string]any{"linkedin_urls": []any{nil}}, "linkedin_urls")
}
