package mcp_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"outreachd/api"
	"outreachd/internal/testenv"
	"outreachd/mcp"
	"outreachd/outreach"
)

// grants is an AccessTokenVerifier standing in for the authorization server.
type grants map[string]outreach.AccessGrant

func (g grants) VerifyAccessToken(_ context.Context, token string) (outreach.AccessGrant, error) {
	if a, ok := g[token]; ok {
		return a, nil
	}
	return outreach.AccessGrant{}, mcp.ErrInvalidToken
}

// TestAssistantOAuthTokens plugs an OAuth verifier in, as the service does when its
// authorization server is wired: an access token acts for its user's organization with the
// consented scope, is recorded as "oauth:<client>:<user>", and an expired or unknown one is a
// 401 like a bad key.
func TestAssistantOAuthTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testenv.Store(t)
	org, err := st.CreateOrg(ctx, "OAuth org", nil)
	if err != nil {
		t.Fatal(err)
	}
	const public = "http://assistant.test"
	hour := time.Now().Add(time.Hour)
	verifier := grants{
		"oat_rw":  {OrgID: org.ID, UserID: "usr_1", ClientID: "cli_1", Scope: "read_write", ExpiresAt: hour},
		"oat_r":   {OrgID: org.ID, UserID: "usr_2", ClientID: "cli_1", Scope: "read", ExpiresAt: hour},
		"oat_old": {OrgID: org.ID, UserID: "usr_1", ClientID: "cli_1", Scope: "read_write", ExpiresAt: time.Now().Add(-time.Second)},
	}
	rest, err := api.NewServer(st, api.Deps{}, api.Config{PublicURL: public})
	if err != nil {
		t.Fatal(err)
	}
	assistant, err := mcp.NewServer(st, mcp.Deps{REST: rest, OAuth: verifier}, mcp.Config{PublicURL: public})
	if err != nil {
		t.Fatal(err)
	}
	front, err := api.NewServer(st, api.Deps{Assistant: assistant.Handler()}, api.Config{PublicURL: public})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(front.Handler())
	t.Cleanup(hs.Close)
	srv := &testenv.Server{URL: hs.URL}

	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tok := range []string{"oat_old", "oat_unknown"} {
		resp, body := rawPost(t, hs.URL+"/mcp", "Bearer "+tok, init)
		if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `resource_metadata="`+public+`/.well-known/oauth-protected-resource"`) {
			t.Errorf("%s: %d %q %s", tok, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}

	for name, tool := range toolNames(t, connect(t, srv, "oat_r", allGroups)) {
		if !tool.Annotations.ReadOnlyHint {
			t.Errorf("a read token lists %s", name)
		}
	}
	cs := connect(t, srv, "oat_rw", "campaigns")
	if me := ok(t, cs, "get_me", nil)["data"].(map[string]any); me["org_id"] != org.ID || me["scope"] != "read_write" {
		t.Fatalf("get_me with an access token: %v", me)
	}
	p := propose(t, cs, "create_campaign", map[string]any{"name": "Via OAuth"})
	if item := confirm(t, cs, p)["item"].(map[string]any); item["name"] != "Via OAuth" {
		t.Fatalf("create_campaign: %v", item)
	}
	var by, confirmedBy string
	if err := st.Pool().QueryRow(ctx, `SELECT proposed_by, confirmed_by FROM assistant_proposals WHERE id = $1`, p["id"]).Scan(&by, &confirmedBy); err != nil {
		t.Fatal(err)
	}
	if by != "oauth:cli_1:usr_1" || confirmedBy != by {
		t.Fatalf("proposed_by %q confirmed_by %q", by, confirmedBy)
	}
}
