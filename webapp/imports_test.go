package webapp_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
	"outreachd/webapp"
)

// upload posts a file to the Import leads form, as a browser does.
func (c *client) upload(path, name string, content []byte, headers ...string) page {
	c.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		c.t.Fatal(err)
	}
	_, _ = fw.Write(content)
	_ = mw.Close()
	req, err := http.NewRequest(http.MethodPost, c.base+path, &body)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.send(req, headers...)
}

// runImports runs the import worker for the rest of the test.
func (e *env) runImports() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = e.app.RunImports(ctx); close(done) }()
	e.t.Cleanup(func() { cancel(); <-done })
}

func TestImportLeads(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{MaxImportRows: 300, MaxImportBytes: 64 << 10, ImportPoll: 50 * time.Millisecond})
	e.runImports()
	ctx := context.Background()
	orgID, userID := e.org("ops@acme.test", "a long enough password")
	if err := e.store.SetOrgDefaultFilters(ctx, orgID, []byte(`{"companies":{"exclude":["Globex"]}}`)); err != nil {
		t.Fatal(err)
	}
	camp, err := e.store.CreateCampaign(ctx, orgID, storage.NewCampaign{Name: "Berlin founders", OutreachType: outreach.OutreachOutbound,
		DailyLimit: 20, Schedule: outreach.DefaultSchedule(), HardFilters: outreach.HardFilters{}})
	if err != nil {
		t.Fatal(err)
	}
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	path := "/app/campaigns/" + camp.ID + "/imports"

	p := c.get("/app/campaigns/" + camp.ID)
	if !strings.Contains(p.Body, `<label for="csv-file">CSV file</label>`) || !strings.Contains(p.Body, ">Import</button>") ||
		!strings.Contains(p.Body, `enctype="multipart/form-data"`) || !strings.Contains(p.Body, "At most 300 rows and 0 MB") {
		t.Fatalf("the campaign page lacks the import form:\n%s", p.Body)
	}

	csv := "Name,LinkedIn,Company,Notes\n" +
		"Ada Lovelace,https://www.linkedin.com/in/ada-imp,Analytical Engines,<script>alert(1)</script>\n" +
		"<img src=x onerror=alert(1)>,https://www.linkedin.com/in/img-imp,\"=HYPERLINK(\"\"\"\")\",@x\n" +
		"Hank,https://www.linkedin.com/in/hank-imp,Globex,\n" +
		"Nul,https://www.linkedin.com/in/nul-imp,Ac\x00me,\n" +
		"Ada twice,https://www.linkedin.com/in/ada-imp,Analytical Engines,\n"
	p = c.upload(path, "crm.csv", []byte(csv))
	if p.Status != http.StatusSeeOther || !strings.Contains(p.Header.Get("Location"), "/imports/imp_") {
		t.Fatalf("upload: %d %s", p.Status, alert(p.Body))
	}
	impPath := p.Header.Get("Location")
	var body string
	testenv.Eventually(t, 15*time.Second, func() (bool, string) {
		body = c.get(impPath).Body
		return strings.Contains(body, "Imported</h2>"), body
	})
	if strings.Contains(body, `http-equiv="refresh"`) {
		t.Fatal("a finished import still reloads itself")
	}
	for _, want := range []string{"received <b>5</b>", "accepted <b>2</b>", "rejected <b>2</b>", "unreadable <b>1</b>",
		`company &#34;Globex&#34; matches excluded term &#34;Globex&#34;`,
		`the cell in column &#34;Company&#34; holds a NUL character`,
		"same LinkedIn profile as row 2 of the file",
		"by ops@acme.test",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the import page lacks %s", want)
		}
	}
	imps, err := webapp.NewImports(e.store).ListLeadImports(ctx, orgID, camp.ID, 5)
	if err != nil || len(imps) != 1 || imps[0].UserID == nil || *imps[0].UserID != userID {
		t.Fatalf("the import is not recorded as the person's: %+v %v", imps, err)
	}
	// Hostile cells stay text: stored as written, shown escaped.
	leads, _, _, err := e.store.ListLeads(ctx, orgID, camp.ID, storage.LeadQuery{Source: outreach.SourceCSV, Limit: 10})
	if err != nil || len(leads) != 3 {
		t.Fatalf("leads: %d %v", len(leads), err)
	}
	found := false
	for _, l := range leads {
		if l.Name == "<img src=x onerror=alert(1)>" && *l.Company == `=HYPERLINK("")` && l.Data["Notes"] == "@x" {
			found = true
		}
	}
	if !found {
		t.Fatalf("the hostile row was not kept as written: %+v", leads)
	}
	p = c.get("/app/campaigns/" + camp.ID + "/leads")
	if strings.Contains(p.Body, "<img src=x") || !strings.Contains(p.Body, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Fatal("a lead's name is not escaped on the leads page")
	}

	refused := []struct {
		name    string
		content string
		status  int
		says    string
	}{
		{"no profile column", "name,company\nAda,Acme\n", http.StatusBadRequest, "no column names the LinkedIn profile"},
		{"too many rows", "linkedin_url\n" + strings.Repeat("https://www.linkedin.com/in/x\n", 301), http.StatusBadRequest, "more than 300 rows of leads"},
		{"too big", "linkedin_url\n" + strings.Repeat("x", 70<<10), http.StatusRequestEntityTooLarge, "larger than 0 MB"},
		{"UTF-16", "\xFF\xFEl\x00", http.StatusBadRequest, "UTF-16"},
	}
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) {
			p := c.upload(path, "f.csv", []byte(r.content))
			if p.Status != r.status || !strings.Contains(p.Body, r.says) || !strings.Contains(p.Body, `id="import-err"`) {
				t.Fatalf("%d %s", p.Status, alert(p.Body))
			}
		})
	}
	if p := c.post(path, nil); p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "Import leads form") {
		t.Fatalf("not a file upload: %d %s", p.Status, alert(p.Body))
	}
	if p := c.upload(path, "x.csv", []byte(csv), "Sec-Fetch-Site", "cross-site"); p.Status != http.StatusForbidden {
		t.Fatalf("a cross-site upload: %d", p.Status)
	}
	if imps, _ := webapp.NewImports(e.store).ListLeadImports(ctx, orgID, camp.ID, 5); len(imps) != 1 {
		t.Fatalf("refused uploads left %d imports", len(imps))
	}
	if _, err := e.store.SetCampaignStatus(ctx, camp.ID, outreach.CampaignActive); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.SetCampaignStatus(ctx, camp.ID, outreach.CampaignCompleted); err != nil {
		t.Fatal(err)
	}
	if p := c.upload(path, "late.csv", []byte(csv)); p.Status != http.StatusConflict || !strings.Contains(p.Body, "is completed and cannot take new leads") {
		t.Fatalf("import into a completed campaign: %d %s", p.Status, alert(p.Body))
	}
}

// TestImportProgressPage: while rows wait, the page says how far the import is and reloads itself.
func TestImportProgressPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{}) // no worker: the import stays running
	ctx := context.Background()
	orgID, _ := e.org("ops@acme.test", "a long enough password")
	camp, err := e.store.CreateCampaign(ctx, orgID, storage.NewCampaign{Name: "C", OutreachType: outreach.OutreachOutbound,
		DailyLimit: 20, Schedule: outreach.DefaultSchedule()})
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]webapp.ImportRow, 250)
	for i := range rows {
		rows[i] = webapp.ImportRow{Row: i + 2, Lead: outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/p" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)}}
	}
	imports := webapp.NewImports(e.store)
	imp, err := imports.CreateLeadImport(ctx, webapp.NewLeadImport{OrgID: orgID, CampaignID: camp.ID, FileName: "big.csv", Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	if did, err := imports.PushNextImportChunk(ctx); !did || err != nil {
		t.Fatal(did, err)
	}
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	p := c.get("/app/campaigns/" + camp.ID + "/imports/" + imp.ID)
	for _, want := range []string{`<meta http-equiv="refresh" content="2">`, `<progress max="250" value="100"`, "100 of 250 rows decided (40%)", "Importing…"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the running import's page lacks %s", want)
		}
	}
	if p := c.get("/app/campaigns/" + camp.ID + "/imports/imp_nope"); p.Status != http.StatusNotFound {
		t.Fatalf("an unknown import: %d", p.Status)
	}
	for _, path := range []string{"/imports/" + imp.ID + "?page=0", "/imports/" + imp.ID + "?page=1001", "/leads?page=x"} {
		if p := c.get("/app/campaigns/" + camp.ID + path); p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "is not a page number") {
			t.Errorf("%s: %d, want 400 saying it is not a page number", path, p.Status)
		}
	}
}
