package webapp_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"outreachd/internal/testenv"
)

// TestBrowserInbox drives the Inbox, Do not contact and Analytics pages in headless Chromium
// against the built binary and its LinkedIn simulator: read a conversation and reply (the reply
// shows in the thread and LinkedIn has it), stop a person from their conversation and resume
// them from Do not contact (their step and next-step time are what they were), block and
// unblock, add, search and remove entries, and read the analytics over 7, 30 and 92 days and
// for one campaign. Screenshots go under the test's temp dir and $APP_SHOTS_DIR.
func TestBrowserInbox(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	s := newInboxScenario(t)
	s.step("conversation read and answered", s.reply)
	s.step("stopped and resumed", s.stopAndResume)
	s.step("blocked and unblocked", s.blockAndUnblock)
	s.step("entries added, searched, removed", s.entries)
	s.step("analytics read", s.analytics)
}

type inboxScenario struct {
	*scenario
	people map[string]string // handle -> prospect id
}

// newInboxScenario: a seat, an active campaign (invite, a first message at once, a second
// after three days) and three people who accepted and got the first message; Ada also asked
// for an email.
func newInboxScenario(t *testing.T) *inboxScenario {
	began := time.Now()
	srv, org := startApp(t)
	s := &inboxScenario{scenario: &scenario{t: t, srv: srv, org: org}, people: map[string]string{}}
	testenv.Admin(t, srv.DBURL, "account", "connect", "--org", s.org.ID, "--name", "Sam Seller")
	r := s.org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "Founders in Dublin",
		"schedule": map[string]any{"timezone": "UTC", "workingDays": []int{1, 2, 3, 4, 5, 6, 7}, "startTime": "00:00", "endTime": "23:59"},
		"sequence": []any{
			map[string]any{"type": "connect", "text": "Hi {first_name}, glad to connect."},
			map[string]any{"type": "message", "delay_days": 0, "text": "Thanks for connecting, {first_name}!"},
			map[string]any{"type": "message", "delay_days": 3, "text": "Following up, {first_name}."},
		}})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	s.campaignID = r.JSON["item"].(map[string]any)["id"].(string)
	testenv.Admin(t, srv.DBURL, "campaign", "set-status", "--campaign", s.campaignID, "--status", "active")
	var leads []map[string]any
	for _, h := range []string{"ada", "ben", "cid"} {
		leads = append(leads, map[string]any{"linkedin_url": "https://www.linkedin.com/in/" + h + "-browser",
			"name": strings.ToUpper(h[:1]) + h[1:] + " Browser", "company": "Acme", "title": "CTO"})
	}
	r = s.org.Write.Do(t, "POST", "/api/v1/campaigns/"+s.campaignID+"/leads", map[string]any{"leads": leads})
	if r.Status != 202 {
		t.Fatalf("push: %d %s", r.Status, r.Body)
	}
	for i, a := range r.JSON["accepted"].([]any) {
		s.people[[]string{"ada", "ben", "cid"}[i]] = a.(map[string]any)["lead_id"].(string)
	}
	for h, id := range s.people {
		testenv.EventuallyTrue(t, 30*time.Second, h+"'s invitation", func() bool { return s.status(id) == "connection_sent" })
		testenv.Admin(t, srv.DBURL, "simulate", "accept", "--prospect", id)
	}
	for h, id := range s.people {
		testenv.EventuallyTrue(t, 30*time.Second, h+"'s first message", func() bool { return s.status(id) == "messaged" })
	}
	testenv.Admin(t, srv.DBURL, "simulate", "reply", "--prospect", s.people["ada"], "--text", "Could you send me an email with <b>the details</b>?")
	testenv.EventuallyTrue(t, 30*time.Second, "Ada's reply in Needs Human", func() bool {
		return len(s.org.Read.Do(t, "GET", "/api/v1/needs-human", nil).JSON["data"].([]any)) == 1
	})
	t.Logf("set-up took %.1fs", time.Since(began).Seconds())
	s.b = newBrowser(t, srv.URL)
	s.start = time.Now()
	s.b.signIn("ops@acme.test")
	return s
}

func (s *inboxScenario) status(prospectID string) string {
	r := s.org.Read.Do(s.t, "GET", "/api/v1/prospects/"+prospectID, nil)
	st, _ := r.JSON["data"].(map[string]any)["status"].(string)
	return st
}

// position reads a prospect's place in its sequence from the database: its step, its next step,
// and while it is stopped the time that was left until that step.
func (s *inboxScenario) position(prospectID string) (step int, next *time.Time, left *time.Duration) {
	s.t.Helper()
	conn, err := pgx.Connect(context.Background(), s.srv.DBURL)
	if err != nil {
		s.t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var leftMS *int64
	if err := conn.QueryRow(context.Background(), `SELECT current_step, next_step_at,
			(extract(epoch FROM paused_next_step_at - paused_at) * 1000)::bigint FROM prospects WHERE id = $1`,
		prospectID).Scan(&step, &next, &leftMS); err != nil {
		s.t.Fatal(err)
	}
	if leftMS != nil {
		d := time.Duration(*leftMS) * time.Millisecond
		left = &d
	}
	return step, next, left
}

// reply: the conversation reads oldest first with the person beside it; a reply appears in the
// thread and is what LinkedIn (the simulator, read live by GET /inbox) has last.
func (s *inboxScenario) reply() {
	b := s.b
	b.click("//nav//a[normalize-space(.)='Inbox']")
	b.waitText("Ada Browser")
	b.shot("inbox")
	b.click("//a[contains(., 'Ada Browser')]")
	text := b.waitText("Could you send me an email with <b>the details</b>?") // as text, never as HTML
	if first, reply := strings.Index(text, "Thanks for connecting, Ada!"), strings.Index(text, "Could you send me"); first < 0 || reply < first {
		s.t.Fatalf("the thread is not oldest first:\n%s", text)
	}
	if !strings.Contains(text, "CTO") || !strings.Contains(text, "Acme") || !strings.Contains(text, "LinkedIn profile") {
		s.t.Fatalf("the person block is missing:\n%s", text)
	}
	answer := "Sure Ada, the details are on their way to your inbox."
	b.run("write the reply", chromedp.SendKeys(field("Reply"), answer)) // an empty textarea has nothing to clear
	b.shot("conversation")
	b.click(button("Send"))
	b.waitText("Sent on LinkedIn.")
	if text := b.text(); strings.Index(text, answer) < strings.Index(text, "Could you send me") {
		s.t.Fatalf("the reply is not in the thread after their message:\n%s", text)
	}
	r := s.org.Read.Do(s.t, "GET", "/api/v1/inbox", nil)
	for _, c := range r.JSON["data"].([]any) {
		c := c.(map[string]any)
		if c["attendee_name"] == "Ada Browser" {
			if last := c["last_message"].(map[string]any); last["text"] != answer || last["from_me"] != true {
				s.t.Fatalf("LinkedIn's last message with Ada is %v", last)
			}
			return
		}
	}
	s.t.Fatalf("Ada is not in the live inbox: %s", r.Body)
}

// stopAndResume: Stop in Ben's conversation pauses his sequence; Resume on Do not contact puts
// it back at the same step, its next step after the time that was left.
func (s *inboxScenario) stopAndResume() {
	b, ben := s.b, s.people["ben"]
	step, next, _ := s.position(ben)
	if next == nil {
		s.t.Fatal("Ben has no next step before the stop")
	}
	b.open("/app/inbox")
	b.click("//a[contains(., 'Ben Browser')]")
	b.waitText("Thanks for connecting, Ben!")
	b.click(button("Stop"))
	b.waitText("Stopped: nothing more is sent")
	st, n, left := s.position(ben)
	if left == nil || n != nil || st != step || *left <= 0 || *left > next.Sub(s.start) {
		s.t.Fatalf("after Stop: step %d next %v time left %v; want step %d kept with the time left until %s", st, n, left, step, next)
	}
	b.click("//nav//a[normalize-space(.)='Do not contact']")
	b.waitText("Ben Browser")
	b.waitText("Founders in Dublin: at step 2, next step ") // about three days "after the resume"
	b.shot("do-not-contact")
	before := time.Now()
	b.click(buttonIn("Ben Browser", "Resume"))
	b.waitText("Resumed: their campaigns continue")
	after := time.Now()
	st, n, _ = s.position(ben)
	// The simulator's clock runs at real time here, so the resume happened between before and after.
	const skew = 250 * time.Millisecond
	if st != step || n == nil || n.Before(before.Add(*left-skew)) || n.After(after.Add(*left+skew)) {
		s.t.Fatalf("after Resume: step %d (was %d), next %v; want the %s that were left, counted from the resume (%s to %s)",
			st, step, n, *left, before.Add(*left), after.Add(*left))
	}
}

// blockAndUnblock: Block asks for a reason and says it is permanent until undone; Unblock on Do
// not contact takes the entry off the list.
func (s *inboxScenario) blockAndUnblock() {
	b := s.b
	b.open("/app/inbox")
	b.click("//a[contains(., 'Cid Browser')]")
	b.waitText("Thanks for connecting, Cid!")
	b.click(button("Block"))
	b.waitText("permanent until undone")
	b.fill("Reason (optional)", "asked us never to write again")
	b.shot("block")
	b.click(button("Block"))
	b.waitText("Blocked: they are on the do-not-contact list")
	if r := s.org.Read.Do(s.t, "GET", "/api/v1/inbox/blocked", nil); !strings.Contains(string(r.Body), "asked us never to write again") {
		s.t.Fatalf("the block is not listed: %s", r.Body)
	}
	if st := s.status(s.people["cid"]); st != "opted_out" {
		s.t.Fatalf("Cid is %s after the block, want opted_out", st)
	}
	b.click("//nav//a[normalize-space(.)='Do not contact']")
	b.waitText("asked us never to write again")
	b.waitText("What the block ended stays ended")
	b.click(buttonIn("Cid Browser", "Unblock"))
	b.waitText("Unblocked: they may be contacted again from now on.")
	if r := s.org.Read.Do(s.t, "GET", "/api/v1/blacklist", nil); len(r.JSON["data"].([]any)) != 0 {
		s.t.Fatalf("the entry is still listed: %s", r.Body)
	}
}

// entries: Add (account and company), search, Remove.
func (s *inboxScenario) entries() {
	b := s.b
	b.open("/app/do-not-contact")
	for _, e := range []struct{ value, typ string }{{"Globex Corporation", "company"}, {"https://www.linkedin.com/in/john-smith", "account"}} {
		b.fill("Value", e.value)
		b.run("choose "+e.typ, chromedp.SetValue(field("Type"), e.typ))
		b.click(button("Add"))
		if text := b.waitText(e.value); !strings.Contains(text, "Added to the do-not-contact list.") {
			s.t.Fatalf("no word of %s added:\n%s", e.value, text)
		}
	}
	b.fill("Value", "https://example.com/globex")
	b.run("choose company", chromedp.SetValue(field("Type"), "company"))
	b.click(button("Add"))
	b.waitText("company link is not a linkedin.com/company/ page")
	b.fill("Search", "GLOBEX")
	b.click(button("Search"))
	text := b.waitText("Clear the search")
	if !strings.Contains(text, "Globex Corporation") || strings.Contains(text, "john-smith") {
		s.t.Fatalf("the search did not keep just what matches:\n%s", text)
	}
	b.shot("do-not-contact-search")
	b.click(buttonIn("Globex Corporation", "Remove"))
	b.waitText("Removed from the do-not-contact list.")
	r := s.org.Read.Do(s.t, "GET", "/api/v1/blacklist", nil)
	if data := r.JSON["data"].([]any); len(data) != 1 || data[0].(map[string]any)["type"] != "account" {
		s.t.Fatalf("the list after the removal: %s", r.Body)
	}
}

// analytics over 7, 30 and 92 days, for all campaigns and one.
func (s *inboxScenario) analytics() {
	b := s.b
	b.click("//nav//a[normalize-space(.)='Analytics']")
	b.waitText("Acceptance and reply rates by campaign")
	text := b.waitText("(30 days)")
	if !strings.Contains(text, "Invitations sent 3") || !strings.Contains(text, "100%") {
		s.t.Fatalf("the analytics do not show the three invitations, all accepted:\n%s", text)
	}
	b.shot("analytics")
	for _, days := range []string{"7", "92"} {
		b.run("period "+days, chromedp.SetValue(field("Period"), days))
		b.click(button("Show"))
		b.waitText("(" + days + " days)")
		if n := b.count("svg.chart > g"); strconv.Itoa(n) != days {
			s.t.Fatalf("the chart over %s days draws %d days", days, n)
		}
	}
	b.run("campaign", chromedp.SetValue(field("Campaign"), s.campaignID))
	b.click(button("Show"))
	b.waitText("Day by day: Founders in Dublin")
	b.shot("analytics-campaign")
	b.click("//nav//a[normalize-space(.)='LinkedIn accounts']")
	b.waitText("Sam Seller")
	b.shot("linkedin-accounts")
}
