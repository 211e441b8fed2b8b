package oauth

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

var revokeFormRe = regexp.MustCompile(`action="(/app/assistants/[^"]+/revoke)"`)

// The page lists the organization's connected assistants, only to its own people, and Revoke
// (cross-site protected) stops the assistant's tokens.
func TestConnectedAssistantsPage(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude Desktop", cb)
	at, _ := e.tokens(id, cb)
	e.advance(2 * time.Minute)
	if !e.verifies(at) { // notes the last use
		t.Fatal("token refused")
	}

	r := e.do(http.MethodGet, "/app/assistants", "", "", "")
	if loc, _ := url.Parse(r.header.Get("Location")); r.status != http.StatusFound || loc.Path != "/app/login" || loc.Query().Get("next") != "/app/assistants" {
		t.Fatalf("signed out: %d %q", r.status, r.header.Get("Location"))
	}
	r = e.do(http.MethodGet, "/app/assistants", "", "", e.cookie)
	page := string(r.body)
	for _, want := range []string{"Connected assistants", "Claude Desktop", "ops@acme.test", "Read and write",
		formatTime(e.now()), `>Revoke</button>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	m := revokeFormRe.FindStringSubmatch(page)
	if r.status != http.StatusOK || m == nil {
		t.Fatalf("%d, no revoke form", r.status)
	}
	revokePath := m[1]

	_, _, other := e.newUser("Other", "eve@other.test")
	otherPage := string(e.do(http.MethodGet, "/app/assistants", "", "", other).body)
	if strings.Contains(otherPage, "Claude Desktop") || !strings.Contains(otherPage, "No assistant is connected") {
		t.Fatalf("another organization sees the grant:\n%s", otherPage)
	}
	if r := e.do(http.MethodPost, revokePath, "", "", other); r.status != http.StatusNotFound {
		t.Fatalf("another organization revoked: %d", r.status)
	}
	if r := e.do(http.MethodPost, revokePath, "", "", e.cookie, "Sec-Fetch-Site", "cross-site"); r.status != http.StatusForbidden {
		t.Fatalf("cross-site revoke: %d", r.status)
	}
	if !e.verifies(at) {
		t.Fatal("refused revocations revoked the grant")
	}
	r = e.do(http.MethodPost, revokePath, "", "", e.cookie, "Sec-Fetch-Site", "same-origin")
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/app/assistants?revoked=1" {
		t.Fatalf("revoke: %d %q", r.status, r.header.Get("Location"))
	}
	if e.verifies(at) {
		t.Fatal("revoked assistant's token still works")
	}
	page = string(e.do(http.MethodGet, "/app/assistants?revoked=1", "", "", e.cookie).body)
	if strings.Contains(page, "Claude Desktop") || !strings.Contains(page, "disconnected") {
		t.Fatalf("after revoke:\n%s", page)
	}
}
