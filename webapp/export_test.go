package webapp_test

import (
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"outreachd/webapp"
)

// TestPagesOfOtherPackages: another package (the OAuth part) can serve a page under /app/ on
// the same router, after Mount, in the application's layout, knowing who is signed in.
func TestPagesOfOtherPackages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{})
	orgID, userID := e.org("ops@acme.test", "a long enough password")
	root := mux.NewRouter()
	e.app.Mount(root)
	root.Handle("/app/assistants", e.app.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, ok := e.app.SignedIn(r)
		if !ok {
			http.Redirect(w, r, webapp.LoginURL(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		body := template.HTML("<h1>Connected assistants</h1><p>" + template.HTMLEscapeString(u.OrgID+" "+u.ID+" "+u.Role) + "</p>")
		e.app.RenderPage(w, r, "Assistants", body)
	})))
	srv := httptest.NewServer(root)
	t.Cleanup(srv.Close)
	c := e.client()
	c.base = srv.URL

	if p := c.get("/app/assistants"); p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/app/login?next=%2Fapp%2Fassistants" {
		t.Fatalf("signed out: %d %s", p.Status, p.Header.Get("Location"))
	}
	c.mustLogin("ops@acme.test", "a long enough password")
	p := c.get("/app/assistants")
	if p.Status != http.StatusOK || !strings.Contains(p.Body, "<h1>Connected assistants</h1>") ||
		!strings.Contains(p.Body, orgID+" "+userID+" member") ||
		!strings.Contains(p.Body, `href="/app/assistants" aria-current="page">Assistants</a>`) ||
		!strings.Contains(p.Body, ">Event Destinations</a>") {
		t.Fatalf("the page of another package: %d %s", p.Status, p.Body)
	}
	if p.Header.Get("Content-Security-Policy") == "" {
		t.Fatal("Protect set no CSP")
	}
	// The application's own pages still answer.
	if p := c.get("/app/keys"); p.Status != http.StatusOK {
		t.Fatalf("keys: %d", p.Status)
	}
}
