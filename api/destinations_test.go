package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// receiver is a local endpoint that records what it was sent and answers status.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []received
	code int
}

type received struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, code int) *receiver {
	t.Helper()
	rc := &receiver{code: code}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{header: r.Header.Clone(), body: b})
		rc.mu.Unlock()
		w.WriteHeader(rc.code)
		_, _ = io.WriteString(w, "answer from receiver")
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

func errorOf(t *testing.T, r testenv.Response) (code, message string) {
	t.Helper()
	e, _ := r.JSON["error"].(map[string]any)
	code, _ = e["code"].(string)
	message, _ = e["message"].(string)
	return code, message
}

func data(t *testing.T, r testenv.Response) map[string]any {
	t.Helper()
	d, ok := r.JSON["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object in %d %s", r.Status, r.Body)
	}
	return d
}

func createDest(t *testing.T, c testenv.Client, body map[string]any) map[string]any {
	t.Helper()
	r := c.Do(t, "POST", "/api/v1/destinations", body)
	if r.Status != 201 {
		t.Fatalf("create destination: %d %s", r.Status, r.Body)
	}
	return data(t, r)
}

func TestDestinationsCRUD(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)

	if r := org.Read.Do(t, "GET", "/api/v1/destinations", nil); r.Status != 200 || string(r.Body) != "{\"data\":[]}\n" {
		t.Fatalf("empty list: %d %s", r.Status, r.Body)
	}
	d := createDest(t, org.Write, map[string]any{"url": "https://example.com/hooks/a?x=1", "events": []string{"reply_received", "call_booked"},
		"secret": "s3cret-value", "name": "  CRM  "})
	want := map[string]any{"name": "CRM", "kind": "https", "url": "https://example.com/hooks/a?x=1", "has_secret": true,
		"enabled": true, "slack_channel": nil, "last_attempt": nil}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s = %#v, want %#v", k, d[k], v)
		}
	}
	if fmt.Sprint(d["events"]) != "[reply_received call_booked]" || d["secret"] != nil {
		t.Errorf("events %v, secret %v", d["events"], d["secret"])
	}
	for _, k := range []string{"id", "created_at", "updated_at"} {
		if s, _ := d[k].(string); s == "" {
			t.Errorf("%s missing: %v", k, d)
		}
	}
	id := d["id"].(string)

	// Defaults: events all, name from the host.
	d2 := createDest(t, org.Write, map[string]any{"url": "https://hooks.example.org/x"})
	if fmt.Sprint(d2["events"]) != "[all]" || d2["name"] != "hooks.example.org" || d2["has_secret"] != false {
		t.Fatalf("defaults: %v", d2)
	}

	list := org.Read.Do(t, "GET", "/api/v1/destinations", nil)
	items, _ := list.JSON["data"].([]any)
	if list.Status != 200 || len(items) != 2 || items[0].(map[string]any)["id"] != id {
		t.Fatalf("list: %d %s", list.Status, list.Body)
	}
	if g := org.Read.Do(t, "GET", "/api/v1/destinations/"+id, nil); g.Status != 200 || data(t, g)["name"] != "CRM" {
		t.Fatalf("get: %d %s", g.Status, g.Body)
	}

	p := org.Write.Do(t, "PATCH", "/api/v1/destinations/"+id, map[string]any{"name": "CRM 2", "events": "all", "enabled": false, "secret": nil})
	pd := data(t, p)
	if p.Status != 200 || pd["name"] != "CRM 2" || fmt.Sprint(pd["events"]) != "[all]" || pd["enabled"] != false ||
		pd["has_secret"] != false || pd["url"] != "https://example.com/hooks/a?x=1" {
		t.Fatalf("patch: %d %s", p.Status, p.Body)
	}
	p = org.Write.Do(t, "PATCH", "/api/v1/destinations/"+id, map[string]any{"secret": "generate"})
	if sec, _ := data(t, p)["secret"].(string); p.Status != 200 || !strings.HasPrefix(sec, "whsec_") || data(t, p)["has_secret"] != true {
		t.Fatalf("patch generate: %d %s", p.Status, p.Body)
	}
	if g := org.Read.Do(t, "GET", "/api/v1/destinations/"+id, nil); data(t, g)["secret"] != nil {
		t.Fatalf("secret shown again: %s", g.Body)
	}

	if r := org.Write.Do(t, "DELETE", "/api/v1/destinations/"+id, nil); r.Status != 200 || data(t, r)["deleted"] != true {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	for _, m := range []string{"GET", "DELETE"} {
		if r := org.Write.Do(t, m, "/api/v1/destinations/"+id, nil); r.Status != 404 {
			t.Fatalf("%s after delete: %d %s", m, r.Status, r.Body)
		}
	}
}

func TestDestinationsRefuseBadInput(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	base := createDest(t, org.Write, map[string]any{"url": "https://example.com/keep", "events": []string{"invite_sent"}})
	id := base["id"].(string)
	var kinds []string
	for _, k := range outreach.AllEventKinds() {
		kinds = append(kinds, string(k))
	}

	cases := []refusal{
		{"unknown event kind", "POST", "", map[string]any{"url": "https://example.com", "events": []string{"reply_received", "replied"}}, `unknown event kind "replied"`},
		{"unknown kind lists the kinds", "POST", "", map[string]any{"url": "https://example.com", "events": []string{"reply"}},
			`events: unknown event kind "reply"; the kinds are ` + strings.Join(kinds, ", ") + `, or "all" for every one`},
		{"events string with an unknown kind", "POST", "", map[string]any{"url": "https://example.com", "events": "call_booked,reply"}, `unknown event kind "reply"`},
		{"events string naming none", "POST", "", map[string]any{"url": "https://example.com", "events": " , "}, "events: select at least one event kind"},
		{"empty events", "POST", "", map[string]any{"url": "https://example.com", "events": []string{}}, "events"},
		{"all with others", "POST", "", map[string]any{"url": "https://example.com", "events": []string{"all", "call_booked"}}, `"all" cannot be combined`},
		{"events wrong type", "POST", "", map[string]any{"url": "https://example.com", "events": 3}, "events"},
		{"unknown kind", "POST", "", map[string]any{"url": "https://example.com", "kind": "email"}, `kind: must be https or slack, got "email"`},
		{"missing url", "POST", "", map[string]any{"name": "x"}, "url: required"},
		{"not a url scheme", "POST", "", map[string]any{"url": "ftp://example.com/x"}, "url:"},
		{"userinfo", "POST", "", map[string]any{"url": "https://u:p@example.com/x"}, "user info"},
		{"unknown field", "POST", "", map[string]any{"url": "https://example.com", "colour": "red"}, `unknown field "colour"`},
		{"malformed json", "POST", "", `{"url": `, "malformed JSON"},
		{"array body", "POST", "", `[]`, "request body must be an object (JSON), got array"},
		{"empty secret", "POST", "", map[string]any{"url": "https://example.com", "secret": ""}, "secret: must not be empty"},
		{"secret with space", "POST", "", map[string]any{"url": "https://example.com", "secret": "a b"}, "secret: must not contain whitespace"},
		{"https with slack channel", "POST", "", map[string]any{"url": "https://example.com", "slack_channel": "#x"}, "only for a slack destination"},
		{"slack both", "POST", "", map[string]any{"kind": "slack", "url": "https://hooks.slack.com/services/T/B/x", "slack_bot_token": "xoxb-1", "slack_channel": "C1"}, "not both"},
		{"slack token without channel", "POST", "", map[string]any{"kind": "slack", "slack_bot_token": "xoxb-1"}, "both are required"},
		{"slack nothing", "POST", "", map[string]any{"kind": "slack"}, "needs an incoming-webhook url"},
		{"patch kind", "PATCH", "/" + id, map[string]any{"kind": "slack"}, "kind: cannot be changed"},
		{"patch unknown event", "PATCH", "/" + id, map[string]any{"events": []string{"nope"}}, `unknown event kind "nope"`},
		{"patch url null", "PATCH", "/" + id, map[string]any{"url": ""}, "url: required"},
		{"test unknown event", "POST", "/" + id + "/test", map[string]any{"event": "nope"}, `unknown event kind "nope"`},
		{"test unselected event", "POST", "/" + id + "/test", map[string]any{"event": "call_booked"}, "call_booked is not among the events"},
	}
	checkRefusals(t, org.Write, cases, strings.Contains)
	// Nothing was written by any refused request.
	list := org.Read.Do(t, "GET", "/api/v1/destinations", nil)
	items := list.JSON["data"].([]any)
	got := items[0].(map[string]any)
	if len(items) != 1 || got["url"] != "https://example.com/keep" || fmt.Sprint(got["events"]) != "[invite_sent]" || got["kind"] != "https" {
		t.Fatalf("a refused request wrote something: %s", list.Body)
	}
}

// refusal is a request to /api/v1/destinations{path} that must answer 400 invalid_request with
// want in its message.
type refusal struct {
	name, method, path string
	body               any
	want               string
}

// checkRefusals sends each case's request with c; match(message, want) decides whether the
// message says what it must.
func checkRefusals(t *testing.T, c testenv.Client, cases []refusal, match func(msg, want string) bool) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Do(t, tc.method, "/api/v1/destinations"+tc.path, tc.body)
			code, msg := errorOf(t, r)
			if r.Status != 400 || code != "invalid_request" || !match(msg, tc.want) {
				t.Fatalf("status %d body %s; want 400 invalid_request with %q", r.Status, r.Body, tc.want)
			}
		})
	}
}

// The selection of event kinds is taken as an array or, as the application and the operator CLI
// take it, as one string of kinds separated by commas.
func TestDestinationEventsAsOneString(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	d := createDest(t, org.Write, map[string]any{"url": "https://example.com/a", "events": "reply_received, call_booked,reply_received"})
	if fmt.Sprint(d["events"]) != "[reply_received call_booked]" {
		t.Fatalf("created with a string: events %v, want [reply_received call_booked]", d["events"])
	}
	p := org.Write.Do(t, "PATCH", "/api/v1/destinations/"+d["id"].(string), map[string]any{"events": "invite_sent"})
	if p.Status != 200 || fmt.Sprint(data(t, p)["events"]) != "[invite_sent]" {
		t.Fatalf("patched with a string: %d %s", p.Status, p.Body)
	}
}

func TestDestinationsLimitScopeAndOrg(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org, other := testenv.NewOrg(t, srv), testenv.NewOrg(t, srv)
	var first string
	for i := range 10 {
		d := createDest(t, org.Write, map[string]any{"url": fmt.Sprintf("https://example.com/%d", i)})
		if i == 0 {
			first = d["id"].(string)
		}
	}
	r := org.Write.Do(t, "POST", "/api/v1/destinations", map[string]any{"url": "https://example.com/11"})
	if code, msg := errorOf(t, r); r.Status != 400 || code != "invalid_request" || !strings.Contains(msg, "already has 10 destinations, the maximum") {
		t.Fatalf("11th: %d %s", r.Status, r.Body)
	}

	// A read key reads but never writes.
	writes := []struct{ method, path string }{
		{"POST", "/api/v1/destinations"}, {"PATCH", "/api/v1/destinations/" + first}, {"DELETE", "/api/v1/destinations/" + first},
		{"POST", "/api/v1/destinations/" + first + "/test"}, {"POST", "/api/v1/deliveries/dlv_x/resend"}, {"POST", "/api/v1/deliveries/recover"},
	}
	for _, w := range writes {
		if r := org.Read.Do(t, w.method, w.path, map[string]any{}); r.Status != 403 {
			t.Errorf("read key %s %s: %d %s", w.method, w.path, r.Status, r.Body)
		}
	}
	for _, p := range []string{"/api/v1/destinations", "/api/v1/destinations/" + first, "/api/v1/destinations/" + first + "/attempts", "/api/v1/deliveries"} {
		if r := org.Read.Do(t, "GET", p, nil); r.Status != 200 {
			t.Errorf("read key GET %s: %d %s", p, r.Status, r.Body)
		}
	}

	// Another organization cannot see or touch it.
	cross := []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/v1/destinations/" + first, nil},
		{"PATCH", "/api/v1/destinations/" + first, map[string]any{"name": "mine"}},
		{"DELETE", "/api/v1/destinations/" + first, nil},
		{"POST", "/api/v1/destinations/" + first + "/test", nil},
		{"GET", "/api/v1/destinations/" + first + "/attempts", nil},
		{"GET", "/api/v1/deliveries?destination_id=" + first, nil},
		{"POST", "/api/v1/deliveries/recover", map[string]any{"from": "2026-01-01", "to": "2026-01-02", "destination_id": first}},
		{"GET", "/api/v1/destinations/dst_nope", nil},
	}
	for _, c := range cross {
		if r := other.Write.Do(t, c.method, c.path, c.body); r.Status != 404 {
			t.Errorf("other org %s %s: %d %s", c.method, c.path, r.Status, r.Body)
		}
	}
	if r := other.Read.Do(t, "GET", "/api/v1/destinations", nil); len(r.JSON["data"].([]any)) != 0 {
		t.Errorf("other org lists: %s", r.Body)
	}
	if r := org.Read.Do(t, "GET", "/api/v1/destinations/"+first, nil); data(t, r)["name"] != "example.com" {
		t.Errorf("other org changed it: %s", r.Body)
	}
}

func TestDestinationsRefusePrivateAddresses(t *testing.T) {
	t.Parallel()
	db := testenv.DatabaseURL(t)
	srv := testenv.StartServer(t, db, "ALLOW_PRIVATE_DESTINATIONS=false")
	org := testenv.NewOrg(t, srv)
	cases := []struct{ url, names string }{
		{"https://127.0.0.1/hook", "127.0.0.1"},
		{"https://169.254.169.254/latest/meta-data", "169.254.169.254"},
		{"https://localhost:8443/hook", "blocked address"},
		{"https://10.1.2.3/hook", "10.1.2.3"},
		{"https://100.64.0.7/hook", "100.64.0.7"},
		{"https://[::1]/hook", "::1"},
		{"https://[::ffff:192.168.0.1]/hook", "192.168.0.1"},
		{"http://example.com/hook", "https"},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			r := org.Write.Do(t, "POST", "/api/v1/destinations", map[string]any{"url": tc.url})
			code, msg := errorOf(t, r)
			if r.Status != 400 || code != "invalid_request" || !strings.Contains(msg, tc.names) {
				t.Fatalf("status %d %s; want 400 naming %q", r.Status, r.Body, tc.names)
			}
			// Every refusal names the setting a local development run needs.
			if !strings.Contains(msg, "ALLOW_PRIVATE_DESTINATIONS=true") {
				t.Fatalf("the refusal does not name ALLOW_PRIVATE_DESTINATIONS: %s", msg)
			}
		})
	}
	// Slack incoming webhooks and URL changes are guarded the same way.
	r := org.Write.Do(t, "POST", "/api/v1/destinations", map[string]any{"kind": "slack", "url": "https://127.0.0.1/services/T/B/x"})
	if _, msg := errorOf(t, r); r.Status != 400 || !strings.Contains(msg, "ALLOW_PRIVATE_DESTINATIONS") {
		t.Fatalf("slack webhook on loopback: %d %s", r.Status, r.Body)
	}
	d := createDest(t, org.Write, map[string]any{"url": "https://93.184.215.14/hook"})
	if r := org.Write.Do(t, "PATCH", "/api/v1/destinations/"+d["id"].(string), map[string]any{"url": "https://192.168.1.1/"}); r.Status != 400 {
		t.Fatalf("patch to private: %d %s", r.Status, r.Body)
	}
	// The operator CLI applies the same guard.
	_, errOut, code := testenv.AdminRawEnv(t, db, []string{"ALLOW_PRIVATE_DESTINATIONS=false"},
		"destination", "create", "--org", org.ID, "--url", "https://169.254.169.254/")
	if code == 0 || !strings.Contains(errOut, "169.254.169.254") || !strings.Contains(errOut, "ALLOW_PRIVATE_DESTINATIONS") {
		t.Fatalf("CLI metadata address: exit %d %s", code, errOut)
	}
	if r := org.Read.Do(t, "GET", "/api/v1/destinations", nil); len(r.JSON["data"].([]any)) != 1 {
		t.Fatalf("a refused destination was stored: %s", r.Body)
	}
}

func TestDestinationSecretsAreSealed(t *testing.T) {
	t.Parallel()
	db := testenv.DatabaseURL(t)
	srv := testenv.StartServer(t, db)
	org := testenv.NewOrg(t, srv)
	const secret = "plaintext-signing-secret-4711"
	const token = "xoxb-plaintext-bot-token-4711"
	createDest(t, org.Write, map[string]any{"url": "https://example.com/a", "secret": secret})
	slack := createDest(t, org.Write, map[string]any{"kind": "slack", "slack_bot_token": token, "slack_channel": "C0123"})
	if slack["url"] != "" || slack["slack_channel"] != "C0123" || slack["name"] != "Slack C0123" {
		t.Fatalf("slack bot destination: %v", slack)
	}
	gen := createDest(t, org.Write, map[string]any{"url": "https://example.com/b", "secret": "generate"})
	if s, _ := gen["secret"].(string); !strings.HasPrefix(s, "whsec_") {
		t.Fatalf("generated secret not returned once: %v", gen)
	}

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT coalesce(secret_sealed, ''), coalesce(slack_token_sealed, '') FROM destinations`)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Secret, Token string }])
	if err != nil || len(sealed) != 3 {
		t.Fatalf("rows %v %v", sealed, err)
	}
	for _, s := range sealed {
		all := s.Secret + s.Token
		if !strings.HasPrefix(all, "v1:") || strings.Contains(all, secret) || strings.Contains(all, token) ||
			strings.Contains(all, gen["secret"].(string)) {
			t.Fatalf("secret not sealed: %+v", s)
		}
	}
	list := org.Read.Do(t, "GET", "/api/v1/destinations", nil)
	if strings.Contains(string(list.Body), secret) || strings.Contains(string(list.Body), token) || strings.Contains(string(list.Body), "whsec_") {
		t.Fatalf("list leaks a secret: %s", list.Body)
	}
}

func TestDestinationTestSendAndLastAttempt(t *testing.T) {
	t.Parallel()
	db := testenv.DatabaseURL(t)
	srv := testenv.StartServer(t, db)
	org := testenv.NewOrg(t, srv)
	ok, failing := newReceiver(t, 200), newReceiver(t, 500)
	const secret = "whsec_dGVzdC1zZWNyZXQtZm9yLXNpZ25pbmc="

	d := createDest(t, org.Write, map[string]any{"url": ok.URL + "/hook", "secret": secret, "events": []string{"reply_received", "call_booked"}})
	id := d["id"].(string)
	if d["last_attempt"] != nil {
		t.Fatalf("last_attempt before any attempt: %v", d["last_attempt"])
	}

	r := org.Write.Do(t, "POST", "/api/v1/destinations/"+id+"/test", map[string]any{"event": "reply_positive"})
	res := data(t, r)
	if r.Status != 200 || res["status_code"] != float64(200) || res["error"] != nil || res["event"] != "reply_positive" ||
		res["destination_id"] != id || res["ok"] != true {
		t.Fatalf("test send: %d %s", r.Status, r.Body)
	}
	if _, isNum := res["duration_ms"].(float64); !isNum {
		t.Fatalf("duration_ms: %s", r.Body)
	}
	reqs := ok.requests()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests", len(reqs))
	}
	var env struct {
		Event string `json:"event"`
		OrgID string `json:"org_id"`
		Data  struct {
			Test bool `json:"test"`
		} `json:"data"`
	}
	if err := json.Unmarshal(reqs[0].body, &env); err != nil || env.Event != "reply_positive" || env.OrgID != org.ID || !env.Data.Test {
		t.Fatalf("payload %s (%v)", reqs[0].body, err)
	}
	if err := delivery.VerifyHex(secret, reqs[0].header, reqs[0].body); err != nil {
		t.Fatalf("X-Service-Signature: %v", err)
	}
	if err := delivery.VerifyStandard(secret, reqs[0].header, reqs[0].body, time.Now(), 0); err != nil {
		t.Fatalf("webhook-signature: %v", err)
	}

	// Without a body the first selected kind is sent.
	if r := org.Write.Do(t, "POST", "/api/v1/destinations/"+id+"/test", nil); data(t, r)["event"] != "reply_received" {
		t.Fatalf("default test event: %s", r.Body)
	}
	g := data(t, org.Read.Do(t, "GET", "/api/v1/destinations/"+id, nil))
	last, _ := g["last_attempt"].(map[string]any)
	if last == nil || last["event"] != "reply_received" || last["status_code"] != float64(200) || last["error"] != nil ||
		last["attempt"] != float64(1) {
		t.Fatalf("last_attempt after test: %v", g["last_attempt"])
	}
	if at, _ := last["at"].(string); len(at) != len("2026-01-01T00:00:00.000Z") {
		t.Fatalf("last_attempt.at %q", at)
	}

	// A failing receiver: its status and an error, and the view shows it.
	bad := createDest(t, org.Write, map[string]any{"url": failing.URL})
	r = org.Write.Do(t, "POST", "/api/v1/destinations/"+bad["id"].(string)+"/test", nil)
	res = data(t, r)
	if r.Status != 200 || res["status_code"] != float64(500) || res["error"] == nil || res["ok"] != false {
		t.Fatalf("test send to 500: %d %s", r.Status, r.Body)
	}
	// Nobody listening: no HTTP answer, status 0 and an error.
	dead := createDest(t, org.Write, map[string]any{"url": "http://" + testenv.FreeAddr(t) + "/"})
	r = org.Write.Do(t, "POST", "/api/v1/destinations/"+dead["id"].(string)+"/test", nil)
	if res := data(t, r); res["status_code"] != float64(0) || res["error"] == nil {
		t.Fatalf("test send to closed port: %s", r.Body)
	}
	list := org.Read.Do(t, "GET", "/api/v1/destinations", nil).JSON["data"].([]any)
	byID := map[string]map[string]any{}
	for _, it := range list {
		m := it.(map[string]any)
		byID[m["id"].(string)] = m
	}
	if la, _ := byID[dead["id"].(string)]["last_attempt"].(map[string]any); la == nil || la["status_code"] != float64(0) || la["error"] == nil {
		t.Fatalf("dead last_attempt: %v", byID[dead["id"].(string)])
	}

	// The attempt history pages newest first.
	a := org.Read.Do(t, "GET", "/api/v1/destinations/"+id+"/attempts?limit=1", nil)
	items, _ := a.JSON["data"].([]any)
	pg, _ := a.JSON["pagination"].(map[string]any)
	if a.Status != 200 || len(items) != 1 || pg["total"] != float64(2) || pg["limit"] != float64(1) {
		t.Fatalf("attempts: %d %s", a.Status, a.Body)
	}
	first := items[0].(map[string]any)
	if first["event"] != "reply_received" || first["trigger"] != "test" || first["status_code"] != float64(200) {
		t.Fatalf("newest attempt: %v", first)
	}
	if r := org.Read.Do(t, "GET", "/api/v1/destinations/"+id+"/attempts?limit=500", nil); r.Status != 400 {
		t.Fatalf("limit 500: %d", r.Status)
	}
}

func TestDeliveriesQueries(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	cases := []struct {
		name, method, path string
		body               any
		status             int
		names              string
	}{
		{"bad status", "GET", "/api/v1/deliveries?status=done", nil, 400, "status"},
		{"bad from", "GET", "/api/v1/deliveries?from=yesterday", nil, 400, "from"},
		{"to before from", "GET", "/api/v1/deliveries?from=2026-02-01&to=2026-01-01", nil, 400, "to must be after from"},
		{"limit too big", "GET", "/api/v1/deliveries?limit=201", nil, 400, "limit"},
		{"negative offset", "GET", "/api/v1/deliveries?offset=-1", nil, 400, "offset"},
		{"unknown destination", "GET", "/api/v1/deliveries?destination_id=dst_nope", nil, 404, "dst_nope"},
		{"recover without to", "POST", "/api/v1/deliveries/recover", map[string]any{"from": "2026-01-01"}, 400, "from and to"},
		{"recover bad time", "POST", "/api/v1/deliveries/recover", map[string]any{"from": "2026-01-01", "to": "soon"}, 400, "to:"},
		{"recover reversed", "POST", "/api/v1/deliveries/recover", map[string]any{"from": "2026-01-02", "to": "2026-01-01"}, 400, "after from"},
		{"recover unknown field", "POST", "/api/v1/deliveries/recover", map[string]any{"from": "2026-01-01", "to": "2026-01-02", "all": true}, 400, `"all"`},
		{"resend unknown", "POST", "/api/v1/deliveries/dlv_nope/resend", nil, 404, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := org.Write.Do(t, tc.method, tc.path, tc.body)
			_, msg := errorOf(t, r)
			if r.Status != tc.status || !strings.Contains(msg, tc.names) {
				t.Fatalf("%d %s; want %d naming %q", r.Status, r.Body, tc.status, tc.names)
			}
		})
	}
	r := org.Read.Do(t, "GET", "/api/v1/deliveries?status=failed&from=2026-01-01T00:00:00Z&to=2026-01-02", nil)
	if pg, _ := r.JSON["pagination"].(map[string]any); r.Status != 200 || pg["total"] != float64(0) || pg["limit"] != float64(50) {
		t.Fatalf("empty deliveries: %d %s", r.Status, r.Body)
	}
	r = org.Write.Do(t, "POST", "/api/v1/deliveries/recover", map[string]any{"from": "2026-01-01", "to": "2026-01-02"})
	if r.Status != 200 || data(t, r)["recovered"] != float64(0) {
		t.Fatalf("recover nothing: %d %s", r.Status, r.Body)
	}
}

func TestAdminDestinationCommands(t *testing.T) {
	t.Parallel()
	db := testenv.DatabaseURL(t)
	srv := testenv.StartServer(t, db)
	org := testenv.NewOrg(t, srv)
	rc := newReceiver(t, 200)

	created := testenv.Admin(t, db, "destination", "create", "--org", org.ID, "--url", rc.URL+"/in",
		"--events", "call_booked,reply_received", "--secret", "generate", "--name", "Ops")
	id, _ := created["destination_id"].(string)
	secret, _ := created["secret"].(string)
	if !strings.HasPrefix(id, "dst_") || !strings.HasPrefix(secret, "whsec_") || created["kind"] != "https" {
		t.Fatalf("create: %v", created)
	}

	list := testenv.Admin(t, db, "destination", "list", "--org", org.ID)
	items, _ := list["data"].([]any)
	if len(items) != 1 {
		t.Fatalf("list: %v", list)
	}
	item := items[0].(map[string]any)
	if item["id"] != id || item["name"] != "Ops" || item["kind"] != "https" || item["url"] != rc.URL+"/in" ||
		fmt.Sprint(item["events"]) != "[call_booked reply_received]" {
		t.Fatalf("list item: %v", item)
	}
	if v, present := item["last_attempt"]; !present || v != nil {
		t.Fatalf("last_attempt before any attempt must be null: %v", item)
	}

	res := testenv.Admin(t, db, "destination", "test", "--destination", id)
	if res["destination_id"] != id || res["status_code"] != float64(200) || res["error"] != nil {
		t.Fatalf("test: %v", res)
	}
	if _, ok := res["duration_ms"].(float64); !ok {
		t.Fatalf("duration_ms: %v", res)
	}
	reqs := rc.requests()
	if len(reqs) != 1 || delivery.VerifyHex(secret, reqs[0].header, reqs[0].body) != nil {
		t.Fatalf("receiver: %d requests", len(reqs))
	}
	item = testenv.Admin(t, db, "destination", "list", "--org", org.ID)["data"].([]any)[0].(map[string]any)
	last, _ := item["last_attempt"].(map[string]any)
	if last == nil || last["event"] != "call_booked" || last["status_code"] != float64(200) || last["attempt"] != float64(1) || last["error"] != nil {
		t.Fatalf("last_attempt after test: %v", item)
	}
	for _, k := range []string{"at", "event", "attempt", "status_code", "error"} {
		if _, ok := last[k]; !ok {
			t.Fatalf("last_attempt lacks %s: %v", k, last)
		}
	}

	bad := []struct {
		name  string
		args  []string
		names string
	}{
		{"unknown event", []string{"destination", "create", "--org", org.ID, "--url", "https://example.com", "--events", "all,nope"}, "events"},
		{"no url", []string{"destination", "create", "--org", org.ID}, "--url is required"},
		{"unknown org", []string{"destination", "create", "--org", "org_nope", "--url", "https://example.com"}, "org_nope"},
		{"bad kind", []string{"destination", "create", "--org", org.ID, "--url", "https://example.com", "--kind", "smtp"}, "kind"},
		{"list unknown org", []string{"destination", "list", "--org", "org_nope"}, "org_nope"},
		{"test unknown", []string{"destination", "test", "--destination", "dst_nope"}, "dst_nope"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := testenv.AdminRaw(t, db, tc.args...)
			var e map[string]string
			if code == 0 || out != "" || json.Unmarshal([]byte(errOut), &e) != nil || !strings.Contains(e["error"], tc.names) {
				t.Fatalf("exit %d stdout %q stderr %q; want failure naming %q", code, out, errOut, tc.names)
			}
		})
	}
	for i := range 9 {
		testenv.Admin(t, db, "destination", "create", "--org", org.ID, "--url", fmt.Sprintf("https://example.com/%d", i))
	}
	if _, errOut, code := testenv.AdminRaw(t, db, "destination", "create", "--org", org.ID, "--url", "https://example.com/11"); code == 0 ||
		!strings.Contains(errOut, "maximum") {
		t.Fatalf("CLI 11th: exit %d %s", code, errOut)
	}
}

// waitFor polls cond until it holds or 15 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRecoverAndResendThroughTheHub(t *testing.T) {
	t.Parallel()
	db := testenv.DatabaseURL(t)
	srv := testenv.StartServer(t, db, "DELIVERY_RETRY_SCHEDULE=0s,100ms")
	org, other := testenv.NewOrg(t, srv), testenv.NewOrg(t, srv)
	rc := newReceiver(t, 200)
	d := createDest(t, org.Write, map[string]any{"url": rc.URL})
	id := d["id"].(string)

	// A delivery that failed yesterday, as the pipeline leaves one after its last attempt.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	yesterday := time.Now().Add(-24 * time.Hour).UTC()
	payload := fmt.Sprintf(`{"event":"invite_sent","timestamp":"%s","org_id":"%s","data":{}}`, yesterday.Format(time.RFC3339), org.ID)
	if _, err := conn.Exec(ctx, `INSERT INTO delivery_payloads (event_id, payload) VALUES ('evt_1', $1)`, []byte(payload)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO deliveries (id, org_id, destination_id, event_id, event_kind, dedupe_key,
		status, failed_at, attempts, max_attempts, emitted_at, created_at, last_status_code, last_error)
		VALUES ('dlv_recover1', $1, $2, 'evt_1', 'invite_sent', '\x01', 'failed', $3, 4, 4, $3, $3, 500, 'HTTP 500')`,
		org.ID, id, yesterday); err != nil {
		t.Fatal(err)
	}
	failed := org.Read.Do(t, "GET", "/api/v1/deliveries?status=failed&destination_id="+id, nil)
	if items, _ := failed.JSON["data"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != "dlv_recover1" ||
		items[0].(map[string]any)["last_error"] != "HTTP 500" {
		t.Fatalf("failed deliveries: %s", failed.Body)
	}

	// Another organization's recover and resend do not touch it.
	r := other.Write.Do(t, "POST", "/api/v1/deliveries/recover", map[string]any{"from": yesterday.Add(-time.Hour).Format(time.RFC3339), "to": time.Now().Format(time.RFC3339)})
	if r.Status != 200 || data(t, r)["recovered"] != float64(0) {
		t.Fatalf("other org recover: %d %s", r.Status, r.Body)
	}
	if r := other.Write.Do(t, "POST", "/api/v1/deliveries/dlv_recover1/resend", nil); r.Status != 404 {
		t.Fatalf("other org resend: %d %s", r.Status, r.Body)
	}
	// A range that ends before it was created recovers nothing.
	r = org.Write.Do(t, "POST", "/api/v1/deliveries/recover", map[string]any{"from": "2020-01-01", "to": "2020-01-02"})
	if r.Status != 200 || data(t, r)["recovered"] != float64(0) {
		t.Fatalf("recover out of range: %d %s", r.Status, r.Body)
	}

	r = org.Write.Do(t, "POST", "/api/v1/deliveries/recover", map[string]any{"from": yesterday.Add(-time.Hour).Format(time.RFC3339),
		"to": time.Now().UTC().Format(time.RFC3339), "destination_id": id})
	if r.Status != 200 || data(t, r)["recovered"] != float64(1) || data(t, r)["destination_id"] != id {
		t.Fatalf("recover: %d %s", r.Status, r.Body)
	}
	waitFor(t, "the recovered delivery", func() bool { return len(rc.requests()) == 1 })
	if got := string(rc.requests()[0].body); got != payload {
		t.Fatalf("recovered payload %s, want %s", got, payload)
	}
	waitFor(t, "succeeded status", func() bool {
		r := org.Read.Do(t, "GET", "/api/v1/deliveries?status=succeeded", nil)
		items, _ := r.JSON["data"].([]any)
		return len(items) == 1
	})

	// A manual resend of the succeeded delivery: one more attempt, trigger manual.
	if r := org.Write.Do(t, "POST", "/api/v1/deliveries/dlv_recover1/resend", nil); r.Status != 202 || data(t, r)["delivery_id"] != "dlv_recover1" {
		t.Fatalf("resend: %d %s", r.Status, r.Body)
	}
	waitFor(t, "the resent delivery", func() bool { return len(rc.requests()) == 2 })
	var triggers []string
	waitFor(t, "the manual attempt in the history", func() bool {
		a := org.Read.Do(t, "GET", "/api/v1/destinations/"+id+"/attempts", nil)
		triggers = nil
		for _, it := range a.JSON["data"].([]any) {
			triggers = append(triggers, it.(map[string]any)["trigger"].(string))
		}
		return len(triggers) == 2
	})
	if triggers[0] != "manual" {
		t.Fatalf("attempt triggers newest first: %v", triggers)
	}
}

func TestSlackTestSendThroughIncomingWebhook(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	rc := newReceiver(t, 200)
	d := createDest(t, org.Write, map[string]any{"kind": "slack", "url": rc.URL + "/services/T000/B000/abcdefghijkl", "events": []string{"call_booked"}})
	if d["url"] != rc.URL+"/services/T000/B000/abcd…" {
		t.Fatalf("slack webhook URL not redacted: %v", d["url"])
	}
	r := org.Write.Do(t, "POST", "/api/v1/destinations/"+d["id"].(string)+"/test", nil)
	if res := data(t, r); res["status_code"] != float64(200) || res["error"] != nil || res["event"] != "call_booked" {
		t.Fatalf("slack test: %s", r.Body)
	}
	reqs := rc.requests()
	var msg struct {
		Text   string           `json:"text"`
		Blocks []map[string]any `json:"blocks"`
	}
	if len(reqs) != 1 || json.Unmarshal(reqs[0].body, &msg) != nil || msg.Text == "" || len(msg.Blocks) == 0 {
		t.Fatalf("slack message: %d requests, %s", len(reqs), reqs[0].body)
	}
}
