package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

// TestInboxResume: a stopped person is listed with the step and the time that was left; a resume
// gives both back (counted from the resume) and takes them off the list; another organization
// neither sees nor resumes them.
func TestInboxResume(t *testing.T) {
	t.Parallel()
	e := repStart(t)
	c1 := e.repCampaign(t, e.org.ID)
	pat := e.seedPerson(t, "pat", "", c1)
	next := time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC) // seedPerson's next step, step 2

	if r := e.org.Write.Do(t, "POST", "/api/v1/inbox/stop", map[string]any{"linkedin_url": "pat"}); r.Status != 200 {
		t.Fatalf("stop: %d %s", r.Status, r.Body)
	}
	stoppedAt := time.Now()
	r := e.org.Read.Do(t, "GET", "/api/v1/inbox/stopped", nil)
	data := oaList(r.JSON["data"])
	if r.Status != 200 || len(data) != 1 || data[0]["linkedin_url"] != "https://www.linkedin.com/in/pat" || data[0]["name"] != "Pat" ||
		!strings.HasPrefix(data[0]["stopped_by"].(string), "key:") {
		t.Fatalf("stopped: %d %s", r.Status, r.Body)
	}
	seq := oaList(data[0]["sequences"])
	left := time.Duration(seq[0]["next_step_in_seconds"].(float64)) * time.Second
	if len(seq) != 1 || seq[0]["current_step"] != float64(2) || seq[0]["prospect_id"] != pat.prospects[0] ||
		(left-next.Sub(stoppedAt)).Abs() > time.Minute {
		t.Fatalf("the paused sequence: %v, want step 2 and %s left", seq, next.Sub(stoppedAt))
	}
	if r := e.org.Read.Do(t, "GET", "/api/v1/inbox/stopped?q=nobody", nil); len(oaList(r.JSON["data"])) != 0 || r.JSON["pagination"].(map[string]any)["total"] != float64(0) {
		t.Fatalf("search: %s", r.Body)
	}

	other := testenv.NewOrg(t, e.srv)
	if r := other.Read.Do(t, "GET", "/api/v1/inbox/stopped", nil); len(oaList(r.JSON["data"])) != 0 {
		t.Fatalf("another organization sees: %s", r.Body)
	}
	if r := other.Write.Do(t, "POST", "/api/v1/inbox/resume", map[string]any{"linkedin_url": "pat"}); r.JSON["resumed"] != float64(0) ||
		oaList(r.JSON["data"])[0]["not_found"] != true {
		t.Fatalf("another organization resumed: %s", r.Body)
	}

	r = e.org.Write.Do(t, "POST", "/api/v1/inbox/resume", map[string]any{"linkedin_urls": []any{"https://linkedin.com/in/PAT/", "nobody-known", 7}})
	resumedAt := time.Now()
	items := oaList(r.JSON["data"])
	if r.Status != 200 || r.JSON["resumed"] != float64(1) || r.JSON["requested"] != float64(3) ||
		items[0]["resumed"] != true || items[0]["sequences_resumed"] != float64(1) || items[0]["replies_resumed"] != true ||
		items[1]["not_found"] != true || items[2]["error"] == nil {
		t.Fatalf("resume: %d %s", r.Status, r.Body)
	}
	var step int64
	var nextAt time.Time
	var paused bool
	if err := e.db.QueryRow(t.Context(), `SELECT current_step, next_step_at, paused_at IS NOT NULL FROM prospects WHERE id = $1`,
		pat.prospects[0]).Scan(&step, &nextAt, &paused); err != nil {
		t.Fatal(err)
	}
	if want := resumedAt.Add(left); step != 2 || paused || nextAt.Sub(want).Abs() > time.Minute {
		t.Fatalf("after the resume: step %d next %s paused %v; want step 2, next about %s", step, nextAt, paused, want)
	}
	if r := e.org.Read.Do(t, "GET", "/api/v1/inbox/stopped", nil); len(oaList(r.JSON["data"])) != 0 {
		t.Fatalf("still listed: %s", r.Body)
	}
}

// TestInboxUnblock: a blocked person is listed with the reason; unblocking (or removing the
// account entry) takes them off the do-not-contact list and lets replies reach them; another
// organization neither sees nor unblocks them.
func TestInboxUnblock(t *testing.T) {
	t.Parallel()
	e := repStart(t)
	c1 := e.repCampaign(t, e.org.ID)
	kim := e.seedPerson(t, "kim", "", c1)
	e.seedPerson(t, "lou", "", e.repCampaign(t, e.org.ID))
	for _, h := range []string{"kim", "lou"} {
		if r := e.org.Write.Do(t, "POST", "/api/v1/inbox/block", map[string]any{"linkedin_url": h, "reason": "asked us to stop (" + h + ")"}); r.Status != 200 {
			t.Fatalf("block: %d %s", r.Status, r.Body)
		}
	}
	r := e.org.Read.Do(t, "GET", "/api/v1/inbox/blocked?q=(KIM)", nil)
	data := oaList(r.JSON["data"])
	if r.Status != 200 || len(data) != 1 || data[0]["name"] != "Kim" || data[0]["reason"] != "asked us to stop (kim)" ||
		!strings.HasPrefix(data[0]["blocked_by"].(string), "key:") {
		t.Fatalf("blocked: %d %s", r.Status, r.Body)
	}
	other := testenv.NewOrg(t, e.srv)
	if r := other.Read.Do(t, "GET", "/api/v1/inbox/blocked", nil); len(oaList(r.JSON["data"])) != 0 {
		t.Fatalf("another organization sees: %s", r.Body)
	}
	if r := other.Write.Do(t, "POST", "/api/v1/inbox/unblock", map[string]any{"linkedin_url": "kim"}); r.JSON["unblocked"] != float64(0) {
		t.Fatalf("another organization unblocked: %s", r.Body)
	}
	if r := other.Write.Do(t, "DELETE", "/api/v1/blacklist?type=account&value=kim", nil); r.Status != http.StatusNotFound {
		t.Fatalf("another organization removed the entry: %d %s", r.Status, r.Body)
	}

	r = e.org.Write.Do(t, "POST", "/api/v1/inbox/unblock", map[string]any{"linkedin_urls": []any{"kim", "kim-nobody"}})
	items := oaList(r.JSON["data"])
	if r.Status != 200 || r.JSON["unblocked"] != float64(1) || items[0]["replies_resumed"] != true || items[1]["not_found"] != true {
		t.Fatalf("unblock: %d %s", r.Status, r.Body)
	}
	if n := e.count(t, `SELECT count(*) FROM chats WHERE id = $1 AND replies_stopped_at IS NULL`, kim.chat); n != 1 {
		t.Fatal("replies are still stopped in the unblocked person's conversation")
	}
	if n := e.count(t, `SELECT count(*) FROM prospects WHERE id = $1 AND status = 'opted_out'`, kim.prospects[0]); n != 1 {
		t.Fatal("the sequence the block ended was restarted")
	}
	// Removing the account entry is unblocking too.
	if r := e.org.Write.Do(t, "DELETE", "/api/v1/blacklist?type=account&value=https://www.linkedin.com/in/LOU", nil); r.Status != 200 ||
		r.JSON["removed"].(map[string]any)["type"] != "account" {
		t.Fatalf("remove: %d %s", r.Status, r.Body)
	}
	if r := e.org.Read.Do(t, "GET", "/api/v1/blacklist", nil); len(oaList(r.JSON["data"])) != 0 {
		t.Fatalf("entries left: %s", r.Body)
	}
}

// TestInboxUndoRefusals: credentials, scopes and the 400s that name the problem.
func TestInboxUndoRefusals(t *testing.T) {
	t.Parallel()
	e := repStart(t)
	anon := testenv.Client{Base: e.srv.URL}
	cases := []struct {
		name    string
		c       testenv.Client
		method  string
		path    string
		body    any
		status  int
		mention string
	}{
		{"no key", anon, "GET", "/api/v1/inbox/stopped", nil, 401, "invalid_api_key"},
		{"no key", anon, "POST", "/api/v1/inbox/unblock", map[string]any{"linkedin_url": "pat"}, 401, "invalid_api_key"},
		{"read key resumes", e.org.Read, "POST", "/api/v1/inbox/resume", map[string]any{"linkedin_url": "pat"}, 403, "read_write"},
		{"read key unblocks", e.org.Read, "POST", "/api/v1/inbox/unblock", map[string]any{"linkedin_url": "pat"}, 403, "read_write"},
		{"read key removes", e.org.Read, "DELETE", "/api/v1/blacklist?type=company&value=Acme", nil, 403, "read_write"},
		{"search too long", e.org.Read, "GET", "/api/v1/inbox/blocked?q=" + strings.Repeat("x", 201), nil, 400, "query parameter q"},
		{"limit 0", e.org.Read, "GET", "/api/v1/inbox/stopped?limit=0", nil, 400, "query parameter limit"},
		{"nobody named", e.org.Write, "POST", "/api/v1/inbox/resume", map[string]any{}, 400, "linkedin_urls"},
		{"a reason to resume", e.org.Write, "POST", "/api/v1/inbox/resume", map[string]any{"linkedin_url": "pat", "reason": "x"}, 400, "reason"},
		{"both forms", e.org.Write, "POST", "/api/v1/inbox/unblock", map[string]any{"linkedin_url": "pat", "linkedin_urls": []string{"kim"}}, 400, "not both"},
		{"no value", e.org.Write, "DELETE", "/api/v1/blacklist?type=company", nil, 400, "value and type"},
		{"unknown type", e.org.Write, "DELETE", "/api/v1/blacklist?type=planet&value=Mars", nil, 400, "account or company"},
		{"not a profile", e.org.Write, "DELETE", "/api/v1/blacklist?type=account&value=not%20a%20profile!", nil, 400, "profile"},
		{"not on the list", e.org.Write, "DELETE", "/api/v1/blacklist?type=company&value=Acme", nil, 404, "not_found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.c.Do(t, c.method, c.path, c.body)
			if r.Status != c.status || !strings.Contains(string(r.Body), c.mention) {
				t.Fatalf("%s %s: %d %s, want %d mentioning %q", c.method, c.path, r.Status, r.Body, c.status, c.mention)
			}
		})
	}
}
