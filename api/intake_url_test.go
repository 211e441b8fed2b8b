package api_test

import (
	"strings"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

const intakePublicURL = "https://outreach.example.test"

// intakePath cuts an intake URL down to its path, to call it on the test server.
func intakePath(t *testing.T, u any) string {
	t.Helper()
	s, _ := u.(string)
	if !strings.HasPrefix(s, intakePublicURL+"/api/webhooks/leads/itk_") {
		t.Fatalf("intake URL %q is not built on the server's PUBLIC_URL %s", s, intakePublicURL)
	}
	return strings.TrimPrefix(s, intakePublicURL)
}

// TestIntakeURLEndpoints: a campaign's intake URL is read, created, rotated and revoked with a
// key (read_write for changes), every URL is built from the server's PUBLIC_URL, and the admin
// CLI prints the serving instance's PUBLIC_URL too, not its own environment's.
func TestIntakeURLEndpoints(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000", "PUBLIC_URL="+intakePublicURL)
	org := testenv.NewOrg(t, srv)
	anon := testenv.Client{Base: srv.URL}
	camp := cpCreate(t, org.Write, map[string]any{"name": "Intake"})["id"].(string)
	path := "/api/v1/campaigns/" + camp + "/intake-url"

	g := org.Read.Do(t, "GET", path, nil)
	wantStatus(t, g, 200)
	if d := g.JSON["data"].(map[string]any); d["url"] != nil || d["active"] != false || d["campaign_id"] != camp {
		t.Fatalf("before any URL: %s", g.Body)
	}
	wantCode(t, org.Read.Do(t, "POST", path, nil), 403, "insufficient_scope")
	wantCode(t, org.Read.Do(t, "DELETE", path, nil), 403, "insufficient_scope")

	c := org.Write.Do(t, "POST", path, nil)
	wantStatus(t, c, 201)
	d := c.JSON["data"].(map[string]any)
	first := intakePath(t, d["url"])
	if d["active"] != true || d["replaced"] != false || d["created_at"] == nil {
		t.Fatalf("create: %s", c.Body)
	}
	wantStatus(t, anon.Do(t, "POST", first, `{"linkedin": "url-ulla"}`), 202)
	if g := org.Read.Do(t, "GET", path, nil); g.JSON["data"].(map[string]any)["url"] != d["url"] {
		t.Fatalf("GET after create: %s", g.Body)
	}

	rot := org.Write.Do(t, "POST", path, nil)
	wantStatus(t, rot, 201)
	second := intakePath(t, rot.JSON["data"].(map[string]any)["url"])
	if second == first || rot.JSON["data"].(map[string]any)["replaced"] != true {
		t.Fatalf("rotate: %s", rot.Body)
	}
	wantCode(t, anon.Do(t, "POST", first, `{"linkedin": "url-old"}`), 404, "not_found")
	wantStatus(t, anon.Do(t, "POST", second, `{"linkedin": "url-new"}`), 202)

	del := org.Write.Do(t, "DELETE", path, nil)
	wantStatus(t, del, 200)
	if del.JSON["data"].(map[string]any)["revoked"] != true {
		t.Fatalf("delete: %s", del.Body)
	}
	wantCode(t, anon.Do(t, "POST", second, `{"linkedin": "url-gone"}`), 404, "not_found")
	if d := org.Read.Do(t, "GET", path, nil).JSON["data"].(map[string]any); d["url"] != nil || d["active"] != false {
		t.Fatalf("GET after delete: %v", d)
	}
	if again := org.Write.Do(t, "DELETE", path, nil); again.Status != 200 || again.JSON["data"].(map[string]any)["revoked"] != false {
		t.Fatalf("second delete: %s", again.Body)
	}

	other := testenv.NewOrg(t, srv)
	wantCode(t, other.Read.Do(t, "GET", path, nil), 404, "not_found")
	wantCode(t, other.Write.Do(t, "POST", path, nil), 404, "not_found")
	wantCode(t, other.Write.Do(t, "DELETE", path, nil), 404, "not_found")
	wantCode(t, org.Read.Do(t, "GET", "/api/v1/campaigns/cmp_01j0000000000000000000000/intake-url", nil), 404, "not_found")

	// The CLI runs with its own environment (no PUBLIC_URL, so its own default would be
	// http://127.0.0.1:8080) and still prints the serving instance's URL; the API shows it.
	cli := testenv.Admin(t, srv.DBURL, "intake-token", "create", "--campaign", camp)
	cliPath := intakePath(t, cli["url"])
	wantStatus(t, anon.Do(t, "POST", cliPath, `{"linkedin": "url-cli"}`), 202)
	if g := org.Read.Do(t, "GET", path, nil); g.JSON["data"].(map[string]any)["url"] != cli["url"] {
		t.Fatalf("GET after CLI create: %s (CLI printed %v)", g.Body, cli["url"])
	}
}

// TestIntakeHasItsOwnBudget: intake URL calls spend a budget of their own per token
// (INTAKE_RATE_LIMIT_PER_MINUTE), not the organization's, so a busy API client cannot starve a
// form feeding the intake URL, nor the reverse.
func TestIntakeHasItsOwnBudget(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "INTAKE_RATE_LIMIT_PER_MINUTE=4")
	org := testenv.NewOrg(t, srv, "--rate-limit-per-minute", "8")
	anon := testenv.Client{Base: srv.URL}
	// The budgets are calendar minutes: start early in one so the test cannot straddle two.
	if s := time.Now().Second(); s > 40 {
		time.Sleep(time.Duration(61-s) * time.Second)
	}
	a := cpCreate(t, org.Write, map[string]any{"name": "A"})["id"].(string)
	b := cpCreate(t, org.Write, map[string]any{"name": "B"})["id"].(string)
	pathA := "/api/webhooks/leads/" + testenv.Admin(t, srv.DBURL, "intake-token", "create", "--campaign", a)["token"].(string)
	pathB := "/api/webhooks/leads/" + testenv.Admin(t, srv.DBURL, "intake-token", "create", "--campaign", b)["token"].(string)

	// Token A spends its 4; the 5th is a 429 with the intake budget's headers.
	for i := range 4 {
		r := anon.Do(t, "POST", pathA, `{"linkedin": "budget-a"}`)
		wantStatus(t, r, 202)
		if r.Header.Get("X-RateLimit-Limit") != "4" || r.Header.Get("X-RateLimit-Remaining") != string(rune('3'-i)) || r.Header.Get("X-RateLimit-Reset") == "" {
			t.Fatalf("intake call %d headers: %v", i, r.Header)
		}
	}
	over := anon.Do(t, "POST", pathA, `{"linkedin": "budget-a"}`)
	wantStatus(t, over, 429)
	if over.Header.Get("Retry-After") == "" || over.Header.Get("X-RateLimit-Limit") != "4" {
		t.Fatalf("429 headers: %v", over.Header)
	}
	// The organization's budget was not touched by intake: 2 creates so far, 6 left.
	me := org.Read.Do(t, "GET", "/api/v1/me", nil)
	wantStatus(t, me, 200)
	if me.Header.Get("X-RateLimit-Limit") != "8" || me.Header.Get("X-RateLimit-Remaining") != "5" {
		t.Fatalf("organization budget after intake calls: %v", me.Header)
	}
	// A busy API client exhausts the organization's budget ...
	for range 10 {
		if org.Read.Do(t, "GET", "/api/v1/me", nil).Status == 429 {
			break
		}
	}
	wantStatus(t, org.Read.Do(t, "GET", "/api/v1/me", nil), 429)
	// ... and token B's form still gets through.
	wantStatus(t, anon.Do(t, "POST", pathB, `{"linkedin": "budget-b"}`), 202)
}
