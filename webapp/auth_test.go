package webapp_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"outreachd/webapp"
)

func TestSafeNext(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"/app/keys", "/app/keys"},
		{"/oauth/authorize?client_id=c&state=s%20x", "/oauth/authorize?client_id=c&state=s%20x"},
		{"", "/app/destinations"},
		{"https://evil.example/", "/app/destinations"},
		{"//evil.example/x", "/app/destinations"},
		{"/\\evil.example", "/app/destinations"},
		{"javascript:alert(1)", "/app/destinations"},
		{"/app/login?next=/app/keys", "/app/destinations"},
		{"app/keys", "/app/destinations"},
		{"/", "/app/destinations"},
		{"/x\r\nSet-Cookie: a=b", "/app/destinations"},
	}
	for _, tt := range tests {
		if got := webapp.SafeNext(tt.in); got != tt.want {
			t.Errorf("SafeNext(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPasswordHash(t *testing.T) {
	t.Parallel()
	h, err := webapp.HashPassword("a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q is not an argon2id PHC string", h)
	}
	if ok, err := webapp.CheckPassword(h, "a long enough password"); !ok || err != nil {
		t.Fatalf("the right password: %v %v", ok, err)
	}
	if ok, _ := webapp.CheckPassword(h, "a long enough passworD"); ok {
		t.Fatal("a wrong password matched")
	}
	if _, err := webapp.CheckPassword("$2a$10$notargon", "x"); err == nil {
		t.Fatal("a foreign hash was read")
	}
	if _, err := webapp.HashPassword("short"); err == nil {
		t.Fatal("a short password was accepted")
	}
}

func TestSignInAndSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{SessionIdle: time.Hour, SessionAbsolute: 3 * time.Hour})
	e.org("ops@acme.test", "a long enough password")

	c := e.client()
	if p := c.get("/app/campaigns"); p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/app/login?next=%2Fapp%2Fcampaigns" {
		t.Fatalf("signed out: %d %s", p.Status, p.Header.Get("Location"))
	}
	p := c.get("/app/login")
	for _, want := range []string{`name="email"`, `name="password"`, `type="submit"`} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the sign-in form lacks %s", want)
		}
	}
	if p := c.login("ops@acme.test", "wrong password"); p.Status != http.StatusUnauthorized || !strings.Contains(p.Body, "do not match") {
		t.Fatalf("wrong password: %d", p.Status)
	}
	p = c.post("/app/login", url.Values{"email": {"OPS@acme.test"}, "password": {"a long enough password"}, "next": {"/app/keys"}})
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/app/keys" {
		t.Fatalf("sign in: %d %s", p.Status, p.Header.Get("Location"))
	}
	cookie := p.Header.Get("Set-Cookie")
	for _, want := range []string{"outreachd_session=", "Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=10800"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("session cookie %q lacks %s", cookie, want)
		}
	}
	if strings.Contains(cookie, "Secure") {
		t.Errorf("cookie %q is Secure on http", cookie)
	}
	p = c.get("/app/destinations")
	if p.Status != http.StatusOK {
		t.Fatalf("signed in: %d", p.Status)
	}
	for _, link := range []string{">Event Destinations</a>", ">API keys</a>", ">Campaigns</a>", ">Needs Human</a>", ">Assistants</a>"} {
		if !strings.Contains(p.Body, link) {
			t.Errorf("the navigation lacks %s", link)
		}
	}
	csp := p.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "form-action 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %s", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || p.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("CSP %q, Cache-Control %q", csp, p.Header.Get("Cache-Control"))
	}

	// Idle: a request within the idle limit keeps the session; a longer silence ends it.
	e.advance(50 * time.Minute)
	if p := c.get("/app/keys"); p.Status != http.StatusOK {
		t.Fatalf("after 50 min: %d", p.Status)
	}
	e.advance(50 * time.Minute)
	if p := c.get("/app/keys"); p.Status != http.StatusOK {
		t.Fatalf("50 min after the last request: %d", p.Status)
	}
	e.advance(61 * time.Minute)
	if p := c.get("/app/keys"); p.Status != http.StatusSeeOther {
		t.Fatalf("after an idle hour the session still works: %d", p.Status)
	}

	// Absolute: however busy, the session ends 3 h after sign-in.
	c.mustLogin("ops@acme.test", "a long enough password")
	for i := 0; i < 4; i++ {
		e.advance(40 * time.Minute)
		if p := c.get("/app/keys"); p.Status != http.StatusOK {
			t.Fatalf("busy session at %d min: %d", (i+1)*40, p.Status)
		}
	}
	e.advance(40 * time.Minute)
	if p := c.get("/app/keys"); p.Status != http.StatusSeeOther {
		t.Fatalf("the session outlived its absolute limit: %d", p.Status)
	}

}

// TestSignOutEndsTheSession on the server, not only in this browser.
func TestSignOutEndsTheSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{})
	e.org("ops@acme.test", "a long enough password")
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	stolen := e.client()
	u, _ := url.Parse(e.srv.URL)
	stolen.http.Jar.SetCookies(u, c.http.Jar.Cookies(u))
	if p := stolen.get("/app/keys"); p.Status != http.StatusOK {
		t.Fatalf("a copy of the cookie before sign-out: %d", p.Status)
	}
	if p := c.post("/app/logout", url.Values{}); p.Status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", p.Status)
	}
	if p := stolen.get("/app/keys"); p.Status != http.StatusSeeOther {
		t.Fatalf("a copy of the cookie works after sign-out: %d", p.Status)
	}
}

func TestSecureCookieUnderHTTPS(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{PublicURL: "https://app.example.com"})
	e.org("ops@acme.test", "a long enough password")
	p := e.client().login("ops@acme.test", "a long enough password")
	cookie := p.Header.Get("Set-Cookie")
	if !strings.HasPrefix(cookie, "__Host-outreachd_session=") || !strings.Contains(cookie, "Secure") {
		t.Fatalf("cookie under https: %q", cookie)
	}
}

func TestSignInThrottle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{MaxFailuresPerAccount: 3, MaxFailuresPerAddress: 5})
	e.org("ops@acme.test", "a long enough password")
	e.org("two@acme.test", "a long enough password")
	c := e.client()
	for i := 0; i < 3; i++ {
		if p := c.login("ops@acme.test", "guess"); p.Status != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d", i, p.Status)
		}
	}
	// The account is locked, even for the right password…
	p := c.login("ops@acme.test", "a long enough password")
	if p.Status != http.StatusTooManyRequests || !strings.Contains(p.Body, "Too many failed sign-ins") {
		t.Fatalf("locked account: %d", p.Status)
	}
	// …another account is not, until the address has failed too often.
	c.mustLogin("two@acme.test", "a long enough password")
	c.login("nobody@acme.test", "guess")
	c.login("nobody2@acme.test", "guess")
	if p := c.login("two@acme.test", "a long enough password"); p.Status != http.StatusTooManyRequests {
		t.Fatalf("the address made 5 failures; sign-in answered %d", p.Status)
	}
	// The window passes.
	e.advance(16 * time.Minute)
	c.mustLogin("ops@acme.test", "a long enough password")
}

func TestCrossOriginPostsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{})
	e.org("ops@acme.test", "a long enough password")
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	form := url.Values{"scope": {"read"}}
	for _, h := range [][]string{{"Sec-Fetch-Site", "cross-site"}, {"Origin", "https://evil.example"}} {
		p := c.do(http.MethodPost, "/app/keys", form, h...)
		if p.Status != http.StatusForbidden {
			t.Errorf("POST with %s: %s answered %d", h[0], h[1], p.Status)
		}
	}
	if p := c.do(http.MethodPost, "/app/login", url.Values{"email": {"ops@acme.test"}, "password": {"a long enough password"}},
		"Sec-Fetch-Site", "cross-site"); p.Status != http.StatusForbidden {
		t.Errorf("cross-site sign-in answered %d", p.Status)
	}
	if p := c.do(http.MethodPost, "/app/keys", form, "Sec-Fetch-Site", "same-origin"); p.Status != http.StatusOK {
		t.Errorf("same-origin POST answered %d", p.Status)
	}
}
