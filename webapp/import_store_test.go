package webapp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
	"outreachd/webapp"
)

func importRows(from, n int, url func(i int) string) []webapp.ImportRow {
	rows := make([]webapp.ImportRow, n)
	for i := range rows {
		u := url(from + i)
		rows[i] = webapp.ImportRow{Row: from + i, Named: u, Lead: outreach.LeadInput{LinkedInURL: u, Name: fmt.Sprintf("Person %d", from+i),
			Title: "CTO", Data: map[string]any{"Lead Score": "7"}}}
	}
	return rows
}

// importOrg is a fresh organization.
func importOrg(t *testing.T, st *storage.Store) string {
	t.Helper()
	o, err := st.CreateOrg(context.Background(), "Org "+t.Name(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// importFixture is a fresh database with the imports on it, an organization and its campaign in
// status with the hard filters given (JSON), written as a row.
func importFixture(t *testing.T, status, filters string) (st *storage.Store, imports *webapp.Imports, org, camp string) {
	t.Helper()
	st = testenv.Store(t)
	org = importOrg(t, st)
	camp = outreach.NewID("cmp")
	if _, err := st.Pool().Exec(context.Background(), `INSERT INTO campaigns (id, org_id, name, status, schedule, hard_filters)
		VALUES ($1, $2, $3, $4, '{}', $5)`, camp, org, "Campaign "+camp[len(camp)-4:], status, filters); err != nil {
		t.Fatal(err)
	}
	return st, webapp.NewImports(st), org, camp
}

// drainImports pushes chunks until none is left and returns how many it pushed.
func drainImports(t *testing.T, imports *webapp.Imports) int {
	t.Helper()
	n := 0
	for {
		did, err := imports.PushNextImportChunk(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !did {
			return n
		}
		n++
	}
}

// TestLeadImport: a file's rows go through the rules of a push 100 at a time, each chunk in its
// own transaction with the import's progress; what was refused is kept row by row.
func TestLeadImport(t *testing.T) {
	t.Parallel()
	st, imports, org, camp := importFixture(t, "draft", `{"roles":{"exclude":["intern"]}}`)
	ctx := context.Background()
	held, err := st.PushLeads(ctx, storage.PushRequest{OrgID: org, CampaignID: camp, BatchID: outreach.NewID("bat"),
		DefaultSource: outreach.SourceAPI, Leads: []storage.PushLead{{Input: outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/p-5", Name: "Held"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(held.Accepted) != 1 {
		t.Fatalf("held: %+v", held)
	}
	p7, err := outreach.NormalizeProfile("https://www.linkedin.com/in/p-7")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddBlacklist(ctx, org, []storage.BlacklistEntry{{Type: outreach.BlacklistAccount, Key: p7.Key, Value: "p-7"}}); err != nil {
		t.Fatal(err)
	}
	rows := importRows(2, 250, func(i int) string { return fmt.Sprintf("https://www.linkedin.com/in/p-%d", i) })
	rows[10].Lead.Title = "Intern" // row 12
	imp, err := imports.CreateLeadImport(ctx, webapp.NewLeadImport{OrgID: org, CampaignID: camp, FileName: "crm.csv",
		Rows: rows, Notes: []string{"a note"},
		Problems: []webapp.ImportProblem{{Row: 252, Named: "Nobody", Reason: webapp.ReasonUnreadable, Message: "row has no LinkedIn profile"},
			{Row: 253, Named: "https://www.linkedin.com/in/p-2", Reason: outreach.RejectDuplicateInRequest, Message: "same LinkedIn profile as row 2 of the file"}}})
	if err != nil {
		t.Fatal(err)
	}
	if imp.Status != webapp.ImportRunning || imp.Received != 252 || imp.Processed != 2 || imp.Unreadable != 1 || imp.Rejected != 1 {
		t.Fatalf("created: %+v", imp)
	}
	if n := drainImports(t, imports); n != 3 {
		t.Fatalf("%d chunks pushed, want 3 of at most 100 rows", n)
	}
	got, err := imports.GetLeadImport(ctx, org, imp.ID)
	if err != nil {
		t.Fatal(err)
	}
	// 250 pushed: p-5 already held (a duplicate, accepted), p-7 on the do-not-contact list,
	// row 12 an intern (rejected by the filters but kept as a lead).
	if got.Status != webapp.ImportDone || got.Processed != 252 || got.Accepted != 248 || got.Duplicates != 1 ||
		got.Rejected != 3 || got.Unreadable != 1 || got.FinishedAt == nil || strings.Join(got.Notes, "") != "a note" {
		t.Fatalf("done: %+v", got)
	}
	problems, total, err := imports.LeadImportProblems(ctx, org, imp.ID, 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []webapp.ImportProblem{
		{Row: 7, Named: "https://www.linkedin.com/in/p-7", Reason: outreach.RejectBlacklisted, Message: "on the do-not-contact list by profile"},
		{Row: 12, Named: "https://www.linkedin.com/in/p-12", Reason: outreach.RejectHardFilter, Message: `role "Intern" matches excluded term "intern"`},
		{Row: 252, Named: "Nobody", Reason: webapp.ReasonUnreadable, Message: "row has no LinkedIn profile"},
		{Row: 253, Named: "https://www.linkedin.com/in/p-2", Reason: outreach.RejectDuplicateInRequest, Message: "same LinkedIn profile as row 2 of the file"},
	}
	if total != 4 || fmt.Sprint(problems) != fmt.Sprint(want) {
		t.Fatalf("problems (%d):\n%v\nwant\n%v", total, problems, want)
	}
	leads, n, _, err := st.ListLeads(ctx, org, camp, storage.LeadQuery{BatchID: imp.ID, Source: "all", Limit: 1})
	if err != nil || n != 248 || leads[0].Source != outreach.SourceCSV || leads[0].Data["Lead Score"] != "7" {
		t.Fatalf("the import's leads: %d %+v %v", n, leads, err)
	}
	var left int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM lead_import_rows`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d rows left to push (%v)", left, err)
	}
	if _, err := imports.GetLeadImport(ctx, importOrg(t, st), imp.ID); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("another organization reads the import: %v", err)
	}
	if _, n, err := imports.LeadImportProblems(ctx, importOrg(t, st), imp.ID, 50, 0); err != nil || n != 0 {
		t.Fatalf("another organization reads the problems: %d %v", n, err)
	}
}

// TestLeadImportClosedCampaign: a campaign completed while its file is imported ends the
// import as failed with the push's words; one closed before is refused at once.
func TestLeadImportClosedCampaign(t *testing.T) {
	t.Parallel()
	st, imports, org, camp := importFixture(t, "active", `{}`)
	ctx := context.Background()
	rows := importRows(2, 150, func(i int) string { return fmt.Sprintf("https://www.linkedin.com/in/c-%d", i) })
	imp, err := imports.CreateLeadImport(ctx, webapp.NewLeadImport{OrgID: org, CampaignID: camp, FileName: "a.csv", Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	if did, err := imports.PushNextImportChunk(ctx); !did || err != nil {
		t.Fatalf("first chunk: %v %v", did, err)
	}
	if _, err := st.SetCampaignStatus(ctx, camp, outreach.CampaignCompleted); err != nil {
		t.Fatal(err)
	}
	drainImports(t, imports)
	got, _ := imports.GetLeadImport(ctx, org, imp.ID)
	if got.Status != webapp.ImportFailed || got.Accepted != 100 || got.Error == nil || !strings.Contains(*got.Error, "is completed and cannot take new leads") {
		t.Fatalf("failed import: %+v %v", got, got.Error)
	}
	// Refused in the push's own words, which the campaign's page shows as they are.
	_, err = imports.CreateLeadImport(ctx, webapp.NewLeadImport{OrgID: org, CampaignID: camp, FileName: "b.csv", Rows: rows})
	if !errors.Is(err, outreach.ErrCampaignClosed) || !strings.HasPrefix(err.Error(), "campaign "+camp+" is completed") {
		t.Fatalf("import into a completed campaign: %v", err)
	}
	_, err = imports.CreateLeadImport(ctx, webapp.NewLeadImport{OrgID: org, CampaignID: "cmp_gone", FileName: "c.csv", Rows: rows})
	if !errors.Is(err, outreach.ErrNotFound) || !strings.HasPrefix(err.Error(), "campaign cmp_gone") {
		t.Fatalf("import into a campaign that does not exist: %v", err)
	}
}
