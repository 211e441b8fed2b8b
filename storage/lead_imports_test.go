package storage_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

func importRows(from, n int, url func(i int) string) []storage.ImportRow {
	rows := make([]storage.ImportRow, n)
	for i := range rows {
		u := url(from + i)
		rows[i] = storage.ImportRow{Row: from + i, Named: u, Lead: outreach.LeadInput{LinkedInURL: u, Name: fmt.Sprintf("Person %d", from+i),
			Title: "CTO", Data: map[string]any{"Lead Score": "7"}}}
	}
	return rows
}

// drainImports pushes chunks until none is left and returns how many it pushed.
func drainImports(t *testing.T, st *storage.Store) int {
	t.Helper()
	n := 0
	for {
		did, err := st.PushNextImportChunk(context.Background())
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
	st := testenv.Store(t)
	ctx := context.Background()
	org := newOrg(t, st)
	camp := leadCampaign(t, st, org, "draft", `{"roles":{"exclude":["intern"]}}`)
	held := push(t, st, org, camp, outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/p-5", Name: "Held"})
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
	imp, err := st.CreateLeadImport(ctx, storage.NewLeadImport{OrgID: org, CampaignID: camp, FileName: "crm.csv",
		Rows: rows, Notes: []string{"a note"},
		Problems: []storage.ImportProblem{{Row: 252, Named: "Nobody", Reason: storage.ReasonUnreadable, Message: "row has no LinkedIn profile"},
			{Row: 253, Named: "https://www.linkedin.com/in/p-2", Reason: outreach.RejectDuplicateInRequest, Message: "same LinkedIn profile as row 2 of the file"}}})
	if err != nil {
		t.Fatal(err)
	}
	if imp.Status != storage.ImportRunning || imp.Received != 252 || imp.Processed != 2 || imp.Unreadable != 1 || imp.Rejected != 1 {
		t.Fatalf("created: %+v", imp)
	}
	if n := drainImports(t, st); n != 3 {
		t.Fatalf("%d chunks pushed, want 3 of at most 100 rows", n)
	}
	got, err := st.GetLeadImport(ctx, org, imp.ID)
	if err != nil {
		t.Fatal(err)
	}
	// 250 pushed: p-5 already held (a duplicate, accepted), p-7 on the do-not-contact list,
	// row 12 an intern (rejected by the filters but kept as a lead).
	if got.Status != storage.ImportDone || got.Processed != 252 || got.Accepted != 248 || got.Duplicates != 1 ||
		got.Rejected != 3 || got.Unreadable != 1 || got.FinishedAt == nil || strings.Join(got.Notes, "") != "a note" {
		t.Fatalf("done: %+v", got)
	}
	problems, total, err := st.LeadImportProblems(ctx, org, imp.ID, 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []storage.ImportProblem{
		{Row: 7, Named: "https://www.linkedin.com/in/p-7", Reason: outreach.RejectBlacklisted, Message: "on the do-not-contact list by profile"},
		{Row: 12, Named: "https://www.linkedin.com/in/p-12", Reason: outreach.RejectHardFilter, Message: `role "Intern" matches excluded term "intern"`},
		{Row: 252, Named: "Nobody", Reason: storage.ReasonUnreadable, Message: "row has no LinkedIn profile"},
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
	if _, err := st.GetLeadImport(ctx, newOrg(t, st), imp.ID); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("another organization reads the import: %v", err)
	}
	if _, n, err := st.LeadImportProblems(ctx, newOrg(t, st), imp.ID, 50, 0); err != nil || n != 0 {
		t.Fatalf("another organization reads the problems: %d %v", n, err)
	}
}

// TestLeadImportClosedCampaign: a campaign completed while its file is imported ends the
// import as failed with the push's words; one closed before is refused at once.
func TestLeadImportClosedCampaign(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org := newOrg(t, st)
	camp := leadCampaign(t, st, org, "active", `{}`)
	rows := importRows(2, 150, func(i int) string { return fmt.Sprintf("https://www.linkedin.com/in/c-%d", i) })
	imp, err := st.CreateLeadImport(ctx, storage.NewLeadImport{OrgID: org, CampaignID: camp, FileName: "a.csv", Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	if did, err := st.PushNextImportChunk(ctx); !did || err != nil {
		t.Fatalf("first chunk: %v %v", did, err)
	}
	if _, err := st.SetCampaignStatus(ctx, camp, outreach.CampaignCompleted); err != nil {
		t.Fatal(err)
	}
	drainImports(t, st)
	got, _ := st.GetLeadImport(ctx, org, imp.ID)
	if got.Status != storage.ImportFailed || got.Accepted != 100 || got.Error == nil || !strings.Contains(*got.Error, "is completed and cannot take new leads") {
		t.Fatalf("failed import: %+v %v", got, got.Error)
	}
	if _, err := st.CreateLeadImport(ctx, storage.NewLeadImport{OrgID: org, CampaignID: camp, FileName: "b.csv", Rows: rows}); !errors.Is(err, outreach.ErrCampaignClosed) {
		t.Fatalf("import into a completed campaign: %v", err)
	}
}
