package webapp_test

import (
	"strings"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

// TestBrowserLinkedInAccounts drives the LinkedIn accounts page in headless Chromium against the
// built binary and its LinkedIn simulator: connect a seat from the page, see what its campaign
// did today against its caps (the figures `admin account list` prints), change a cap (a refused
// value first, said next to its field), disconnect it (confirmed, naming the seat and its
// campaign) and reconnect it. Screenshots go under the test's temp dir and $APP_SHOTS_DIR.
func TestBrowserLinkedInAccounts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	srv, org := startApp(t)
	b := newBrowser(t, srv.URL)
	b.signIn("ops@acme.test")

	// Connected from the page, at once.
	b.click("//nav//a[normalize-space(.)='LinkedIn accounts']")
	b.waitText("No LinkedIn account is connected yet")
	b.fill("Seat name", "Sam Seller")
	b.click(button("Connect LinkedIn account"))
	b.waitText("Sam Seller is connected: campaigns may send from it now.")
	// seats is Sam Seller's row as `admin account list` prints it (the oldest seat).
	seats := func() map[string]any {
		rows := testenv.Admin(t, srv.DBURL, "account", "list", "--org", org.ID)["data"].([]any)
		if len(rows) == 0 {
			t.Fatalf("admin account list: %v", rows)
		}
		return rows[0].(map[string]any)
	}
	seat := seats()
	if seat["name"] != "Sam Seller" || seat["status"] != "connected" {
		t.Fatalf("the seat as admin account list prints it: %v", seat)
	}

	// A campaign in Dublin invites three people: the page counts them in Dublin's day.
	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "Founders in Dublin",
		"schedule": map[string]any{"timezone": "Europe/Dublin", "workingDays": []int{1, 2, 3, 4, 5, 6, 7}, "startTime": "00:00", "endTime": "23:59"},
		"sequence": []any{map[string]any{"type": "connect", "text": "Hi {first_name}"}}})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	campaignID := r.JSON["item"].(map[string]any)["id"].(string)
	testenv.Admin(t, srv.DBURL, "campaign", "set-status", "--campaign", campaignID, "--status", "active")
	var leads []map[string]any
	for _, h := range []string{"ada", "ben", "cid"} {
		leads = append(leads, map[string]any{"linkedin_url": "https://www.linkedin.com/in/" + h + "-seats", "name": h + " Seats", "company": "Acme"})
	}
	if r := org.Write.Do(t, "POST", "/api/v1/campaigns/"+campaignID+"/leads", map[string]any{"leads": leads}); r.Status != 202 {
		t.Fatalf("push: %d %s", r.Status, r.Body)
	}
	testenv.EventuallyTrue(t, 60*time.Second, "three invitations", func() bool {
		return seats()["used"].(map[string]any)["invites_today"] == 3.0
	})
	b.open("/app/linkedin-accounts")
	text := b.waitText("22 left")
	for _, want := range []string{"Connected: its campaigns send from it.", "Today counts from midnight to midnight in Europe/Dublin",
		"Invitations in the last 7 days", "Pending invitations", "Sales Navigator"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q:\n%s", want, text)
		}
	}
	b.shot("linkedin-accounts-use")

	// A cap changed on the seat's page: a refused value first, then one the seat has reached.
	b.click("//a[normalize-space(.)='Change limits']")
	b.waitText("Default 25.")
	invitesPerDay := func(typed, says string, want float64) {
		b.fill("Invitations per day", typed)
		b.click(button("Save limits"))
		b.waitText(says)
		if got := seats()["limits"].(map[string]any)["invites_per_day"]; got != want {
			t.Fatalf("after %s was typed, invites_per_day is %v, want %v", typed, got, want)
		}
	}
	invitesPerDay("-5", "Invites per day must be between 0 and 100000, got -5.", 25)
	b.shot("linkedin-account-refused")
	invitesPerDay("3", "The limits of Sam Seller are saved", 3)
	b.waitText("reached: no more until midnight Europe/Dublin")

	// A second seat; the first disconnected (confirmed, naming the seat and its campaign), then
	// reconnected.
	b.fill("Seat name", "Ria Rahman")
	b.click(button("Connect LinkedIn account"))
	b.waitText("Ria Rahman is connected")
	b.click(buttonIn("Sam Seller", "Disconnect"))
	text = b.waitText("Disconnect Sam Seller?")
	if !strings.Contains(text, "Campaigns that send from the organization's seats: “Founders in Dublin”. New people go through your other connected seats") {
		t.Fatalf("the confirmation does not say what happens to the campaign:\n%s", text)
	}
	b.shot("linkedin-account-disconnect")
	b.click(button("Disconnect Sam Seller"))
	b.waitText("by ops@acme.test: outreachd sends nothing from it until it is reconnected.")
	if got := seats(); got["status"] != "disconnected" {
		t.Fatalf("after Disconnect the seat is %v", got["status"])
	}
	b.shot("linkedin-accounts")
	b.click(buttonIn("Sam Seller", "Reconnect"))
	b.waitText("Sam Seller is connected again")
	if got := seats(); got["status"] != "connected" {
		t.Fatalf("after Reconnect the seat is %v", got["status"])
	}
}
