package webapp_test

import (
	"net/http"
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
	if testing.Short() {
		t.Skip("browser test")
	}
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000", "SIMULATOR_SPEED=1")
	org := testenv.NewOrg(t, srv)
	other := testenv.NewOrg(t, srv)
	const password = "correct horse battery"
	testenv.Admin(t, srv.DBURL, "user", "create", "--org", org.ID, "--email", "ops@acme.test", "--password", password, "--role", "owner")
	testenv.Admin(t, srv.DBURL, "user", "create", "--org", other.ID, "--email", "eve@other.test", "--password", password)
	testenv.Admin(t, srv.DBURL, "account", "connect", "--org", org.ID, "--name", "Sam Seller")
	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "Founders in Berlin",
		"schedule": map[string]any{"timezone": "UTC", "workingDays": []int{1, 2, 3, 4, 5, 6, 7}, "startTime": "00:00", "endTime": "23:59"}})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	campaignID := r.JSON["item"].(map[string]any)["id"].(string)
	rc := newReceiver(t)
	b := newBrowser(t, srv.URL)
	start := time.Now()
	step := func(name string) { t.Logf("%5.1fs %s", time.Since(start).Seconds(), name) }

	// Sign in: a page asked for before signing in is where the person lands after.
	b.open("/app/keys")
	b.waitText("Sign in to outreachd")
	b.shot("login")
	b.fill("Email", "ops@acme.test")
	b.fill("Password", "wrong password!")
	b.click(button("Sign in"))
	b.waitText("That email and password do not match.")
	b.fill("Password", password)
	b.click(button("Sign in"))
	b.waitText("Create key")
	if loc := b.location(); !strings.HasSuffix(loc, "/app/keys") {
		t.Fatalf("after sign-in the browser is at %s, want /app/keys", loc)
	}

	step("signed in")
	// Add a destination with a generated secret, shown once.
	b.click("//nav//a[normalize-space(.)='Event Destinations']")
	b.waitText("No destinations yet")
	b.fill("URL", rc.URL+"/hook")
	b.fill("Name", "CRM receiver")
	b.fill("Secret", "generate")
	b.fill("Events", "all")
	b.click(button("Add destination"))
	b.waitText("copy it now")
	if s := b.value("#new-secret"); !strings.HasPrefix(s, "whsec_") {
		t.Fatalf("the generated secret shown is %q", s)
	}
	b.open("/app/destinations")
	if strings.Contains(b.text(), "whsec_") {
		t.Fatal("the secret is shown again after the page that made it")
	}

	step("destination added")
	// Send test: the result appears in place, the receiver got a test event.
	b.click(buttonIn("CRM receiver", "Send test"))
	b.waitText("delivered: HTTP 200")
	if got := rc.all(); len(got) != 1 || !got[0].Test {
		t.Fatalf("the receiver got %+v, want one test event", got)
	}
	b.open("/app/destinations")
	text := b.waitText("Last attempt:")
	if !strings.Contains(text, "HTTP 200") || !strings.Contains(text, "(test)") {
		t.Fatalf("after a reload the last attempt is not shown: %s", text)
	}

	step("tested")
	// Launch the campaign (asked again first): its campaign_started event is delivered.
	b.click("//nav//a[normalize-space(.)='Campaigns']")
	b.click(buttonIn("Founders in Berlin", "Launch…"))
	b.waitText("It cannot be undone")
	b.shot("confirm-launch")
	b.click(button("Launch campaign"))
	b.waitText("Campaign status changed.")
	waitFor(t, 15*time.Second, "the campaign_started delivery", func() bool {
		for _, g := range rc.all() {
			if g.Event == "campaign_started" {
				return true
			}
		}
		return false
	})
	r = org.Write.Do(t, "POST", "/api/v1/campaigns/"+campaignID+"/leads", map[string]any{"leads": []map[string]any{
		{"linkedin_url": "https://www.linkedin.com/in/ada-browser", "name": "Ada Browser", "company": "Acme"}}})
	if r.Status != 202 {
		t.Fatalf("push: %d %s", r.Status, r.Body)
	}
	prospectID := r.JSON["accepted"].([]any)[0].(map[string]any)["lead_id"].(string)

	step("launched")
	// Resend from the destination's attempt log: the same delivery (same webhook-id) again.
	b.open("/app/destinations")
	b.click("//a[normalize-space(.)='CRM receiver']")
	b.waitText("Attempt log")
	b.click(buttonIn("campaign_started", "Resend"))
	b.waitText("Resend queued")
	waitFor(t, 15*time.Second, "the resent delivery", func() bool {
		n := 0
		for _, g := range rc.all() {
			if g.Event == "campaign_started" {
				n++
			}
		}
		return n == 2
	})
	b.open("/app/destinations")
	b.waitText("delivered, 0 failed")
	b.shot("destinations")
	b.run("phone-sized window", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	b.shot("destinations-phone")
	b.run("laptop-sized window", chromedp.EmulateViewport(1280, 900))
	b.click("//a[normalize-space(.)='CRM receiver']")
	b.waitText("manual")
	b.shot("destination")

	step("resent")
	// API keys: Create key with the form's defaults, shown once; it works until revoked.
	b.click("//nav//a[normalize-space(.)='API keys']")
	b.click(button("Create key"))
	b.waitText("copy it now")
	key := b.value("#new-key")
	if !strings.HasPrefix(key, "odk_") || strings.Contains(b.location(), key) {
		t.Fatalf("new key %q (page %s)", key, b.location())
	}
	b.shot("keys")
	me := testenv.Client{Base: srv.URL, Key: key}
	if r := me.Do(t, "GET", "/api/v1/me", nil); r.Status != http.StatusOK {
		t.Fatalf("the new key does not work: %d %s", r.Status, r.Body)
	}
	b.click(buttonIn(key[:12], "Revoke"))
	b.waitText("Key revoked.")
	if r := me.Do(t, "GET", "/api/v1/me", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("the revoked key still answers %d", r.Status)
	}

	step("keys")
	// A draft reaches Needs Human; approving it (asked again first) sends it on LinkedIn.
	waitFor(t, 25*time.Second, "the invitation", func() bool {
		r := org.Read.Do(t, "GET", "/api/v1/prospects/"+prospectID, nil)
		return r.JSON["data"].(map[string]any)["status"] == "connection_sent"
	})
	testenv.Admin(t, srv.DBURL, "simulate", "accept", "--prospect", prospectID)
	testenv.Admin(t, srv.DBURL, "simulate", "reply", "--prospect", prospectID, "--text", "Could you send me an email with <b>the details</b>?")
	step("replied")
	b.open("/app/campaigns/" + campaignID)
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
	inbox := org.Read.Do(t, "GET", "/api/v1/needs-human", nil)
	if items, _ := inbox.JSON["data"].([]any); len(items) != 0 {
		t.Fatalf("the approved item is still open: %s", inbox.Body)
	}

	step("approved")
	// Another organization's person sees nothing of it.
	b.click(button("Sign out"))
	b.waitText("Sign in to outreachd")
	b.fill("Email", "eve@other.test")
	b.fill("Password", password)
	b.click(button("Sign in"))
	text = b.waitText("No destinations yet")
	if strings.Contains(text, "CRM receiver") {
		t.Fatal("another organization's destination is listed")
	}
	b.open("/app/campaigns")
	if strings.Contains(b.text(), "Founders in Berlin") {
		t.Fatal("another organization's campaign is listed")
	}
	b.open("/app/campaigns/" + campaignID)
	b.waitText("Not found")
	b.open("/app/keys")
	if strings.Contains(b.text(), key[:12]) {
		t.Fatal("another organization's key is listed")
	}
}
