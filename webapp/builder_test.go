package webapp_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"outreachd/outreach"
	"outreachd/storage"
	"outreachd/webapp"
)

// form is a builder form as the page sends it, steps as type, wait, text.
var form = webapp.BuilderValues

var stepTexts = regexp.MustCompile(`(?s)<textarea id="s[0-9]+-text" name="step_text"[^>]*>(.*?)</textarea>`)

var tickedSeats = regexp.MustCompile(`<input type="checkbox" name="seats" value="(acc_[^"]+)" checked>`)

// ticked are the seats a builder page ticks, in order.
func ticked(body string) []string {
	var out []string
	for _, m := range tickedSeats.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// texts are the steps' texts of a builder page, in order.
func texts(body string) []string {
	var out []string
	for _, m := range stepTexts.FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

func TestBuilderPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{})
	ctx := context.Background()
	orgID, _ := e.org("ops@acme.test", "a long enough password")
	if err := e.store.SetOrgDefaultFilters(ctx, orgID, []byte(`{"companies":{"exclude":["Globex"]}}`)); err != nil {
		t.Fatal(err)
	}
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")

	p := c.get("/app/campaigns/new")
	if p.Status != http.StatusOK || !strings.Contains(p.Body, `<label for="b-name">Name</label>`) || !strings.Contains(p.Body, ">Add step</button>") ||
		!strings.Contains(p.Body, `name="f_companies_exclude" rows="2">Globex</textarea>`) || !strings.Contains(p.Body, "No LinkedIn account is connected to this organization yet") {
		t.Fatalf("New campaign: %d\n%s", p.Status, p.Body)
	}

	// Without script the step buttons post the form; the page comes back changed, as typed.
	two := [][3]string{{"invite", "0", "Hi {{first_name}} <b>"}, {"message", "2", "Thanks"}}
	p = c.post("/app/campaigns/new", form("add", two...))
	if got := texts(p.Body); p.Status != http.StatusOK || len(got) != 3 || got[0] != "Hi {{first_name}} <b>" || !strings.Contains(p.Body, "Not saved yet") ||
		!strings.Contains(p.Body, `value="Berlin founders"`) {
		t.Fatalf("add: %d %q", p.Status, got)
	}
	if strings.Contains(p.Body, "Hi Ada <b>") || !strings.Contains(p.Body, "Hi Ada &lt;b&gt;") {
		t.Fatal("the preview is not escaped")
	}
	if got := texts(c.post("/app/campaigns/new", form("down:0", two...)).Body); len(got) != 2 || got[0] != "Thanks" {
		t.Fatalf("down: %q", got)
	}
	if n, err := e.store.ListCampaigns(ctx, orgID); err != nil || len(n) != 0 {
		t.Fatalf("a step button saved something: %d %v", len(n), err)
	}

	// Save refused: the API's status and words, next to the filters; the form as typed.
	bad := form("save", two...)
	bad.Set("f_company_size_min", "500")
	bad.Set("f_company_size_max", "50")
	p = c.post("/app/campaigns/new", bad)
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, `id="filters-err">meta.hard_filters: company_size.min (500) is greater than company_size.max (50), so nobody can pass it`) ||
		!strings.Contains(p.Body, `value="500"`) || len(texts(p.Body)) != 2 {
		t.Fatalf("impossible filter: %d %s", p.Status, alert(p.Body))
	}
	bad = form("save", two...)
	bad["step_type"][1] = "invite"
	p = c.post("/app/campaigns/new", bad)
	if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "sequence[1] is a connect step; the connection request can only be the first step") ||
		!strings.Contains(p.Body, `href="#step-2"`) {
		t.Fatalf("invite second: %d %s", p.Status, alert(p.Body))
	}

	if p := c.do(http.MethodPost, "/app/campaigns/new", form("save", two...), "Sec-Fetch-Site", "cross-site"); p.Status != http.StatusForbidden {
		t.Fatalf("a cross-site save: %d", p.Status)
	}

	// Saved: a draft with the organization's defaults merged in, as POST /campaigns makes it.
	sam, ann := e.seat(orgID, "Sam Seller"), e.seat(orgID, "Ann Other")
	good := form("save", two...)
	good["seats"] = []string{sam, ann}
	p = c.post("/app/campaigns/new", good)
	if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/app/campaigns/cmp_") {
		t.Fatalf("save: %d %s", p.Status, alert(p.Body))
	}
	id := strings.TrimSuffix(strings.TrimPrefix(p.Header.Get("Location"), "/app/campaigns/"), "?done=created")
	camp, err := e.store.GetCampaign(ctx, orgID, id)
	if err != nil {
		t.Fatal(err)
	}
	if camp.Status != outreach.CampaignDraft || len(camp.Sequence) != 2 || camp.Sequence[0].Type != outreach.StepConnect ||
		camp.HardFilters.Companies == nil || !slices.Equal(camp.AccountIDs, []string{sam, ann}) || camp.Schedule.StartTime != "09:00" {
		t.Fatalf("saved: %+v", camp)
	}

	// The draft's page edits it, both seats ticked, and the launch preview names both.
	p = c.get("/app/campaigns/" + id)
	if !strings.Contains(p.Body, `action="/app/campaigns/`+id+`/edit"`) || len(texts(p.Body)) != 2 || !strings.Contains(p.Body, ">Save</button>") {
		t.Fatal("the draft's page is not its builder")
	}
	if got := ticked(p.Body); !slices.Equal(got, []string{sam, ann}) {
		t.Fatalf("the draft's page ticks %q, want Sam's and Ann's seats %q", got, []string{sam, ann})
	}
	if !strings.Contains(p.Body, "None ticked: the organization's oldest seat (Sam Seller today).") {
		t.Fatalf("the builder does not say what no seat ticked means:\n%s", p.Body)
	}
	p = c.post("/app/campaigns/"+id+"/status", url.Values{"status": {"active"}})
	if !strings.Contains(p.Body, "<li>Sam Seller (connected)</li><li>Ann Other (connected)</li>") || !strings.Contains(p.Body, ">Launch campaign</button>") {
		t.Fatalf("the launch preview does not name both seats:\n%s", p.Body)
	}

	// A seat of another organization, or a name where a seat's id belongs, is refused next to
	// Send from with the API's words, the organization's seats ticked as posted.
	otherOrg, _ := e.org("ops@other.test", "a long enough password")
	foreign := e.seat(otherOrg, "Their Seller")
	bad = form("save", two...)
	bad["seats"] = []string{ann, foreign}
	p = c.post("/app/campaigns/"+id+"/edit", bad)
	if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, `id="b-seats-err">account_ids[1] `+foreign+` is not a LinkedIn account of this organization`) ||
		!slices.Equal(ticked(p.Body), []string{ann}) || strings.Contains(p.Body, "Their Seller") {
		t.Fatalf("a foreign seat: %d %s", p.Status, alert(p.Body))
	}
	bad["seats"] = []string{"Sam Seller"}
	if p := c.post("/app/campaigns/"+id+"/edit", bad); p.Status != http.StatusBadRequest ||
		!strings.Contains(p.Body, `id="b-seats-err">account_ids[0] &#34;Sam Seller&#34; is not a LinkedIn account id`) {
		t.Fatalf("a seat by name: %d %s", p.Status, alert(p.Body))
	}
	if camp, _ = e.store.GetCampaign(ctx, orgID, id); !slices.Equal(camp.AccountIDs, []string{sam, ann}) {
		t.Fatalf("a refused edit changed the seats: %q", camp.AccountIDs)
	}
	edit := form("save", [3]string{"message", "1", "Only a message"})
	edit.Set("name", "Renamed")
	if p := c.post("/app/campaigns/"+id+"/edit", edit); p.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", p.Status, alert(p.Body))
	}
	if camp, _ = e.store.GetCampaign(ctx, orgID, id); camp.Name != "Renamed" || len(camp.Sequence) != 1 || len(camp.AccountIDs) != 0 {
		t.Fatalf("edited: %+v", camp)
	}
	if p := c.post("/app/campaigns/"+id+"/edit", form("remove:0", [3]string{"message", "1", "x"})); p.Status != http.StatusOK || len(texts(p.Body)) != 0 {
		t.Fatalf("remove on the draft's page: %d", p.Status)
	}

	// Duplicate: the same rule as the API's.
	p = c.post("/app/campaigns/"+id+"/duplicate", nil)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("duplicate: %d", p.Status)
	}
	list, _ := e.store.ListCampaigns(ctx, orgID)
	if len(list) != 2 || list[0].Name != "Renamed (copy)" || list[0].Status != outreach.CampaignDraft {
		t.Fatalf("after duplicate: %+v", list)
	}

	// A launched campaign shows its sequence read only and is not edited.
	if _, err := e.store.SetCampaignStatus(ctx, id, outreach.CampaignActive); err != nil {
		t.Fatal(err)
	}
	p = c.get("/app/campaigns/" + id)
	if strings.Contains(p.Body, "/edit\"") || !strings.Contains(p.Body, "Fixed since launch") || !strings.Contains(p.Body, "Only a message") {
		t.Fatal("a launched campaign's page offers its builder")
	}
	p = c.post("/app/campaigns/"+id+"/edit", edit)
	if p.Status != http.StatusConflict || !strings.Contains(p.Body, "only a draft can be edited") {
		t.Fatalf("edit a launched campaign: %d %s", p.Status, alert(p.Body))
	}

	// A draft listing both seats the other way round (made through the API) shows both ticked,
	// in the organization's order, which is the order the builder saves.
	api, err := e.store.CreateCampaign(ctx, orgID, storage.NewCampaign{Name: "Through the API", OutreachType: outreach.OutreachOutbound,
		DailyLimit: 20, Schedule: outreach.DefaultSchedule(), AccountIDs: []string{ann, sam}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ticked(c.get("/app/campaigns/" + api.ID).Body); !slices.Equal(got, []string{sam, ann}) {
		t.Fatalf("the API's draft ticks %q, want both seats %q", got, []string{sam, ann})
	}
}

// TestCampaignPagesOfAnotherOrganization: every new page and action answers 404 for another
// organization's campaign, and changes nothing.
func TestCampaignPagesOfAnotherOrganization(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{})
	ctx := context.Background()
	orgA, _ := e.org("a@acme.test", "a long enough password")
	e.org("b@other.test", "a long enough password")
	camp, err := e.store.CreateCampaign(ctx, orgA, storage.NewCampaign{Name: "A's", OutreachType: outreach.OutreachOutbound,
		DailyLimit: 20, Schedule: outreach.DefaultSchedule()})
	if err != nil {
		t.Fatal(err)
	}
	imp, err := webapp.NewImports(e.store).CreateLeadImport(ctx, webapp.NewLeadImport{OrgID: orgA, CampaignID: camp.ID, FileName: "a.csv",
		Problems: []webapp.ImportProblem{{Row: 2, Named: "secret person", Reason: webapp.ReasonUnreadable, Message: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := e.client()
	c.mustLogin("b@other.test", "a long enough password")
	base := "/app/campaigns/" + camp.ID
	for _, r := range []struct {
		method, path string
		form         url.Values
	}{
		{"POST", base + "/edit", form("save")},
		{"POST", base + "/edit", form("add")},
		{"POST", base + "/duplicate", url.Values{}},
		{"POST", base + "/imports", url.Values{}},
		{"GET", base + "/imports/" + imp.ID, nil},
		{"GET", base + "/leads", nil},
		{"POST", base + "/status", url.Values{"status": {"active"}}},
	} {
		p := c.do(r.method, r.path, r.form)
		if p.Status != http.StatusNotFound || strings.Contains(p.Body, "secret person") || strings.Contains(p.Body, "A&#39;s") {
			t.Errorf("%s %s: %d", r.method, r.path, p.Status)
		}
	}
	if list, _ := e.store.ListCampaigns(ctx, orgA); len(list) != 1 || list[0].Name != "A's" || list[0].Status != outreach.CampaignDraft {
		t.Fatalf("another organization changed A's campaigns: %+v", list)
	}
}
