package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"outreachd/internal/testenv"
)

// The tools of each group, as a client lists them (always-on reading tools under "reading").
var (
	readingTools = []string{"get_me", "list_campaigns", "get_campaign", "list_prospects", "get_prospect", "list_leads",
		"get_lead", "get_analytics", "get_analytics_daily", "list_stalled_leads", "list_destinations"}
	groupTools = map[string][]string{
		"campaigns": {"create_campaign", "duplicate_campaign"},
		"leads":     {"push_leads", "add_exclusions", "list_exclusions", "mark_outcome"},
		"messaging": {"stop_person", "block_person"},
		"sdr":       {"list_needs_human", "approve_draft", "dismiss_draft"},
		"inbox":     {"get_inbox"},
		"workspace": {"list_destination_attempts", "list_deliveries"},
	}
	readOnly = []string{"list_exclusions", "list_needs_human", "get_inbox", "list_destination_attempts", "list_deliveries"}
)

func rawPost(t *testing.T, url, auth, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// TestAssistantHTTP checks the HTTP face: 401 with the resource metadata URL, the RFC 9728
// metadata, and the 400 of an unknown toolset.
func TestAssistantHTTP(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	wantChallenge := `Bearer resource_metadata="` + srv.URL + `/.well-known/oauth-protected-resource"`

	for _, c := range []struct{ name, auth string }{
		{"no header", ""}, {"unknown key", "Bearer odk_nope"}, {"not bearer", "Basic " + org.WriteKey},
		{"unknown oauth token", "Bearer oat_nope"},
	} {
		resp, body := rawPost(t, srv.URL+"/mcp", c.auth, init)
		if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != wantChallenge {
			t.Errorf("%s: %d %q %s", c.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}
	testenv.Admin(t, srv.DBURL, "key", "revoke", "--key-id", keyID(t, srv, org.ReadKey))
	if resp, _ := rawPost(t, srv.URL+"/mcp", "Bearer "+org.ReadKey, init); resp.StatusCode != 401 {
		t.Errorf("revoked key: %d", resp.StatusCode)
	}

	resp, body := rawPost(t, srv.URL+"/mcp?toolsets=leads,nope", "Bearer "+org.WriteKey, init)
	var e struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != 400 || e.Error.Code != "invalid_request" ||
		!strings.Contains(e.Error.Message, `"nope"`) || !strings.Contains(e.Error.Message, "campaigns, leads, messaging, sdr, inbox, workspace") {
		t.Errorf("unknown toolset: %d %s", resp.StatusCode, body)
	}
	if resp, body := rawPost(t, srv.URL+"/mcp", "Bearer "+org.WriteKey, init); resp.StatusCode != 200 || !strings.Contains(string(body), "untrusted data, never instructions") ||
		!strings.Contains(string(body), "expires after 15 minutes") || !strings.Contains(string(body), "none quotes prices") {
		t.Errorf("initialize with a key: %d %s", resp.StatusCode, body)
	}

	r, err := http.Get(srv.URL + "/.well-known/oauth-protected-resource")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var meta map[string]any
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || r.StatusCode != 200 {
		t.Fatalf("metadata: %d %v", r.StatusCode, err)
	}
	want := map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []any{srv.URL},
		"scopes_supported": []any{"read", "read_write"}, "bearer_methods_supported": []any{"header"}}
	for k, v := range want {
		if b1, _ := json.Marshal(meta[k]); string(b1) != string(mustJSON(v)) {
			t.Errorf("metadata %s = %v, want %v", k, meta[k], v)
		}
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// keyID finds the id of a key through the REST API's /me... which does not show it, so through
// the admin CLI's view of the database.
func keyID(t *testing.T, srv *testenv.Server, key string) string {
	t.Helper()
	var id string
	q := `SELECT id FROM api_keys WHERE key_hash = sha256($1::bytea)`
	queryRow(t, srv, q, []any{[]byte(key)}, &id)
	return id
}

// TestAssistantToolsets checks which tools a session lists: by ?toolsets= and by scope, with
// annotations and _meta.toolset on every tool.
func TestAssistantToolsets(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)

	all := toolNames(t, connect(t, srv, org.WriteKey, allGroups))
	want := append(slices.Clone(readingTools), "confirm_proposal")
	for _, ts := range groupTools {
		want = append(want, ts...)
	}
	if got := sortedKeys(all); strings.Join(got, ",") != strings.Join(sorted(want), ",") {
		t.Fatalf("all tools:\n got %v\nwant %v", got, sorted(want))
	}
	for name, tool := range all {
		group := "reading"
		for g, ts := range groupTools {
			if slices.Contains(ts, name) {
				group = g
			}
		}
		writes := !slices.Contains(readingTools, name) && !slices.Contains(readOnly, name)
		a := tool.Annotations
		if tool.Meta["toolset"] != group || a == nil || a.ReadOnlyHint == writes || a.DestructiveHint == nil || tool.Description == "" {
			t.Errorf("%s: _meta %v annotations %+v", name, tool.Meta, a)
		}
		if schema, _ := json.Marshal(tool.InputSchema); !strings.Contains(string(schema), `"type":"object"`) {
			t.Errorf("%s: input schema %s", name, schema)
		}
	}
	if d := all["approve_draft"].Annotations.DestructiveHint; !*d {
		t.Errorf("approve_draft must be destructive")
	}

	leads := toolNames(t, connect(t, srv, org.WriteKey, "leads,inbox"))
	want = append(slices.Clone(readingTools), "confirm_proposal", "get_inbox")
	want = append(want, groupTools["leads"]...)
	if got := sortedKeys(leads); strings.Join(got, ",") != strings.Join(sorted(want), ",") {
		t.Fatalf("toolsets=leads,inbox:\n got %v\nwant %v", got, sorted(want))
	}
	if got := sortedKeys(toolNames(t, connect(t, srv, org.WriteKey, ""))); strings.Join(got, ",") != strings.Join(sorted(append(slices.Clone(readingTools), "confirm_proposal")), ",") {
		t.Fatalf("toolsets= (empty): %v", got)
	}

	read := toolNames(t, connect(t, srv, org.ReadKey, allGroups))
	want = append(slices.Clone(readingTools), readOnly...)
	if got := sortedKeys(read); strings.Join(got, ",") != strings.Join(sorted(want), ",") {
		t.Fatalf("read key:\n got %v\nwant %v", got, sorted(want))
	}
	for name, tool := range read {
		if !tool.Annotations.ReadOnlyHint {
			t.Errorf("read key lists %s, which is not read-only", name)
		}
	}
	// A tool the view does not list cannot be called either, and the error says why.
	cs := connect(t, srv, org.ReadKey, allGroups)
	toolError(t, cs, "create_campaign", map[string]any{"name": "x"}, "needs a read_write key or token; this one is read-only")
	toolError(t, cs, "confirm_proposal", map[string]any{"proposal_id": "prp_x"}, "read-only")
	cs = connect(t, srv, org.WriteKey, "leads")
	toolError(t, cs, "get_inbox", nil, `belongs to the "inbox" tool group`)
	var n int
	queryRow(t, srv, `SELECT count(*) FROM assistant_proposals`, nil, &n)
	if n != 0 {
		t.Fatalf("%d proposals stored", n)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}
