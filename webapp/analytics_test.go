package webapp_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"outreachd/webapp"
)

func TestAnalyticsPage(t *testing.T) {
	t.Parallel()
	today := time.Date(2026, 11, 30, 15, 0, 0, 0, time.UTC) // the engine's clock
	e := newEnvDeps(t, webapp.Config{}, func(_ *env, d *webapp.Deps) { d.DomainNow = func() time.Time { return today } })
	ctx := context.Background()
	orgA, _ := e.org("ops@acme.test", "a long enough password")
	orgB, _ := e.org("eve@other.test", "a long enough password")
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := e.store.Pool().Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO campaigns (id, org_id, name, status, schedule) VALUES ('cmp_a', $1, 'Founders', 'active', '{}'),
		('cmp_quiet', $1, 'Quiet one', 'draft', '{}'), ('cmp_b', $2, 'Theirs', 'active', '{}')`, orgA, orgB)
	exec(`INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, status, source, current_step, linkedin_url)
		VALUES ('prs_s', $1, 'cmp_a', 'in:sam', 'sam', 'Sam Park', 'connection_sent', 'api', 1, 'https://www.linkedin.com/in/sam'),
		       ('prs_o', $1, 'cmp_a', 'in:oli', 'oli', 'Oli Lund', 'opted_out', 'api', 2, 'https://www.linkedin.com/in/oli')`, orgA)
	// Founders: 4 invitations (one 40 days ago), 2 accepted, 2 messages, 1 reply; Theirs: 9 invitations.
	for _, a := range []struct {
		org, camp, kind string
		daysAgo         int
	}{
		{orgA, "cmp_a", "invite_sent", 0}, {orgA, "cmp_a", "invite_sent", 0}, {orgA, "cmp_a", "invite_sent", 5},
		{orgA, "cmp_a", "invite_sent", 40}, {orgA, "cmp_a", "connection_accepted", 0}, {orgA, "cmp_a", "connection_accepted", 20},
		{orgA, "cmp_a", "message_sent", 1}, {orgA, "cmp_a", "message_sent", 1}, {orgA, "cmp_a", "reply", 0},
		{orgB, "cmp_b", "invite_sent", 0},
	} {
		exec(`INSERT INTO activities (org_id, campaign_id, kind, at) VALUES ($1, $2, $3, $4)`, a.org, a.camp, a.kind, today.AddDate(0, 0, -a.daysAgo))
	}
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")

	cases := []struct {
		query       string
		days        int
		invites     string // the period's invitations, as the page sums them
		lastLabel   string
		mentionsOne string
	}{
		{"", 30, "Invitations sent <b>3</b>", ">Nov 30</text>", ""},
		{"?days=7", 7, "Invitations sent <b>3</b>", ">Nov 30</text>", ""},
		{"?days=92", 92, "Invitations sent <b>4</b>", ">Nov 30</text>", ""},
		{"?days=7&campaign=cmp_quiet", 7, "Invitations sent <b>0</b>", ">Nov 30</text>", "Day by day: Quiet one"},
		{"?days=30&campaign=cmp_a", 30, "Invitations sent <b>3</b>", ">Nov 30</text>", "Day by day: Founders"},
	}
	for _, tc := range cases {
		p := c.get("/app/analytics" + tc.query)
		if p.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", tc.query, p.Status, alert(p.Body))
		}
		if n := strings.Count(p.Body, "<g><title>"); n != tc.days {
			t.Errorf("%s: the chart has %d days, want %d", tc.query, n, tc.days)
		}
		if !strings.Contains(p.Body, tc.invites) || !strings.Contains(p.Body, tc.lastLabel) || !strings.Contains(p.Body, tc.mentionsOne) {
			t.Errorf("%s: want %q, %q and %q in the page", tc.query, tc.invites, tc.lastLabel, tc.mentionsOne)
		}
		if strings.Contains(p.Body, "Theirs") {
			t.Errorf("%s: another organization's campaign shows", tc.query)
		}
	}
	// Rates with the counts behind them; none without a denominator.
	p := c.get("/app/analytics")
	for _, want := range []string{"<b>50%</b><div class=\"muted small\">2 of 4</div>", "<b>50%</b><div class=\"muted small\">1 of 2</div>",
		"<b>—</b><div class=\"muted small\">0 of 0</div>", "Invitations sent <b>4</b>",
		"<span>invitation sent <b>1</b></span>", "<span>opted out <b>1</b></span>"} { // statuses in words
		if !strings.Contains(p.Body, want) {
			t.Errorf("the analytics lack %q", want)
		}
	}
	if strings.Contains(p.Body, ">0%<") {
		t.Error("a rate without a denominator shows 0%")
	}
	for q, status := range map[string]int{"?days=10": 400, "?days=abc": 400, "?campaign=cmp_b": 404, "?campaign=" + url.QueryEscape("cmp_nope"): 404} {
		if p := c.get("/app/analytics" + q); p.Status != status {
			t.Errorf("%s: %d, want %d", q, p.Status, status)
		}
	}
	if p := c.get("/app/analytics?days=10"); !strings.Contains(alert(p.Body), "the period must be 7, 30 or 92 days") {
		t.Errorf("an unknown period is not named: %s", alert(p.Body))
	}
}

// TestEngineClockOnThePages: when the demo's clock runs ahead of the wall clock, every page says
// where it stands, and the Needs Human desk counts waits on it, as GET /needs-human does; the
// approve confirmation names the person the reply goes to.
func TestEngineClockOnThePages(t *testing.T) {
	t.Parallel()
	engineNow := time.Now().Add(400 * time.Hour).UTC().Truncate(time.Minute)
	d := &desk{decided: map[string]bool{}}
	e := newEnvDeps(t, webapp.Config{}, func(_ *env, deps *webapp.Deps) {
		deps.Drafts, deps.ClockSpeed = d, 3600
		deps.DomainNow = func() time.Time { return engineNow }
	})
	d.st = e.store
	orgID, _ := e.org("ops@acme.test", "a long enough password")
	item := addItem(t, e.store, orgID, "Could you email me?", "Sure, sending it now.")
	if _, err := e.store.Pool().Exec(context.Background(), `UPDATE needs_human SET waiting_since = $2 WHERE id = $1`,
		item, engineNow.Add(-63*time.Hour-20*time.Minute)); err != nil {
		t.Fatal(err)
	}
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	banner := "Demo clock: " + engineNow.Format("Mon 2 Jan 2006 15:04 UTC") + ", running 3600× real time."
	for _, path := range []string{"/app/needs-human", "/app/inbox", "/app/do-not-contact", "/app/analytics", "/app/linkedin-accounts", "/app/destinations"} {
		if p := c.get(path); !strings.Contains(p.Body, banner) {
			t.Errorf("%s does not say where the demo's clock stands", path)
		}
	}
	p := c.get("/app/needs-human")
	if !strings.Contains(p.Body, "waiting <time") || !strings.Contains(p.Body, ">2 days (63 h)</time>") || strings.Contains(p.Body, "just now") {
		t.Fatal("the wait is not counted on the engine's clock (63 hours, as GET /needs-human reports it)")
	}
	p = c.post("/app/needs-human/"+item+"/approve", url.Values{})
	if !strings.Contains(p.Body, "Send this reply to Ada Lovelace on LinkedIn?") || !strings.Contains(p.Body, "It goes out at once to Ada Lovelace") {
		t.Fatal("the confirmation does not name the person the reply goes to")
	}
	p = c.post("/app/needs-human/"+item+"/approve", url.Values{"edited": {"yes"}, "text": {"My own words"}})
	if !strings.Contains(p.Body, "to Ada Lovelace") || !strings.Contains(p.Body, "My own words") {
		t.Fatal("the confirmation of an edited reply does not name the person or quote the text")
	}

	// At real time there is no banner.
	plain := newEnv(t, webapp.Config{})
	plain.org("ops@acme.test", "a long enough password")
	pc := plain.client()
	pc.mustLogin("ops@acme.test", "a long enough password")
	if p := pc.get("/app/needs-human"); strings.Contains(p.Body, "Demo clock") {
		t.Fatal("a banner at real time")
	}
}
