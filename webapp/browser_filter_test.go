package webapp_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"outreachd/internal/testenv"
)

// fillArea types value into the textarea label names, replacing what it holds (chromedp's Clear
// needs a text node, which an empty textarea does not have).
func fillArea(b *browser, label, value string) {
	b.t.Helper()
	empty := `document.getElementById(document.evaluate("//label[normalize-space(.)=` + lit(label) +
		`]/@for", document, null, XPathResult.STRING_TYPE, null).stringValue).value = ""`
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[string](empty)); err != nil {
		b.t.Fatalf("empty %s: %v", label, err)
	}
	b.run("fill "+label, chromedp.SendKeys(field(label), value))
}

// TestBrowserDestinationFilter drives a destination's filter and rate limit in headless Chromium
// against the built binary: the add form's preview counts the organization's recent events a
// filter matches, refuses a bad filter with the API's words (and keeps what was typed), the
// destination is added with both, shown in the list and on its page, whose settings edit them
// with the same preview. Screenshots: destination-filter-form, destination-filter.
func TestBrowserDestinationFilter(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000")
	org := testenv.NewOrg(t, srv)
	testenv.Admin(t, srv.DBURL, "user", "create", "--org", org.ID, "--email", "ops@acme.test", "--password", scenarioPassword, "--role", "owner")
	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "Filters"})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	campaign := r.JSON["item"].(map[string]any)["id"].(string)
	var leads []map[string]any
	for _, n := range []string{"ada", "bo", "cy"} {
		leads = append(leads, map[string]any{"linkedin_url": "https://www.linkedin.com/in/" + n + "-filter", "name": n})
	}
	if r := org.Write.Do(t, "POST", "/api/v1/campaigns/"+campaign+"/leads", map[string]any{"leads": leads}); r.Status != 202 {
		t.Fatalf("push: %d %s", r.Status, r.Body)
	}
	rc := newReceiver(t)
	b := newBrowser(t, srv.URL)
	b.open("/app/destinations")
	b.fill("Email", "ops@acme.test")
	b.fill("Password", scenarioPassword)
	b.click(button("Sign in"))
	b.waitText("No destinations yet")

	b.fill("URL", rc.URL+"/hook")
	b.fill("Name", "Filtered CRM")
	b.fill("Events", "prospect_added,campaign_started")
	fillArea(b, "Filter", `{"data.campaign.name": {"$gt": 3}}`)
	preview := button("Preview: how many recent events match")
	b.click(preview)
	b.waitText("filter.data.campaign.name: $gt compares the number 3 with data.campaign.name, which is a string")
	b.click(button("Add destination"))
	b.waitText("Not added: filter.data.campaign.name: $gt compares the number 3")
	if got := b.value("#filter"); got != `{"data.campaign.name": {"$gt": 3}}` {
		t.Fatalf("the refused filter is not kept in the form: %q", got)
	}

	fillArea(b, "Filter", `{"event": "prospect_added", "data.prospect.name": {"$in": ["ada", "bo"]}}`)
	b.fill("Rate limit (requests per second)", "5")
	// The pushed leads' prospect_added events are in the outbox: two of them match.
	matches := regexp.MustCompile(`Matches (\d+) of the last (\d+) events\.`)
	b.click(preview)
	testenv.Eventually(t, 15*time.Second, func() (bool, string) {
		m := matches.FindStringSubmatch(b.mainText())
		if m == nil || m[1] != "2" {
			b.click(preview)
			return false, "the preview never counted 2 matches: " + b.mainText()
		}
		return true, ""
	})
	b.shot("destination-filter-form")
	b.click(button("Add destination"))
	text := b.waitText("Destination added.")
	for _, want := range []string{`{"event":"prospect_added","data.prospect.name":{"$in":["ada","bo"]}}`, "at most 5 requests a second"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the list does not show %q:\n%s", want, text)
		}
	}

	// Three more of Ada's events: the filter lets them through, the rate limit spaces them, and
	// the log shows the waits apart from failures.
	var more []map[string]any
	for i := range 3 {
		more = append(more, map[string]any{"linkedin_url": fmt.Sprintf("https://www.linkedin.com/in/ada-again-%d", i), "name": "ada"})
	}
	if r := org.Write.Do(t, "POST", "/api/v1/campaigns/"+campaign+"/leads", map[string]any{"leads": more}); r.Status != 202 {
		t.Fatalf("push: %d %s", r.Status, r.Body)
	}
	testenv.EventuallyTrue(t, 15*time.Second, "Ada's three events at the receiver", func() bool { return len(rc.all()) >= 3 })
	b.click("//a[normalize-space(.)='Filtered CRM']")
	b.waitText("≤ 5/s")
	b.run("throttled attempts", chromedp.SetValue(chromedp.CSS("#f-throttled"), "true"))
	b.click(button("Filter"))
	testenv.Eventually(t, 15*time.Second, func() (bool, string) {
		return strings.Contains(b.location(), "throttled=true"), "the log was not filtered: " + b.location()
	})
	// The first of the three started at once; the two after it waited for their turn.
	if text := b.waitText("throttled: waited"); strings.Count(text, "throttled: waited") != 2 || strings.Count(text, "#1") != 2 {
		t.Fatalf("the throttled attempts listed:\n%s", text)
	}
	b.shot("destination-throttled")
	if got := b.value("#filter"); !strings.Contains(got, `"event": "prospect_added"`) || b.value("#rate") != "5" {
		t.Fatalf("the settings show filter %q and rate %q", got, b.value("#rate"))
	}
	fillArea(b, "Filter", `{"data.prospect.name": "cy"}`)
	b.click(preview)
	b.waitText("Matches 1 of the last")
	b.fill("Rate limit (requests per second)", "1001")
	b.click(button("Save"))
	b.waitText("Not saved: rate_limit_per_second: must be an integer from 1 to 1000")
	if got := b.value("#filter"); got != `{"data.prospect.name": "cy"}` {
		t.Fatalf("the typed filter is lost after a refused save: %q", got)
	}
	b.fill("Rate limit (requests per second)", "")
	b.click(button("Save"))
	b.waitText("Destination saved.")
	b.shot("destination-filter")
	d := org.Read.Do(t, "GET", "/api/v1/destinations", nil).JSON["data"].([]any)[0].(map[string]any)
	if f, _ := d["filter"].(map[string]any); f["data.prospect.name"] != "cy" || d["rate_limit_per_second"] != nil {
		t.Fatalf("after the edit the API shows filter %v and rate %v", d["filter"], d["rate_limit_per_second"])
	}
}
