package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"outreachd/internal/testenv"
)

// bearer adds the Authorization header to every request of the SDK's client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// allGroups means "no toolsets parameter" for connect.
const allGroups = "\x00all"

// connect opens a session of the Go SDK's own client on the server's /mcp with token.
func connect(t *testing.T, srv *testenv.Server, token, toolsets string) *sdk.ClientSession {
	t.Helper()
	url := srv.URL + "/mcp"
	if toolsets != allGroups {
		url += "?toolsets=" + toolsets
	}
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{
		Transport: bearer{token: token, next: http.DefaultTransport}, Timeout: 60 * time.Second}}
	c := sdk.NewClient(&sdk.Implementation{Name: "outreachd-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// toolNames lists the tools a session sees, by name.
func toolNames(t *testing.T, cs *sdk.ClientSession) map[string]*sdk.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*sdk.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

// call runs a tool and returns its result; a protocol error fails the test.
func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok runs a tool that must succeed and returns its structuredContent, checking that the text
// content carries the same JSON.
func ok(t *testing.T, cs *sdk.ClientSession, name string, args any) map[string]any {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): tool error %s", name, args, text(res))
	}
	sc, isMap := res.StructuredContent.(map[string]any)
	if !isMap {
		t.Fatalf("%s: structuredContent %T %v", name, res.StructuredContent, res.StructuredContent)
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil || !reflect.DeepEqual(fromText, sc) {
		t.Fatalf("%s: text content is not the structuredContent's JSON: %v\n%s", name, err, text(res))
	}
	return sc
}

// toolError runs a tool that must fail with isError and a message containing want.
func toolError(t *testing.T, cs *sdk.ClientSession, name string, args any, want string) {
	t.Helper()
	res := call(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v): want a tool error, got %s", name, args, text(res))
	}
	if !strings.Contains(text(res), want) {
		t.Fatalf("%s(%v): error %q does not say %q", name, args, text(res), want)
	}
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, isText := c.(*sdk.TextContent); isText {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// propose runs a writing tool and returns its proposal, checking the proposal's shape.
func propose(t *testing.T, cs *sdk.ClientSession, name string, args any) map[string]any {
	t.Helper()
	sc := ok(t, cs, name, args)
	p, isMap := sc["proposal"].(map[string]any)
	if !isMap || len(sc) != 1 {
		t.Fatalf("%s: structuredContent is not {proposal}: %v", name, sc)
	}
	id, _ := p["id"].(string)
	exp, _ := p["expires_at"].(string)
	at, err := time.Parse(time.RFC3339, exp)
	if !strings.HasPrefix(id, "prp_") || p["tool"] != name || p["summary"] == "" || err != nil ||
		at.Before(time.Now().Add(14*time.Minute)) || at.After(time.Now().Add(16*time.Minute)) {
		t.Fatalf("%s: proposal %v", name, p)
	}
	if _, isBool := p["irreversible"].(bool); !isBool || len(p) != 5 {
		t.Fatalf("%s: proposal fields %v", name, p)
	}
	return p
}

// confirm carries out a proposal and returns its result.
func confirm(t *testing.T, cs *sdk.ClientSession, p map[string]any) map[string]any {
	t.Helper()
	return ok(t, cs, "confirm_proposal", map[string]any{"proposal_id": p["id"]})
}

// restJSON is a REST call's body, decoded.
func restJSON(t *testing.T, c testenv.Client, method, path string, body any) map[string]any {
	t.Helper()
	r := c.Do(t, method, path, body)
	if r.Status/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
	}
	var out map[string]any
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// execSQL runs one statement on the server's database.
func execSQL(t *testing.T, srv *testenv.Server, sql string, args ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatal(err)
	}
}

// queryRow reads one row of the server's database into dest.
func queryRow(t *testing.T, srv *testenv.Server, sql string, args []any, dest ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, sql, args...).Scan(dest...); err != nil {
		t.Fatal(err)
	}
}
