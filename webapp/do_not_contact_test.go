package webapp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"outreachd/storage"
	"outreachd/webapp"
)

func TestDoNotContactPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{})
	ctx := context.Background()
	orgA, _ := e.org("ops@acme.test", "a long enough password")
	e.org("eve@other.test", "a long enough password")
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")

	// Add: the API's rules and words.
	p := c.post("/app/do-not-contact/add", url.Values{"value": {"https://www.linkedin.com/in/John-Smith/"}, "type": {"account"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("add: %d %s", p.Status, alert(p.Body))
	}
	if p := c.get(p.Header.Get("Location")); !strings.Contains(p.Body, "Added to the do-not-contact list.") || !strings.Contains(p.Body, "by ops@acme.test") {
		t.Fatal("no word of the entry added, or not who added it")
	}
	if p := c.post("/app/do-not-contact/add", url.Values{"value": {"john-smith"}, "type": {"account"}}); p.Header.Get("Location") != "/app/do-not-contact?done=present" {
		t.Fatalf("the same person again: %s", p.Header.Get("Location"))
	}
	for _, bad := range []struct{ value, typ, words string }{
		{"", "company", "company is empty"},
		{"Mars", "planet", `unknown blacklist type &#34;planet&#34;; use account or company`},
		{"https://example.com/acme", "company", "company link is not a linkedin.com/company/ page"},
	} {
		p := c.post("/app/do-not-contact/add", url.Values{"value": {bad.value}, "type": {bad.typ}})
		if p.Status != http.StatusBadRequest || !strings.Contains(alert(p.Body), bad.words) {
			t.Errorf("add %q as %q: %d %s, want %q", bad.value, bad.typ, p.Status, alert(p.Body), bad.words)
		}
	}
	c.post("/app/do-not-contact/add", url.Values{"value": {"Globex <b>Corp</b>"}, "type": {"company"}})

	// Listed, escaped, searchable, paged.
	p = c.get("/app/do-not-contact")
	if !strings.Contains(p.Body, "Globex &lt;b&gt;Corp&lt;/b&gt;") || strings.Contains(p.Body, "<b>Corp</b>") {
		t.Fatal("a value is not shown as text")
	}
	if p := c.get("/app/do-not-contact?q=JOHN"); !strings.Contains(p.Body, "John-Smith") || strings.Contains(p.Body, "Globex") {
		t.Fatal("the search does not keep just what matches")
	}
	if p := c.get("/app/do-not-contact?q=nobody"); !strings.Contains(p.Body, "No entry matches “nobody”.") {
		t.Fatal("no word when nothing matches")
	}
	var many []storage.BlacklistEntry
	for i := range 55 {
		many = append(many, storage.BlacklistEntry{Type: "company", Key: fmt.Sprintf("name:filler%02d", i), Value: fmt.Sprintf("Filler %02d", i)})
	}
	if _, err := e.store.AddBlacklist(ctx, orgA, many); err != nil {
		t.Fatal(err)
	}
	p = c.get("/app/do-not-contact")
	if n := strings.Count(p.Body, ">Remove</button>"); n != 50 || !strings.Contains(p.Body, `href="/app/do-not-contact?entries=2"`) {
		t.Fatalf("first page: %d entries, next link %v", n, strings.Contains(p.Body, "entries=2"))
	}
	if p := c.get("/app/do-not-contact?entries=2"); strings.Count(p.Body, ">Remove</button>") != 7 {
		t.Fatalf("second page: %d entries", strings.Count(p.Body, ">Remove</button>"))
	}

	// Remove: matched the way it was added; another organization removes nothing of it.
	b := e.client()
	b.mustLogin("eve@other.test", "a long enough password")
	if p := b.post("/app/do-not-contact/remove", url.Values{"type": {"account"}, "value": {"john-smith"}}); p.Status != http.StatusNotFound {
		t.Fatalf("another organization's remove: %d", p.Status)
	}
	if p := b.get("/app/do-not-contact"); strings.Contains(p.Body, "John-Smith") || strings.Contains(p.Body, "Filler") {
		t.Fatal("another organization sees the list")
	}
	if p := c.post("/app/do-not-contact/remove", url.Values{"type": {"account"}, "value": {"JOHN-SMITH"}, "q": {"john"}}); p.Status != http.StatusSeeOther ||
		p.Header.Get("Location") != "/app/do-not-contact?done=removed&q=john" {
		t.Fatalf("remove: %d %s", p.Status, p.Header.Get("Location"))
	}
	if _, n, _ := e.store.ListBlacklist(ctx, storage.BlacklistQuery{OrgID: orgA, Text: "john", Limit: 5}); n != 0 {
		t.Fatal("the entry is still there")
	}
}

// TestResumeAndUnblockOnThePage: Resume gives a stopped person's sequence back its step and the
// time that was left, counted from the resume (on the engine's clock); Unblock takes a blocked
// person off the list and says what stays ended. Resume says what it did: sequences continue,
// only replies (a person whose sequence ended when they replied), or nothing while they are on
// the list.
func TestResumeAndUnblockOnThePage(t *testing.T) {
	t.Parallel()
	// The engine's clock runs years ahead of the wall clock, as in the demo, and the test moves it.
	domain := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	var shift atomic.Int64
	e := newEnvDeps(t, webapp.Config{}, func(_ *env, d *webapp.Deps) {
		d.DomainNow = func() time.Time { return domain.Add(time.Duration(shift.Load())) }
	})
	ctx := context.Background()
	orgA, userA := e.org("ops@acme.test", "a long enough password")
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := e.store.Pool().Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO campaigns (id, org_id, name, status, schedule) VALUES ('cmp_r', $1, 'Founders', 'active', '{}')`, orgA)
	exec(`INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, status, source, current_step, next_step_at, linkedin_url)
		VALUES ('prs_r', $1, 'cmp_r', 'in:rae', 'rae', 'Rae Park', 'messaged', 'api', 2, $2, 'https://www.linkedin.com/in/rae'),
		       ('prs_b', $1, 'cmp_r', 'in:bo-lund', 'bo-lund', 'Bo Lund', 'messaged', 'api', 1, $2, 'https://www.linkedin.com/in/bo-lund')`,
		orgA, domain.Add(30*time.Hour))
	exec(`INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, status, source, current_step, sequence_ended_at, linkedin_url)
		VALUES ('prs_q', $1, 'cmp_r', 'in:quinn', 'quinn', 'Quinn Replied', 'replied', 'api', 2, $2, 'https://www.linkedin.com/in/quinn'),
		       ('prs_l', $1, 'cmp_r', 'in:lee', 'lee', 'Lee Listed', 'replied', 'api', 2, $2, 'https://www.linkedin.com/in/lee')`,
		orgA, domain)
	ref := func(h string) storage.PersonRef {
		return storage.PersonRef{Key: "in:" + h, Value: "https://www.linkedin.com/in/" + h}
	}
	if _, err := e.store.StopPeople(ctx, orgA, []storage.PersonRef{ref("rae"), ref("quinn"), ref("lee")}, "user:"+userA, domain); err != nil {
		t.Fatal(err)
	}
	reason := "asked us to stop"
	if _, err := e.store.BlockPeople(ctx, orgA, []storage.PersonRef{ref("bo-lund")}, &reason, "user:"+userA, domain); err != nil {
		t.Fatal(err)
	}

	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	p := c.get("/app/do-not-contact")
	for _, want := range []string{"Rae Park", "Founders: at step 2, next step 1 day 6 h after the resume", ">Resume</button>",
		"Bo Lund", "asked us to stop", ">Unblock</button>", "What the block ended stays ended", "by ops@acme.test"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(p.Body, `name="value" value="https://www.linkedin.com/in/bo-lund"`) {
		t.Error("a blocked person is listed among the entries too")
	}

	shift.Store(int64(72 * time.Hour)) // three days later on the engine's clock
	resumed := func(person, done string) {
		t.Helper()
		p := c.post("/app/do-not-contact/resume", url.Values{"person": {person}})
		if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/app/do-not-contact?done="+done {
			t.Fatalf("resume %s: %d to %q, want done=%s %s", person, p.Status, p.Header.Get("Location"), done, alert(p.Body))
		}
	}
	resumed("https://www.linkedin.com/in/rae", "resumed")
	resumed("https://www.linkedin.com/in/quinn", "resumed-replies")
	// Lee, stopped, is then put on the list by hand: Resume lifts the stop and nothing more.
	if p := c.post("/app/do-not-contact/add", url.Values{"value": {"https://www.linkedin.com/in/lee"}, "type": {"account"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("add Lee: %d %s", p.Status, alert(p.Body))
	}
	resumed("https://www.linkedin.com/in/lee", "resumed-listed")
	for done, want := range map[string]string{
		"resumed-replies": "Resumed: replies to them may be drafted and sent again. No campaign sequence of theirs was paused",
		"resumed-listed":  "Resumed, but they are on the do-not-contact list: nothing is sent to them until they are unblocked.",
	} {
		if p := c.get("/app/do-not-contact?done=" + done); !strings.Contains(p.Body, want) {
			t.Errorf("after done=%s the page lacks %q", done, want)
		}
	}
	var step int
	var next time.Time
	if err := e.store.Pool().QueryRow(ctx, `SELECT current_step, next_step_at FROM prospects WHERE id = 'prs_r'`).Scan(&step, &next); err != nil {
		t.Fatal(err)
	}
	if want := domain.Add(72*time.Hour + 30*time.Hour); step != 2 || !next.Equal(want) {
		t.Fatalf("after the resume: step %d next %s, want 2 and %s", step, next, want)
	}
	if p := c.post("/app/do-not-contact/resume", url.Values{"person": {"rae"}}); p.Status != http.StatusNotFound {
		t.Fatalf("resumed twice: %d", p.Status)
	}
	if p := c.post("/app/do-not-contact/unblock", url.Values{"person": {"https://www.linkedin.com/in/bo-lund"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("unblock: %d", p.Status)
	}
	p = c.get("/app/do-not-contact?done=unblocked")
	if !strings.Contains(p.Body, "Unblocked: they may be contacted again from now on. What the block ended stays ended.") ||
		!strings.Contains(p.Body, "Nobody is blocked.") || !strings.Contains(p.Body, "Nobody is stopped.") {
		t.Fatal("the page does not show the unblock and the resume")
	}
	if p := c.post("/app/do-not-contact/unblock", url.Values{"person": {"not a profile!"}}); p.Status != http.StatusBadRequest {
		t.Fatalf("an unreadable person: %d", p.Status)
	}
}
