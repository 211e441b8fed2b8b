package webapp_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"outreachd/internal/testenv"
)

// TestBrowser drives the application in headless Chromium against the built binary, the way a
// person uses it: sign in, add a destination, Send test reaching a local receiver, the last
// attempt after a reload, launch a campaign, resend its event, create and revoke a key, approve
// a draft, and another organization's person seeing none of it. One browser serves the whole
// test; a screenshot of each page is saved under the test's temp dir (and $APP_SHOTS_DIR).
func TestBrowser(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	s := newScenario(t)
	s.step("signed in", s.signIn)
	s.step("destination added", s.addDestination)
	s.step("tested", s.sendTest)
	s.step("launched", s.launch)
	s.step("resent", s.resend)
	s.step("key created and revoked", s.keys)
	s.step("draft approved", s.approve)
	s.step("another organization sees nothing", s.otherOrganization)
}

const scenarioPassword = "correct horse battery"

type scenario struct {
	t          *testing.T
	srv        *testenv.Server
	org        testenv.Org
	rc         *receiver
	b          *browser
	start      time.Time
	campaignID string
	prospectID string
	key        string
}

func newScenario(t *testing.T) *scenario {
	began := time.Now()
	defer func() { t.Logf("set-up took %.1fs", time.Since(began).Seconds()) }()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000", "SIMULATOR_SPEED=1")
	s := &scenario{t: t, srv: srv, org: testenv.NewOrg(t, srv), rc: newReceiver(t)}
	other := testenv.NewOrg(t, srv)
	testenv.Admin(t, srv.DBURL, "user", "create", "--org", s.org.ID, "--email", "ops@acme.test", "--password", scenarioPassword, "--role", "owner")
	testenv.Admin(t, srv.DBURL, "user", "create", "--org", other.ID, "--email", "eve@other.test", "--password", scenarioPassword)
	testenv.Admin(t, srv.DBURL, "account", "connect", "--org", s.org.ID, "--name", "Sam Seller")
	r := s.org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "Founders in Berlin",
		"schedule": map[string]any{"timezone": "UTC", "workingDays": []int{1, 2, 3, 4, 5, 6, 7}, "startTime": "00:00", "endTime": "23:59"}})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	s.campaignID = r.JSON["item"].(map[string]any)["id"].(string)
	t.Logf("%.1fs server, organizations, people and a campaign ready", time.Since(began).Seconds())
	s.b = newBrowser(t, srv.URL)
	s.start = time.Now()
	return s
}

func (s *scenario) step(name string, do func()) {
	do()
	s.t.Logf("%5.1fs %s", time.Since(s.start).Seconds(), name)
}

// signIn: a page asked for before signing in is where the person lands after; a wrong password
// is refused on the form.
func (s *scenario) signIn() {
	b := s.b
	b.open("/app/keys")
	b.waitText("Sign in to outreachd")
	b.shot("login")
	b.fill("Email", "ops@acme.test")
	b.fill("Password", "wrong password!")
	b.click(button("Sign in"))
	b.waitText("That email and password do not match.")
	b.fill("Password", scenarioPassword)
	b.click(button("Sign in"))
	b.waitText("Create key")
	if loc := b.location(); !strings.HasSuffix(loc, "/app/keys") {
		s.t.Fatalf("after sign-in the browser is at %s, want /app/keys", loc)
	}
}

// addDestination with a generated secret, shown once.
func (s *scenario) addDestination() {
	b := s.b
	b.click("//nav//a[normalize-space(.)='Event Destinations']")
	b.waitText("No destinations yet")
	b.fill("URL", s.rc.URL+"/hook")
	b.fill("Name", "CRM receiver")
	b.fill("Secret", "generate")
	b.fill("Events", "all")
	b.click(button("Add destination"))
	b.waitText("copy it now")
	if secret := b.value("#new-secret"); !strings.HasPrefix(secret, "whsec_") {
		s.t.Fatalf("the generated secret shown is %q", secret)
	}
	b.open("/app/destinations")
	if strings.Contains(b.text(), "whsec_") {
		s.t.Fatal("the secret is shown again after the page that made it")
	}
}

// sendTest: the result appears in place, the receiver got a test event, and the last attempt
// is there after a reload.
func (s *scenario) sendTest() {
	b := s.b
	b.click(buttonIn("CRM receiver", "Send test"))
	b.waitText("delivered: HTTP 200")
	if got := s.rc.all(); len(got) != 1 || !got[0].Test {
		s.t.Fatalf("the receiver got %+v, want one test event", got)
	}
	b.open("/app/destinations")
	text := b.waitText("Last attempt:")
	if !strings.Contains(text, "HTTP 200") || !strings.Contains(text, "(test)") {
		s.t.Fatalf("after a reload the last attempt is not shown: %s", text)
	}
}

// launch the campaign (asked again first): its campaign_started event is delivered.
func (s *scenario) launch() {
	b := s.b
	b.click("//nav//a[normalize-space(.)='Campaigns']")
	b.click(buttonIn("Founders in Berlin", "Launch…"))
	b.waitText("It cannot be undone")
	b.shot("confirm-launch")
	b.click(button("Launch campaign"))
	b.waitText("Campaign status changed.")
	testenv.EventuallyTrue(s.t, 15*time.Second, "the campaign_started delivery", func() bool { return s.received("campaign_started") == 1 })
	r := s.org.Write.Do(s.t, "POST", "/api/v1/campaigns/"+s.campaignID+"/leads", map[string]any{"leads": []map[string]any{
		{"linkedin_url": "https://www.linkedin.com/in/ada-browser", "name": "Ada Browser", "company": "Acme"}}})
	if r.Status != 202 {
		s.t.Fatalf("push: %d %s", r.Status, r.Body)
	}
	s.prospectID = r.JSON["accepted"].([]any)[0].(map[string]any)["lead_id"].(string)
}

func (s *scenario) received(event string) int {
	n := 0
	for _, g := range s.rc.all() {
		if g.Event == event {
			n++
		}
	}
	return n
}

// resend from the destination's attempt log: the same delivery again.
func (s *scenario) resend() {
	b := s.b
	b.open("/app/destinations")
	b.click("//a[normalize-space(.)='CRM receiver']")
	b.waitText("Attempt log")
	b.click(buttonIn("campaign_started", "Resend"))
	b.waitText("Resend queued")
	testenv.EventuallyTrue(s.t, 15*time.Second, "the resent delivery", func() bool { return s.received("campaign_started") == 2 })
	b.open("/app/destinations")
	b.waitText("delivered, 0 failed")
	b.shot("destinations")
	b.run("phone-sized window", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	b.shot("destinations-phone")
	b.run("laptop-sized window", chromedp.EmulateViewport(1280, 900))
	b.click("//a[normalize-space(.)='CRM receiver']")
	text := b.waitText("manual")
	// The log's times carry seconds: a resend can follow its first attempt within the minute.
	if !regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC`).MatchString(text) {
		s.t.Errorf("the attempt log shows no time with seconds:\n%s", text)
	}
	b.shot("destination")
}

// keys: Create key with the form's defaults, shown once; it works until revoked.
func (s *scenario) keys() {
	b := s.b
	b.click("//nav//a[normalize-space(.)='API keys']")
	b.click(button("Create key"))
	b.waitText("copy it now")
	s.key = b.value("#new-key")
	if !strings.HasPrefix(s.key, "odk_") || strings.Contains(b.location(), s.key) {
		s.t.Fatalf("new key %q (page %s)", s.key, b.location())
	}
	b.shot("keys")
	me := testenv.Client{Base: s.srv.URL, Key: s.key}
	if r := me.Do(s.t, "GET", "/api/v1/me", nil); r.Status != http.StatusOK {
		s.t.Fatalf("the new key does not work: %d %s", r.Status, r.Body)
	}
	b.click(buttonIn(s.key[:12], "Revoke"))
	b.waitText("Key revoked.")
	if r := me.Do(s.t, "GET", "/api/v1/me", nil); r.Status != http.StatusUnauthorized {
		s.t.Fatalf("the revoked key still answers %d", r.Status)
	}
}

// approve: a reply reaches Needs Human through the LinkedIn simulator; approving it (asked
// again first) sends it.
func (s *scenario) approve() {
	b, org := s.b, s.org
	testenv.EventuallyTrue(s.t, 25*time.Second, "the invitation", func() bool {
		r := org.Read.Do(s.t, "GET", "/api/v1/prospects/"+s.prospectID, nil)
		return r.JSON["data"].(map[string]any)["status"] == "connection_sent"
	})
	testenv.Admin(s.t, s.srv.DBURL, "simulate", "accept", "--prospect", s.prospectID)
	testenv.Admin(s.t, s.srv.DBURL, "simulate", "reply", "--prospect", s.prospectID, "--text", "Could you send me an email with <b>the details</b>?")
	b.open("/app/campaigns/" + s.campaignID)
	b.waitText("Ada Browser")
	b.shot("campaign")
	b.click("//nav//a[normalize-space(.)='Needs Human']")
	b.waitText("Could you send me an email with <b>the details</b>?") // shown as text, never as HTML
	b.shot("needs-human")
	b.click(buttonIn("Ada Browser", "Approve"))
	b.waitText("It cannot be undone")
	b.click(button("Approve and send"))
	b.waitText("Sent on LinkedIn.")
	b.waitText("Nothing needs you right now.")
	if r := org.Read.Do(s.t, "GET", "/api/v1/needs-human", nil); len(r.JSON["data"].([]any)) != 0 {
		s.t.Fatalf("the approved item is still open: %s", r.Body)
	}
}

// otherOrganization: another organization's person sees nothing of it.
func (s *scenario) otherOrganization() {
	b := s.b
	b.click(button("Sign out"))
	b.waitText("Sign in to outreachd")
	b.fill("Email", "eve@other.test")
	b.fill("Password", scenarioPassword)
	b.click(button("Sign in"))
	if text := b.waitText("No destinations yet"); strings.Contains(text, "CRM receiver") {
		s.t.Fatal("another organization's destination is listed")
	}
	b.open("/app/campaigns")
	if strings.Contains(b.text(), "Founders in Berlin") {
		s.t.Fatal("another organization's campaign is listed")
	}
	b.open("/app/campaigns/" + s.campaignID)
	b.waitText("Not found")
	b.open("/app/keys")
	if strings.Contains(b.text(), s.key[:12]) {
		s.t.Fatal("another organization's key is listed")
	}
}
