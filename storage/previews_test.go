package storage_test

import (
	"context"
	"errors"
	"testing"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// TestPreviewPushAgreesWithPush: the counts a proposal shows are what the push then does.
func TestPreviewPushAgreesWithPush(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org := testenv.StoreOrg(t, st)
	camp := leadCampaign(t, st, org, "draft", `{"roles":{"exclude":["intern"]}}`)
	busy := leadCampaign(t, st, org, "active", `{}`)
	push(t, st, org, camp, outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/here-already"})
	push(t, st, org, busy, outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/busy-elsewhere"})
	if _, err := st.AddBlacklist(ctx, org, []storage.BlacklistEntry{{Type: outreach.BlacklistCompany, Key: "name:" + outreach.NormalizeCompanyName("Acme"), Value: "Acme"}}); err != nil {
		t.Fatal(err)
	}
	req := pushReq(org, camp,
		outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/here-already"},
		outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/busy-elsewhere"},
		outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/acme-person", Company: "Acme"},
		outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/an-intern", Title: "Intern"},
		outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/fresh-one"},
		outreach.LeadInput{LinkedInURL: "https://www.linkedin.com/in/fresh-one"},
		outreach.LeadInput{LinkedInURL: "not a profile"})
	pv, err := st.PreviewPush(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want := storage.PushPreview{CampaignStatus: "draft", New: 2, FilteredOut: 1, AlreadyThere: 1, Blacklisted: 1, InAnotherCampaign: 1, Invalid: 2}
	pv.CampaignName = ""
	if pv != want {
		t.Fatalf("preview %+v, want %+v", pv, want)
	}
	if n := countProspects(t, st, camp); n != 1 {
		t.Fatalf("the preview wrote: %d prospects", n)
	}
	res, err := st.PushLeads(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	created, hardFilter := 0, 0
	for _, a := range res.Accepted {
		if a.Created {
			created++
		}
	}
	for _, r := range res.Rejected {
		if r.Reason == outreach.RejectHardFilter {
			hardFilter++
		}
	}
	if created != pv.New-pv.FilteredOut || hardFilter != pv.FilteredOut || res.Duplicates != pv.AlreadyThere ||
		len(res.Rejected) != pv.Blacklisted+pv.InAnotherCampaign+pv.Invalid+pv.FilteredOut {
		t.Fatalf("push %+v disagrees with preview %+v", res, pv)
	}
	if _, err := st.PreviewPush(ctx, pushReq(testenv.StoreOrg(t, st), camp, outreach.LeadInput{LinkedInURL: "x-y"})); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("another organization's campaign: %v", err)
	}
}
