package main_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/internal/testenv"
)

// demoSpeed runs the demo five times faster than `make run` (3600): its two simulated minutes'
// worth of promises (120 simulated hours) must then hold within 24 seconds.
const demoSpeed = 18000

// simulated converts simulated time at demoSpeed into wall time.
func simulated(d time.Duration) time.Duration { return d * 3600 / demoSpeed / 3600 }

// TestDemoMovesOnEveryStart is what `make run` promises, run on the real binary: on the first
// start and on a second one on the same database, within two minutes at an hour a second,
// invitations are accepted, a positive reply is answered on its own and a reply only a person
// may answer waits in Needs Human; a positive conversation stalls later. The second start
// resumes the same campaign on the same simulated world (replayed from PostgreSQL), and a start
// whose world was lost pauses the dead campaign and starts a fresh one, saying so.
func TestDemoMovesOnEveryStart(t *testing.T) {
	t.Parallel()
	db := testenv.DatabaseURL(t)
	srv := testenv.StartServerArgs(t, db, []string{"--demo"}, "SIMULATOR_SPEED=18000", "LOG_LEVEL=info")
	first := demoStart(t, srv, 0)
	if !strings.Contains(first.out, "demo: started a fresh demo campaign "+first.campaign) {
		t.Fatalf("the first start does not say it started a fresh campaign:\n%s", first.out)
	}
	if !strings.Contains(first.out, "export DATABASE_URL='"+db+"'") {
		t.Fatalf("the start does not print the admin CLI's DATABASE_URL line:\n%s", first.out)
	}
	first.waitForStory(t, true)

	srv.Stop(30 * time.Second)
	srv.Start()
	second := demoStart(t, srv, 1)
	if second.campaign != first.campaign || !strings.Contains(second.out, "demo: resumed campaign "+first.campaign) {
		t.Fatalf("the second start did not resume campaign %s:\n%s", first.campaign, second.out)
	}
	if !regexp.MustCompile(`simulated LinkedIn resumed.*calls_replayed=[1-9]`).MatchString(srv.Logs()) {
		t.Fatal("the second start did not replay the simulated world")
	}
	second.waitForStory(t, false)

	// A world lost (an older simulator kept none): the campaign it cannot move is paused and a
	// fresh one started.
	srv.Stop(30 * time.Second)
	second.exec(t, `DELETE FROM sim_worlds`)
	srv.Start()
	third := demoStart(t, srv, 2)
	if third.campaign == first.campaign || !strings.Contains(third.out, "did not keep its world; it is paused") {
		t.Fatalf("a start without the world did not start afresh:\n%s", third.out)
	}
	var status string
	third.query(t, `SELECT status FROM campaigns WHERE id = $1`, []any{first.campaign}, &status)
	if status != "paused" {
		t.Fatalf("the unmovable campaign is %s, want paused", status)
	}

	// A seat the network drops is reconnected by the demo after half a simulated day, so a long
	// `make run` keeps moving.
	var seat string
	third.query(t, `SELECT id FROM linkedin_accounts WHERE name = 'Demo Seller'`, nil, &seat)
	testenv.Admin(t, db, "simulate", "disconnect", "--account", seat)
	seen := false
	testenv.Eventually(t, simulated(48*time.Hour), func() (bool, string) {
		var st string
		third.query(t, `SELECT status FROM linkedin_accounts WHERE id = $1`, []any{seat}, &st)
		seen = seen || st == "disconnected"
		return seen && st == "connected", fmt.Sprintf("the demo seat is %s (disconnected seen: %v) two simulated days after a disconnect", st, seen)
	})

	// Three starts, three waves of twelve: no two people share a name, so the needs-human
	// queue and the inbox tell them apart.
	var people, names int
	third.query(t, `SELECT count(*), count(DISTINCT name) FROM prospects`, nil, &people, &names)
	if people != 36 || names != people {
		t.Fatalf("%d people with %d distinct names, want 36 distinct", people, names)
	}

	// --fresh starts the demo over: the database emptied, a new organization, one campaign with
	// the first wave's people, and the simulated world and its clock begun again.
	srv.Stop(30 * time.Second)
	var oldClock time.Time
	third.query(t, `SELECT max(clock_at) FROM sim_worlds`, nil, &oldClock)
	srv.Args = []string{"--demo", "--fresh"}
	srv.Start()
	fresh := demoStart(t, srv, 3)
	if !strings.Contains(fresh.out, "demo: started a fresh demo campaign "+fresh.campaign+` ("Demo campaign") with 12 leads (first run)`) {
		t.Fatalf("the fresh start did not start over:\n%s", fresh.out)
	}
	var campaigns, ada int
	fresh.query(t, `SELECT (SELECT count(*) FROM campaigns), (SELECT count(*) FROM prospects WHERE name = 'Ada Quinn')`, nil, &campaigns, &ada)
	if campaigns != 1 || ada != 1 {
		t.Fatalf("after --fresh: %d campaigns, %d Ada Quinn; want 1 and 1", campaigns, ada)
	}
	testenv.Eventually(t, 30*time.Second, func() (bool, string) {
		var first *time.Time
		fresh.query(t, `SELECT min(at) FROM activities`, nil, &first)
		return first != nil && first.Before(oldClock), fmt.Sprintf("the fresh demo's first activity at %v, the old clock stood at %s", first, oldClock)
	})
	srv.Stop(30 * time.Second)
}

// demoRun is one start of `serve --demo`: what it printed, its campaign, its wave of leads.
type demoRun struct {
	srv      *testenv.Server
	out      string
	campaign string
	key      string
	wave     []string // prospect ids pushed by this start
	started  time.Time
}

var (
	demoKeyRe      = regexp.MustCompile(`API key \(read_write, shown once\): (\S+)`)
	demoCampaignRe = regexp.MustCompile(`demo: (?:started a fresh demo campaign|resumed campaign) (cmp_\S+)`)
)

// demoStart reads the nth start's output (the log accumulates over starts).
func demoStart(t *testing.T, srv *testenv.Server, nth int) *demoRun {
	t.Helper()
	logs := srv.Logs()
	parts := strings.SplitAfter(logs, "outreachd demo organization:")
	if len(parts) < nth+2 {
		t.Fatalf("start %d printed no demo banner:\n%s", nth+1, logs)
	}
	out := "outreachd demo organization:" + parts[nth+1]
	r := &demoRun{srv: srv, out: out, started: time.Now()}
	if m := demoKeyRe.FindStringSubmatch(out); m != nil {
		r.key = m[1]
	}
	if m := demoCampaignRe.FindStringSubmatch(out); m != nil {
		r.campaign = m[1]
	}
	if r.key == "" || r.campaign == "" {
		t.Fatalf("no key or campaign in:\n%s", out)
	}
	var created time.Time
	r.query(t, `SELECT max(created_at) FROM prospects WHERE campaign_id = $1`, []any{r.campaign}, &created)
	rows := r.rows(t, `SELECT id FROM prospects WHERE campaign_id = $1 AND created_at = $2`, r.campaign, created)
	for _, row := range rows {
		r.wave = append(r.wave, row[0].(string))
	}
	if len(r.wave) != 12 {
		t.Fatalf("start %d pushed %d leads, want 12", nth+1, len(r.wave))
	}
	return r
}

// waitForStory waits for this start's wave to show the promised moments within 120 simulated
// hours (and, with stall, a stalled conversation within 240).
func (r *demoRun) waitForStory(t *testing.T, stall bool) {
	t.Helper()
	c := testenv.Client{Base: r.srv.URL, Key: r.key}
	var accepted, answered, human int
	testenv.Eventually(t, time.Until(r.started.Add(simulated(120*time.Hour))), func() (bool, string) {
		r.query(t, `SELECT count(*) FROM prospects WHERE id = ANY($1) AND connected_at IS NOT NULL`, []any{r.wave}, &accepted)
		// A draft sent with no one approving it is an automatic answer.
		r.query(t, `SELECT count(*) FROM reply_drafts d JOIN prospects p ON p.id = d.prospect_id
			WHERE d.prospect_id = ANY($1) AND d.status = 'sent' AND p.sentiment = 'positive'`, []any{r.wave}, &answered)
		// A reply only a person may answer, as GET /needs-human shows it.
		human = 0
		open := map[string]bool{}
		for _, row := range r.rows(t, `SELECT id FROM needs_human WHERE prospect_id = ANY($1)
			AND reason IN ('wants_email', 'ai_callout') AND resolved_at IS NULL`, r.wave) {
			open[row[0].(string)] = true
		}
		if len(open) > 0 {
			nh := c.Do(t, "GET", "/api/v1/needs-human?campaign_id="+r.campaign, nil)
			items, _ := nh.JSON["data"].([]any)
			for _, it := range items {
				if m, _ := it.(map[string]any); m != nil && open[m["id"].(string)] {
					human++
				}
			}
		}
		if accepted > 0 && answered > 0 && human > 0 {
			return true, ""
		}
		return false, fmt.Sprintf("after 120 simulated hours: %d accepted, %d answered automatically, %d needs-human items; wave %v, campaign %v",
			accepted, answered, human, r.rows(t, `SELECT status, enrichment_status, next_step_at, count(*) FROM prospects
			WHERE id = ANY($1) GROUP BY 1, 2, 3`, r.wave), r.rows(t, `SELECT status, engine_next_at, engine_lease_until, now() FROM campaigns WHERE id = $1`, r.campaign))
	})
	if !stall {
		return
	}
	testenv.Eventually(t, time.Until(r.started.Add(simulated(240*time.Hour))), func() (bool, string) {
		var stalls int
		r.query(t, `SELECT count(*) FROM stalls WHERE prospect_id = ANY($1)`, []any{r.wave}, &stalls)
		return stalls > 0, "no conversation stalled within 240 simulated hours"
	})
}

func (r *demoRun) conn(t *testing.T) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), r.srv.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (r *demoRun) query(t *testing.T, sql string, args []any, dest ...any) {
	t.Helper()
	c := r.conn(t)
	defer c.Close(context.Background())
	if err := c.QueryRow(context.Background(), sql, args...).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func (r *demoRun) rows(t *testing.T, sql string, args ...any) [][]any {
	t.Helper()
	c := r.conn(t)
	defer c.Close(context.Background())
	rows, err := c.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		v, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func (r *demoRun) exec(t *testing.T, sql string) {
	t.Helper()
	c := r.conn(t)
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), sql); err != nil {
		t.Fatal(err)
	}
}
