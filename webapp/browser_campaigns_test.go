package webapp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"outreachd/internal/testenv"
)

// TestBrowserCampaigns drives the campaign builder, the CSV import and the launch preview in
// headless Chromium against the built binary: build a campaign with two steps (add, reorder,
// remove, previews, the note's counter, an impossible filter refused with the API's words and
// the form kept) sending from two seats, save it and read it back from the API, edit the draft
// with and without script, duplicate it, import a file with good, refused and duplicate rows
// and read the reasons, watch a larger file's progress, list the leads by verdict, and launch
// after the preview names both seats.
func TestBrowserCampaigns(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	srv, org := startApp(t)
	sam := testenv.Admin(t, srv.DBURL, "account", "connect", "--org", org.ID, "--name", "Sam Seller")["account_id"].(string)
	ann := testenv.Admin(t, srv.DBURL, "account", "connect", "--org", org.ID, "--name", "Ann Other")["account_id"].(string)
	if r := org.Write.Do(t, "PUT", "/api/v1/settings/default-filters", map[string]any{"hard_filters": map[string]any{
		"companies": map[string]any{"exclude": []string{"Globex"}}}}); r.Status != 200 {
		t.Fatalf("default filters: %d %s", r.Status, r.Body)
	}
	s := &campaignScenario{t: t, srv: srv, org: org, b: newBrowser(t, srv.URL), dir: t.TempDir(), seats: []string{sam, ann}}
	s.b.signIn("ops@acme.test")
	start := time.Now()
	for _, st := range []struct {
		name string
		do   func()
	}{
		{"built", s.build}, {"edited", s.edit}, {"edited without script", s.editWithoutScript}, {"duplicated", s.duplicate},
		{"imported", s.importFile}, {"imported a larger file", s.importLarge}, {"leads listed", s.leads}, {"launched", s.launch},
	} {
		st.do()
		t.Logf("%5.1fs %s", time.Since(start).Seconds(), st.name)
	}
}

type campaignScenario struct {
	t          *testing.T
	srv        *testenv.Server
	org        testenv.Org
	b          *browser
	dir        string
	seats      []string // Sam Seller's and Ann Other's, oldest first
	campaignID string
}

func (s *campaignScenario) stepText(n int) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.b.ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Text(fmt.Sprintf("(//fieldset[@data-step])[%d]", n)))
	if err != nil {
		return fmt.Sprintf("(step %d cannot be read: %v)", n, err) // the page may be loading
	}
	return v
}

// steps counts the steps on the page; -1 while it cannot be read (a page loading).
func (s *campaignScenario) steps() int {
	s.t.Helper()
	n, err := chromedp.Run(s.b.ctx, chromedp.Evaluate[int](`document.querySelectorAll("fieldset[data-step]").length`))
	if err != nil {
		return -1
	}
	return n
}

// build: New campaign, two steps through add, reorder and remove, the previews and the note's
// counter, an impossible filter refused with the form kept, then saved as a draft.
func (s *campaignScenario) build() {
	b, t := s.b, s.t
	b.click("//nav//a[normalize-space(.)='Campaigns']")
	b.click(button("New campaign"))
	b.waitText("Build the campaign")
	b.fill("Name", "Berlin founders")
	if got := b.value("#f-companies-exc"); got != "Globex" {
		t.Fatalf("the organization's default filters are not shown as the campaign's: exclude %q", got)
	}
	// Step 1 is the invitation; its note is counted as it is typed.
	s.b.typeIn(stepField(1, "Message"), strings.Repeat("x", 301))
	if text := s.stepText(1); !strings.Contains(text, "301 of 300 characters: too long") {
		t.Fatalf("the note's counter: %s", text)
	}
	s.b.typeIn(stepField(1, "Message"), "Hi {{first_name}}, I work with founders at {{company}}.")
	if text := s.stepText(1); !strings.Contains(text, "55 of 300 characters") || !strings.Contains(text, "Hi Ada, I work with founders at Analytical Engines Ltd.") {
		t.Fatalf("step 1 after typing: %s", text)
	}
	b.click(button("Add step"))
	b.click(button("Add step"))
	if n := s.steps(); n != 3 {
		t.Fatalf("%d steps after adding two", n)
	}
	s.b.typeIn(stepField(2, "Wait (days)"), "5")
	s.b.typeIn(stepField(2, "Message"), "A step to remove")
	s.b.typeIn(stepField(3, "Wait (days)"), "2")
	s.b.typeIn(stepField(3, "Message"), "Thanks for connecting, {{first_name}} {{last_name}} ({{title}}). {{nickname}}?")
	if text := s.stepText(3); !strings.Contains(text, "Thanks for connecting, Ada Lovelace (Head of Engineering). {{nickname}}?") ||
		!strings.Contains(text, "Not a variable this service knows: {{nickname}}") || strings.Contains(text, "of 300 characters") {
		t.Fatalf("step 3 (a message) preview: %s", text)
	}
	b.click(button("Move up step 3"))
	if text := s.stepText(2); !strings.Contains(text, "Thanks for connecting") {
		t.Fatalf("after Move up, step 2 is: %s", text)
	}
	b.click(button("Remove step 3"))
	if n := s.steps(); n != 2 {
		t.Fatalf("%d steps after removing one", n)
	}
	// Both seats send: ticked in the list's order, whatever the order of the clicks.
	b.click(seatBox("Ann Other"))
	b.click(seatBox("Sam Seller"))
	b.shot("campaign-new")
	// An impossible filter: refused with the API's words, next to the filters, the form kept.
	s.b.typeIn("//*[@id='f-company_size-min']", "500")
	s.b.typeIn("//*[@id='f-company_size-max']", "50")
	b.click(button("Save"))
	text := b.waitText("company_size.min (500) is greater than company_size.max (50), so nobody can pass it")
	if b.value("#b-name") != "Berlin founders" || !strings.Contains(s.stepText(2), "Thanks for connecting") || s.steps() != 2 {
		t.Fatalf("the refused form lost what was typed:\n%s", text)
	}
	b.shot("builder-refused")
	s.b.typeIn("//*[@id='f-company_size-max']", "")
	b.click(button("Save"))
	b.waitText("Draft saved.")
	s.campaignID = strings.TrimPrefix(strings.SplitN(strings.TrimPrefix(b.location(), s.srv.URL), "?", 2)[0], "/app/campaigns/")
	r := s.org.Read.Do(t, "GET", "/api/v1/campaigns/"+s.campaignID, nil)
	c := r.JSON["data"].(map[string]any)
	seq := c["sequence"].([]any)
	if r.Status != 200 || c["status"] != "draft" || len(seq) != 2 ||
		seq[0].(map[string]any)["type"] != "connect" || seq[0].(map[string]any)["text"] != "Hi {{first_name}}, I work with founders at {{company}}." ||
		seq[1].(map[string]any)["type"] != "message" || seq[1].(map[string]any)["delay_days"] != float64(2) ||
		fmt.Sprint(c["account_ids"]) != fmt.Sprint(s.seats) {
		t.Fatalf("the saved campaign (account_ids %v, want %v): %s", c["account_ids"], s.seats, r.Body)
	}
	if n := b.count("input[name=seats]:checked"); n != 2 {
		t.Fatalf("the saved draft ticks %d seats, want both", n)
	}
	if hf := c["meta"].(map[string]any)["hard_filters"].(map[string]any); fmt.Sprint(hf["company_size"]) != "map[min:500]" ||
		fmt.Sprint(hf["companies"]) != "map[exclude:[Globex]]" {
		t.Fatalf("the saved filters: %v", hf)
	}
}

// edit: the draft's page is the builder; Save changes the draft.
func (s *campaignScenario) edit() {
	b, t := s.b, s.t
	b.fill("Daily limit", "15")
	s.b.typeIn("//*[@id='f-company_size-min']", "")
	s.b.typeIn(stepField(2, "Wait (days)"), "3")
	b.click(button("Save"))
	b.waitText("Changes saved.")
	b.shot("campaign-draft")
	b.run("phone-sized window", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	b.shot("campaign-draft-phone")
	b.run("laptop-sized window", chromedp.EmulateViewport(1280, 900))
	r := s.org.Read.Do(t, "GET", "/api/v1/campaigns/"+s.campaignID, nil)
	c := r.JSON["data"].(map[string]any)
	if c["daily_limit"] != float64(15) || c["sequence"].([]any)[1].(map[string]any)["delay_days"] != float64(3) ||
		fmt.Sprint(c["account_ids"]) != fmt.Sprint(s.seats) {
		t.Fatalf("the edited draft: %s", r.Body)
	}
}

func scriptOff(off bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: off})
		return err
	})
}

// editWithoutScript: the step buttons post the form and the server shows it again with the
// change and every field as typed.
func (s *campaignScenario) editWithoutScript() {
	b, t := s.b, s.t
	b.run("script off", scriptOff(true))
	defer b.run("script on", scriptOff(false))
	b.open("/app/campaigns/" + s.campaignID)
	b.fill("Name", "Berlin founders, typed")
	b.click(button("Add step"))
	b.waitText("Not saved yet")
	if s.steps() != 3 || b.value("#b-name") != "Berlin founders, typed" {
		t.Fatalf("after Add step without script: %d steps, name %q", s.steps(), b.value("#b-name"))
	}
	s.b.typeIn(stepField(3, "Message"), "Third, {{first_name}}")
	b.click(button("Move up step 3"))
	testenv.Eventually(t, 15*time.Second, func() (bool, string) {
		text := s.stepText(2)
		return strings.Contains(text, "Third, Ada"), "after Move up without script, step 2 is:\n" + text
	})
	b.click(button("Remove step 2"))
	testenv.Eventually(t, 15*time.Second, func() (bool, string) {
		return s.steps() == 2 && !strings.Contains(b.text(), "Third,"), fmt.Sprintf("after Remove without script: %d steps", s.steps())
	})
	if b.value("#b-name") != "Berlin founders, typed" {
		t.Fatalf("the name typed was lost: %q", b.value("#b-name"))
	}
	b.fill("Name", "Berlin founders")
	b.click(button("Save"))
	b.waitText("Changes saved.")
	// The seats ticked went through the posts of the step buttons.
	r := s.org.Read.Do(t, "GET", "/api/v1/campaigns/"+s.campaignID, nil)
	if got := r.JSON["data"].(map[string]any)["account_ids"]; fmt.Sprint(got) != fmt.Sprint(s.seats) {
		t.Fatalf("after editing without script the draft sends from %v, want %v", got, s.seats)
	}
}

// duplicate: a draft copy named after the original.
func (s *campaignScenario) duplicate() {
	b := s.b
	b.click(button("Duplicate"))
	b.waitText("This is a copy")
	if v := b.value("#b-name"); v != "Berlin founders (copy)" {
		s.t.Fatalf("the copy is named %q", v)
	}
	b.click("//nav//a[normalize-space(.)='Campaigns']")
	b.waitText("Berlin founders (copy)")
	b.shot("campaigns")
	b.open("/app/campaigns/" + s.campaignID)
}

// importFile: a CRM export with good, refused, unreadable and duplicate rows; the page says
// each refusal's row, person and reason, and hostile cells stay text.
func (s *campaignScenario) importFile() {
	b, t := s.b, s.t
	csv := "\xEF\xBB\xBFFirst Name;Last Name;Company Name;Job Title;LinkedIn URL;Lead Score\r\n" +
		"Ada;Lovelace;Analytical Engines;CTO;https://www.linkedin.com/in/ada-csv;42\r\n" +
		"Grace;Hopper;\"Navy; Research\";Admiral;linkedin.com/in/grace-csv;7\r\n" +
		"Hank;Scorpio;Globex;CEO;https://www.linkedin.com/in/hank-csv;1\r\n" +
		"Nobody;Known;Acme;;;3\r\n" +
		"Ada;Again;Analytical Engines;CTO;https://www.linkedin.com/in/ada-csv/;42\r\n" +
		"<script>alert(1)</script>;=cmd|' /C calc'!A0;Evil;@SUM(1);https://www.linkedin.com/in/evil-csv;0\r\n" +
		"Not;Linked;Acme;CTO;https://example.com/ada;5\r\n"
	b.open("/app/campaigns/" + s.campaignID)
	s.b.upload(s.dir, "crm-export.csv", csv)
	text := b.waitText("Imported")
	for _, want := range []string{"received 7", "accepted 3", "rejected 3", "unreadable 1",
		"4 https://www.linkedin.com/in/hank-csv excluded by the filters company \"Globex\" matches excluded term \"Globex\"",
		"5 Nobody Known unreadable row has no LinkedIn profile",
		"6 https://www.linkedin.com/in/ada-csv/ twice in the file same LinkedIn profile as row 2 of the file",
		"8 https://example.com/ada not a LinkedIn profile",
	} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
			t.Errorf("the import page lacks %q:\n%s", want, text)
		}
	}
	b.shot("import")
	r := s.org.Read.Do(t, "GET", "/api/v1/campaigns/"+s.campaignID+"/leads?source=csv_import", nil)
	leads := r.JSON["data"].([]any)
	names := fmt.Sprint(leads)
	if len(leads) != 4 || !strings.Contains(names, "<script>alert(1)</script> =cmd|' /C calc'!A0") || !strings.Contains(names, "Lead Score:42") {
		t.Fatalf("the imported leads (three accepted, one kept rejected by the filters): %s", r.Body)
	}
}

// importLarge: 3,000 rows go in pushes of 100; the page shows the progress until done.
func (s *campaignScenario) importLarge() {
	b, t := s.b, s.t
	var sb strings.Builder
	sb.WriteString("linkedin_url,name,company\n")
	for i := range 3000 {
		fmt.Fprintf(&sb, "https://www.linkedin.com/in/bulk-%d,Bulk Person %d,Bulk Co\n", i, i)
	}
	b.open("/app/campaigns/" + s.campaignID)
	s.b.upload(s.dir, "large.csv", sb.String())
	text := b.waitText("rows decided")
	if strings.Contains(text, "Importing") {
		b.shot("import-progress")
	}
	testenv.Eventually(t, 60*time.Second, func() (bool, string) {
		text = b.text()
		return strings.Contains(text, "3,000 of 3,000 rows decided"), text
	})
	if !strings.Contains(text, "accepted 3,000") {
		t.Fatalf("the larger file: %s", text)
	}
}

// leads: the campaign's leads by verdict, with the filter's reason.
func (s *campaignScenario) leads() {
	b, t := s.b, s.t
	b.open("/app/campaigns/" + s.campaignID)
	b.click("//a[starts-with(normalize-space(.),'All leads')]")
	b.waitText("Page 1 of")
	b.click("//nav[@aria-label='Verdict']//a[normalize-space(.)='Rejected']")
	text := b.waitText("Hank Scorpio")
	if !strings.Contains(text, `company "Globex" matches excluded term "Globex"`) || strings.Contains(text, "Bulk Person") {
		t.Fatalf("the rejected leads: %s", text)
	}
	b.shot("leads")
}

// launch: the preview says what will happen, then the campaign runs and shows its sequence
// read only.
func (s *campaignScenario) launch() {
	b, t := s.b, s.t
	b.open("/app/campaigns/" + s.campaignID)
	b.click(button("Launch…"))
	text := strings.Join(strings.Fields(b.waitText("Here is what will happen")), " ")
	for _, want := range []string{"Sends from Sam Seller (connected) Ann Other (connected)", "shared among these seats", "Daily limit 15",
		"invite with a note, right away", "message, 3 days after the step before", "The first invitations go", "engine's clock", "It cannot be undone"} {
		if !strings.Contains(text, want) {
			t.Errorf("the launch preview lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "oldest seat") {
		t.Errorf("the preview sends from the oldest seat, not the two ticked:\n%s", text)
	}
	b.shot("launch")
	b.click(button("Launch campaign"))
	text = b.waitText("Campaign status changed.")
	if !strings.Contains(text, "Fixed since launch") || strings.Contains(text, "Add step") {
		t.Fatalf("the launched campaign's page: %s", text)
	}
	b.shot("campaign-active")
}
