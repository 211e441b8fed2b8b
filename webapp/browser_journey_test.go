package webapp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"outreachd/internal/testenv"
)

// TestBrowserJourney proves that a new person runs outreach in the browser alone, in headless
// Chromium against the built binary and its LinkedIn simulator at real speed: sign in, connect a
// seat, build a campaign (the seat, a schedule, an invitation with a note, a message) and save
// it, import a CSV file into it, launch it after reading the preview, answer in the Inbox the
// person who accepted and replied, stop them from their conversation and resume them from Do not
// contact, and read the campaign's figures in Analytics. Only LinkedIn's side (a lead accepting,
// a lead replying) is simulated, with `admin simulate`; every step of the person goes through
// the pages. Screenshots go under the test's temp dir and $APP_SHOTS_DIR.
func TestBrowserJourney(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	srv, org := startApp(t)
	s := &journey{scenario: &scenario{t: t, srv: srv, org: org, b: newBrowser(t, srv.URL), start: time.Now()}, dir: t.TempDir()}
	s.step("signed in", func() { s.b.signIn("ops@acme.test") })
	s.step("seat connected", s.connectSeat)
	s.step("campaign built", s.build)
	s.step("leads imported", s.importLeads)
	s.step("launched", s.launch)
	s.step("reply read and answered", s.converse)
	s.step("stopped and resumed", s.stopAndResume)
	s.step("analytics read", s.analytics)
}

// The campaign the person builds and the people of the file they import.
const (
	journeyCampaign = "Journey to Berlin founders"
	journeyNote     = "Hi {{first_name}}, I work with founders at {{company}}."
	journeyMessage  = "Thanks for connecting, {{first_name}}! Would a short call help?"
	journeyAsk      = "Could you send me an email with the details first?"
	journeyAnswer   = "Gladly, Ada: the details are on their way to your inbox."
)

var journeyPeople = []string{"Ada Journey", "Ben Journey", "Cid Journey"}

type journey struct {
	*scenario
	dir string // where the CSV file is written
}

// openUntil opens path again until its page shows want, for what the engine does on its own
// time (a reply arriving); it returns the page's text.
func (b *browser) openUntil(path, want string, within time.Duration) string {
	b.t.Helper()
	var text string
	testenv.Eventually(b.t, within, func() (bool, string) {
		b.open(path)
		text = b.mainText()
		return strings.Contains(text, want), fmt.Sprintf("%s never showed %q; it shows:\n%s", path, want, text)
	})
	return text
}

// cells are the texts of the cells of the first table row whose text contains scope, once the
// page shows one.
func (b *browser) cells(scope string) []string {
	b.t.Helper()
	var got []string
	testenv.Eventually(b.t, 15*time.Second, func() (bool, string) {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		defer cancel()
		var err error
		got, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf(`(function () {
			var row = Array.from(document.querySelectorAll("tr")).find(function (r) { return r.textContent.indexOf(%q) >= 0; });
			return row ? Array.from(row.cells).map(function (c) { return c.textContent.replace(/\s+/g, " ").trim(); }) : [];
		})()`, scope)))
		return err == nil && len(got) > 0, fmt.Sprintf("no table row with %q (%v) on %s:\n%s", scope, err, b.location(), b.mainText())
	})
	return got
}

// leads reads the campaign's leads back (name -> lead), for LinkedIn's side of the journey and
// to check what the pages say against what the engine did.
func (s *journey) leads() map[string]map[string]any {
	s.t.Helper()
	r := s.org.Read.Do(s.t, "GET", "/api/v1/campaigns/"+s.campaignID+"/leads", nil)
	if r.Status != 200 {
		s.t.Fatalf("leads: %d %s", r.Status, r.Body)
	}
	out := map[string]map[string]any{}
	for _, l := range r.JSON["data"].([]any) {
		l := l.(map[string]any)
		out[l["name"].(string)] = l
	}
	return out
}

// connectSeat: the LinkedIn accounts page connects a seat through the simulator at once.
func (s *journey) connectSeat() {
	b := s.b
	b.click("//nav//a[normalize-space(.)='LinkedIn accounts']")
	b.waitText("No LinkedIn account is connected yet")
	b.fill("Seat name", "Sam Seller")
	b.click(button("Connect LinkedIn account"))
	text := b.waitText("Sam Seller is connected: campaigns may send from it now.")
	if !strings.Contains(text, "Connected: its campaigns send from it.") {
		s.t.Fatalf("the seat is not shown connected:\n%s", text)
	}
	b.shot("journey-1-seat")
}

// build: New campaign with the seat chosen by name, a schedule open all day every day in
// Berlin, an invitation whose note greets by first name and a message right after acceptance;
// saved as a draft, and the draft's page shows it all again.
func (s *journey) build() {
	b, t := s.b, s.t
	b.click("//nav//a[normalize-space(.)='Campaigns']")
	b.click(button("New campaign"))
	b.waitText("Build the campaign")
	b.fill("Name", journeyCampaign)
	b.click(seatBox("Sam Seller"))
	b.choose(field("Time zone"), "Europe/Berlin")
	b.run("schedule hours", chromedp.SetValue(field("Start"), "00:00"), chromedp.SetValue(field("End"), "23:59"))
	if n := b.count("input[name=day]:checked"); n != 7 {
		t.Fatalf("a new campaign works on %d days, want all 7", n)
	}
	b.typeIn(stepField(1, "Message"), journeyNote)
	if text := b.text(); !strings.Contains(text, "Hi Ada, I work with founders at Analytical Engines Ltd.") {
		t.Fatalf("the note's preview does not fill in the first name:\n%s", text)
	}
	b.click(button("Add step"))
	if n := b.count("fieldset[data-step]"); n != 2 {
		t.Fatalf("%d steps after Add step", n)
	}
	if v := b.value("fieldset[data-step]:nth-of-type(2) select[name=step_type]"); v != "message" {
		t.Fatalf("the added step is a %q, want a message", v)
	}
	b.typeIn(stepField(2, "Wait (days)"), "0")
	b.typeIn(stepField(2, "Message"), journeyMessage)
	b.click(button("Save"))
	b.waitText("Draft saved.")
	s.campaignID = strings.TrimPrefix(strings.SplitN(strings.TrimPrefix(b.location(), s.srv.URL), "?", 2)[0], "/app/campaigns/")
	// The draft's page is the builder again, holding what was saved.
	for sel, want := range map[string]string{"#b-name": journeyCampaign, "#b-tz": "Europe/Berlin", "#b-start": "00:00", "#b-end": "23:59"} {
		if got := b.value(sel); got != want {
			t.Errorf("the saved draft's %s is %q, want %q", sel, got, want)
		}
	}
	if n, chosen := b.count("input[name=seats]:checked"), b.mainTextOf("//input[@name='seats'][@checked]/parent::label"); n != 1 ||
		!strings.HasPrefix(strings.TrimSpace(chosen), "Sam Seller") {
		t.Errorf("the saved draft sends from %q (%d chosen), want Sam Seller by name", chosen, n)
	}
	if got := b.value("fieldset[data-step]:nth-of-type(1) textarea"); got != journeyNote {
		t.Errorf("the saved note is %q", got)
	}
	if got := b.value("fieldset[data-step]:nth-of-type(2) textarea"); got != journeyMessage {
		t.Errorf("the saved message is %q", got)
	}
	// Taken once saved: a full-page screenshot before a click lower on the page makes the
	// click miss.
	b.shot("journey-2-draft")
}

// mainTextOf is the text of the first element at xpath.
func (b *browser) mainTextOf(xpath string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Text(xpath))
	if err != nil {
		b.t.Fatalf("read %s: %v", xpath, err)
	}
	return text
}

// importLeads: a small CSV file through the import form; the import's page counts its rows.
func (s *journey) importLeads() {
	b := s.b
	csv := "First Name,Last Name,Company,Title,LinkedIn URL\n"
	for _, p := range journeyPeople {
		first, last, _ := strings.Cut(p, " ")
		csv += fmt.Sprintf("%s,%s,Acme,CTO,https://www.linkedin.com/in/%s-journey\n", first, last, strings.ToLower(first))
	}
	b.upload(s.dir, "leads.csv", csv)
	text := strings.Join(strings.Fields(b.waitText("3 of 3 rows decided")), " ")
	for _, want := range []string{"Import of leads.csv", "received 3", "accepted 3", "rejected 0", "unreadable 0", "None: every row was read and accepted."} {
		if !strings.Contains(text, want) {
			s.t.Errorf("the import's page lacks %q:\n%s", want, text)
		}
	}
	b.shot("journey-3-import")
}

// launch: the campaign's page once enrichment has accepted the three, the preview (the leads,
// the seat, the steps, when the first invitations go), then Launch campaign.
func (s *journey) launch() {
	b, t := s.b, s.t
	b.openUntil("/app/campaigns/"+s.campaignID, "accepted 3", 30*time.Second)
	b.click(button("Launch…"))
	text := strings.Join(strings.Fields(b.waitText("Here is what will happen")), " ")
	for _, want := range []string{"Launch “" + journeyCampaign + "”?", "accepted 3 pending (enrichment) 0 rejected 0",
		"Sends from Sam Seller (connected)", "invite with a note, right away", "message, right away",
		"The first invitations go as soon as it is launched: the schedule is open now.", "It cannot be undone"} {
		if !strings.Contains(text, want) {
			t.Errorf("the launch preview lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "oldest seat") {
		t.Errorf("the preview sends from the oldest seat, not the one chosen:\n%s", text)
	}
	b.shot("journey-4-launch")
	b.click(button("Launch campaign"))
	text = b.waitText("Campaign status changed.")
	if !strings.Contains(text, "Fixed since launch") || !strings.Contains(text, "Hi {{first_name}}, I work with founders at {{company}}.") {
		t.Fatalf("the launched campaign's page:\n%s", text)
	}
}

// converse: LinkedIn's side (every invitation goes, Ada accepts, gets the message, replies);
// then the person finds her reply in the Inbox and answers it, which also settles it on the
// Needs Human desk.
func (s *journey) converse() {
	b, t := s.b, s.t
	for _, name := range journeyPeople {
		testenv.EventuallyTrue(t, 30*time.Second, name+"'s invitation", func() bool { return s.leads()[name]["status"] == "connection_sent" })
	}
	s.prospectID = s.leads()["Ada Journey"]["lead_id"].(string)
	testenv.Admin(t, s.srv.DBURL, "simulate", "accept", "--prospect", s.prospectID)
	testenv.EventuallyTrue(t, 30*time.Second, "Ada's message", func() bool { return s.leads()["Ada Journey"]["status"] == "messaged" })
	testenv.Admin(t, s.srv.DBURL, "simulate", "reply", "--prospect", s.prospectID, "--text", journeyAsk)

	b.openUntil("/app/needs-human", journeyAsk, 30*time.Second)
	b.click("//nav//a[normalize-space(.)='Inbox']")
	if text := b.waitText("Conversations on your LinkedIn seats"); !strings.Contains(text, "Ada Journey") || !strings.Contains(text, journeyAsk) {
		t.Fatalf("the Inbox does not list Ada's conversation with her reply:\n%s", text)
	}
	b.shot("journey-5-inbox")
	b.click("//a[contains(., 'Ada Journey')]")
	text := b.waitText(journeyAsk)
	sent, asked := strings.Index(text, "Thanks for connecting, Ada! Would a short call help?"), strings.Index(text, journeyAsk)
	if sent < 0 || asked < sent {
		t.Fatalf("the thread does not show the campaign's message, then her reply:\n%s", text)
	}
	b.run("write the reply", chromedp.SendKeys(field("Reply"), journeyAnswer))
	b.click(button("Send"))
	text = b.waitText("Sent on LinkedIn.")
	if strings.Index(text, journeyAnswer) < strings.Index(text, journeyAsk) {
		t.Fatalf("the answer is not in the thread after her reply:\n%s", text)
	}
	b.shot("journey-6-conversation")
	b.click("//nav//a[normalize-space(.)='Needs Human']")
	b.waitText("Nothing needs you right now.")
}

// stopAndResume: Stop from Ada's conversation; Do not contact lists her as stopped; Resume
// there; her conversation takes replies again and her campaign still has her, as a person who
// replied.
func (s *journey) stopAndResume() {
	b, t := s.b, s.t
	b.open("/app/inbox")
	b.click("//a[contains(., 'Ada Journey')]")
	b.waitText(journeyAnswer)
	b.click(button("Stop"))
	// Her reply ended her sequence, so the stop says it paused none.
	text := b.waitText("No campaign sequence of theirs was running, so none was paused.")
	if !strings.Contains(text, "Ada Journey is stopped: nothing is sent to them.") || b.count("#reply") != 0 {
		t.Fatalf("the stopped conversation still offers a reply:\n%s", text)
	}
	b.click("//nav//a[normalize-space(.)='Do not contact']")
	b.waitText("People stopped")
	// Her reply ended her sequence, so the stop paused no step of it: only the replies.
	if row := strings.Join(b.cells("Ada Journey"), " | "); !strings.Contains(row, "by ops@acme.test") || !strings.Contains(row, "none (replies only)") {
		t.Fatalf("the stopped row does not say who stopped her and what was paused: %s", row)
	}
	b.shot("journey-7-do-not-contact")
	b.click(buttonIn("Ada Journey", "Resume"))
	text = b.waitText("Resumed: replies to them may be drafted and sent again. No campaign sequence of theirs was paused")
	if !strings.Contains(text, "Nobody is stopped.") {
		t.Fatalf("Ada is still listed as stopped after Resume:\n%s", text)
	}
	b.click("//nav//a[normalize-space(.)='Campaigns']")
	b.click("//a[normalize-space(.)=" + lit(journeyCampaign) + "]")
	b.waitText("Newest leads")
	if row := strings.Join(b.cells("Ada Journey"), " | "); !strings.Contains(row, "accepted") || !strings.Contains(row, "replied") {
		t.Fatalf("Ada's row in her campaign after Resume: %s", row)
	}
	b.open("/app/inbox")
	b.click("//a[contains(., 'Ada Journey')]")
	text = b.waitText(journeyAnswer)
	if strings.Contains(text, "is stopped") || b.count("#reply") != 1 {
		t.Fatalf("after Resume her conversation does not take a reply again:\n%s", text)
	}
}

// analytics: the totals and the campaign's row say what the engine did — three invitations,
// one accepted, one reply — as the Campaigns list does.
func (s *journey) analytics() {
	b, t := s.b, s.t
	invited := 0
	for _, l := range s.leads() {
		if l["contacted"] == true {
			invited++
		}
	}
	if invited != len(journeyPeople) {
		t.Fatalf("%d of the %d leads were contacted", invited, len(journeyPeople))
	}
	b.click("//nav//a[normalize-space(.)='Campaigns']")
	list := b.cells(journeyCampaign)
	b.click("//nav//a[normalize-space(.)='Analytics']")
	text := strings.Join(strings.Fields(b.waitText("Acceptance and reply rates by campaign")), " ")
	for _, want := range []string{"Campaigns 1", "People in campaigns 3", fmt.Sprintf("Invitations sent %d", invited),
		"Connections accepted 1", "Replies 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("the analytics' totals lack %q:\n%s", want, text)
		}
	}
	row := b.cells(journeyCampaign)
	// Campaign, invitations sent, accepted, acceptance, messages sent, replies, reply rate, calls.
	if row[1] != fmt.Sprint(invited) || row[2] != "1" || !strings.HasPrefix(row[3], "33%") || row[5] != "1" {
		t.Errorf("the campaign's row in Analytics: %q", row)
	}
	// Campaigns list: name, status, prospects, invites, accepted, messages, replies.
	if row[1] != list[3] || row[2] != list[4] || row[4] != list[5] || row[5] != list[6] {
		t.Errorf("Analytics (%q) and the Campaigns list (%q) disagree", row, list)
	}
	b.shot("journey-8-analytics")
}
