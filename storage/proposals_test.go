package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// TestClaimProposalOnce races confirmations of one proposal: exactly one claims it; the others,
// a later one, another organization's and an expired proposal's are told why not.
func TestClaimProposalOnce(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org, other := newOrg(t, st), newOrg(t, st)
	now := time.Now()
	p, err := st.CreateProposal(ctx, storage.Proposal{OrgID: org, ProposedBy: "key:key_x", Tool: "create_campaign",
		Arguments: json.RawMessage(`{"name":"x"}`), Summary: "create x", ExpiresAt: now.Add(15 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ClaimProposal(ctx, other, p.ID, "key:key_o", now); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("another organization's claim: %v", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, lost := 0, 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := st.ClaimProposal(ctx, org, p.ID, "key:key_y", now)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && got.Tool == "create_campaign" && string(got.Arguments) == `{"name": "x"}`:
				won++
			case errors.Is(err, storage.ErrProposalConfirmed):
				lost++
			default:
				t.Errorf("claim: %+v %v", got, err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || lost != 7 {
		t.Fatalf("won %d, lost %d; want exactly one claim", won, lost)
	}

	old, err := st.CreateProposal(ctx, storage.Proposal{OrgID: org, ProposedBy: "key:key_x", Tool: "create_campaign",
		Arguments: json.RawMessage(`{}`), Summary: "s", ExpiresAt: now.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ClaimProposal(ctx, org, old.ID, "key:key_y", now.Add(2*time.Minute)); !errors.Is(err, storage.ErrProposalExpired) {
		t.Fatalf("expired claim: %v", err)
	}
}

// TestPreviewPushAgreesWithPush: the counts a proposal shows are what the push then does.
func TestPreviewPushAgreesWithPush(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org := newOrg(t, st)
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
	if _, err := st.PreviewPush(ctx, pushReq(newOrg(t, st), camp, outreach.LeadInput{LinkedInURL: "x-y"})); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("another organization's campaign: %v", err)
	}
}

func TestPruneProposals(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org := newOrg(t, st)
	now := time.Now()
	for _, exp := range []time.Time{now.Add(-storage.ProposalRetention - time.Hour), now.Add(-time.Hour), now.Add(time.Hour)} {
		if _, err := st.CreateProposal(ctx, storage.Proposal{OrgID: org, ProposedBy: "key:k", Tool: "t",
			Arguments: json.RawMessage(`{}`), Summary: "s", ExpiresAt: exp}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := st.PruneProposals(ctx, now.Add(-storage.ProposalRetention)); err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want the one expired over 30 days ago", n, err)
	}
}
