package webapp_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"outreachd/webapp"
)

// TestHostileInput sends every form of the application text no field takes: a NUL character,
// bytes that are not UTF-8, a value past any field's length. Each is a 400 page naming the
// problem; none reaches the database (no ERROR is logged, no failed sign-in is recorded).
func TestHostileInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{})
	e.org("ops@acme.test", "a long enough password")
	signedIn := e.client()
	signedIn.mustLogin("ops@acme.test", "a long enough password")
	anon := e.client()
	huge := strings.Repeat("x", 10_001)
	const nul = "contains a NUL character (\\u0000)"
	tests := []struct {
		name   string
		c      *client
		method string
		path   string
		form   url.Values
		status int
		want   string
	}{
		{"sign-in email with NUL", anon, "POST", "/app/login", url.Values{"email": {"ops\x00@acme.test"}, "password": {"x"}}, 400, "email: " + nul},
		{"sign-in email of 2,700 characters", anon, "POST", "/app/login", url.Values{"email": {strings.Repeat("e", 2700)}, "password": {"x"}}, 400, "An email address is at most 254 characters."},
		{"sign-in email not UTF-8", anon, "POST", "/app/login", url.Values{"email": {"\xff\xfe@acme.test"}, "password": {"x"}}, 400, "email: holds bytes that are not UTF-8"},
		{"sign-in password past any field", anon, "POST", "/app/login", url.Values{"email": {"ops@acme.test"}, "password": {huge}}, 400, "password: is longer than 10000 characters"},
		{"destination name with NUL", signedIn, "POST", "/app/destinations", url.Values{"kind": {"https"}, "url": {"https://example.com/h"}, "name": {"a\x00b"}, "events": {"lead_accepted"}}, 400, "name: " + nul},
		{"Slack channel with NUL", signedIn, "POST", "/app/destinations", url.Values{"kind": {"slack"}, "name": {"s"}, "events": {"lead_accepted"}, "slack_channel": {"#a\x00"}, "slack_token": {"xoxb-1"}}, 400, "slack_channel: " + nul},
		{"destination edit with NUL", signedIn, "POST", "/app/destinations/dst_06h1psmn5d8c81g192rtyxxahm", url.Values{"name": {"x\x00"}}, 400, "name: " + nul},
		{"resend of an id with NUL", signedIn, "POST", "/app/destinations/dst_06h1psmn5d8c81g192rtyxxahm/resend", url.Values{"delivery_id": {"dlv_\x00"}}, 400, "delivery_id: " + nul},
		{"key scope with NUL", signedIn, "POST", "/app/keys", url.Values{"scope": {"read\x00"}}, 400, "scope: " + nul},
		{"campaign status with NUL", signedIn, "POST", "/app/campaigns/cmp_06h1psmn5d8c81g192rtyxxahm/status", url.Values{"status": {"paused\x00"}}, 400, "status: " + nul},
		{"edited reply with NUL", signedIn, "POST", "/app/needs-human/nhu_06h1psmn5d8c81g192rtyxxahm/approve", url.Values{"edited": {"yes"}, "text": {"hi\x00"}}, 400, "text: " + nul},
		{"edited reply past any field", signedIn, "POST", "/app/needs-human/nhu_06h1psmn5d8c81g192rtyxxahm/approve", url.Values{"edited": {"yes"}, "text": {huge}}, 400, "text: is longer than 10000 characters"},
		{"field name with NUL", signedIn, "POST", "/app/keys", url.Values{"sc\x00ope": {"read"}}, 400, "a field name holds a NUL character"},
		{"query with NUL", signedIn, "GET", "/app/needs-human?campaign_id=cmp_%00", nil, 400, "campaign_id: " + nul},
		{"path with NUL", signedIn, "GET", "/app/campaigns/cmp_%00", nil, 400, "the address: " + nul},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.c.do(tt.method, tt.path, tt.form)
			if p.Status != tt.status || !strings.Contains(p.Body, htmlEscape(tt.want)) {
				t.Fatalf("%s %s: %d, want %d naming %q; page: %.300s", tt.method, tt.path, p.Status, tt.status, tt.want, pageText(p.Body))
			}
		})
	}
	if n := e.errs.Load(); n != 0 {
		t.Fatalf("%d errors logged: hostile input reached the database", n)
	}
	var failures int
	if err := e.store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM app_login_failures`).Scan(&failures); err != nil || failures != 0 {
		t.Fatalf("failed sign-ins recorded: %d %v; refused input is no sign-in attempt", failures, err)
	}
	if p := signedIn.get("/app/keys"); p.Status != http.StatusOK {
		t.Fatalf("the session after refused input: %d", p.Status)
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// pageText is a page's body without its markup, for failure messages.
func pageText(body string) string {
	var b strings.Builder
	in := false
	for _, r := range body {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
