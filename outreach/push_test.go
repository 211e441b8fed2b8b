package outreach

import (
	"strings"
	"testing"
	"time"
)

func TestPushScreen(t *testing.T) {
	s := NewPushScreen(SourceAPI)
	leads := []LeadInput{
		{LinkedInURL: "https://www.linkedin.com/in/ada-l", FirstName: "Ada", LastName: "Lovelace", Company: "Analytical"},
		{LinkedInURL: "not a url"},
		{LinkedInURL: "linkedin.com/in/Ada-L/", Source: "crm"}, // the same person as index 0
		{LinkedInURL: "grace-h", Name: "Grace Hopper", Source: "crm"},
		{LinkedInURL: "https://www.linkedin.com/in/" + strings.Repeat("x", 400)},
	}
	type result struct {
		ok     bool
		reason string
	}
	want := []result{{true, ""}, {false, RejectInvalidLinkedInURL}, {false, RejectDuplicateInRequest}, {true, ""}, {false, RejectInvalidLinkedInURL}}
	var cands []PushCandidate
	for i, in := range leads {
		c, refused, ok := s.Screen(i, in)
		if ok != want[i].ok {
			t.Fatalf("lead %d: ok %v, want %v (%+v)", i, ok, want[i].ok, refused.Rejected)
		}
		if !ok {
			r := refused.Rejected
			if r == nil || refused.Accepted != nil || r.Reason != want[i].reason || r.Index != i || r.LeadID != "" || r.Message == "" {
				t.Fatalf("lead %d: refused %+v, want %s", i, r, want[i].reason)
			}
			if len(r.Input) > maxEchoedInput+len("…") || !strings.HasPrefix(in.LinkedInURL, strings.TrimSuffix(r.Input, "…")) {
				t.Fatalf("lead %d: input echoed as %q", i, r.Input)
			}
			continue
		}
		cands = append(cands, c)
	}
	// A later duplicate points back at the first lead with that profile.
	if r := mustRefuse(t, s, 9, leads[3]); r.Reason != RejectDuplicateInRequest || !strings.Contains(r.Message, "at index 3 ") {
		t.Fatalf("duplicate of lead 3: %+v", r)
	}
	ada, grace := cands[0], cands[1]
	if ada.Name != "Ada Lovelace" || ada.Source != SourceAPI || ada.LinkedInID() != "ada-l" || len(ada.Company) != 1 {
		t.Fatalf("ada: %+v", ada)
	}
	if grace.Name != "Grace Hopper" || grace.Source != "crm" || grace.Company != nil {
		t.Fatalf("grace: %+v", grace)
	}
}

func mustRefuse(t *testing.T, s *PushScreen, index int, in LeadInput) RejectedLead {
	t.Helper()
	_, refused, ok := s.Screen(index, in)
	if ok || refused.Rejected == nil {
		t.Fatalf("lead %d was not refused", index)
	}
	return *refused.Rejected
}

// TestDecidePushLead: rules 3 to 6 apply in their order; the first that applies decides.
func TestDecidePushLead(t *testing.T) {
	filters, err := ParseHardFilters([]byte(`{"locations":{"include":["germany"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	s := NewPushScreen(SourceAPI)
	cand, _, ok := s.Screen(0, LeadInput{LinkedInURL: "ada-l", Company: "https://www.linkedin.com/company/acme", Location: "Paris"})
	if !ok {
		t.Fatal("setup: candidate refused")
	}
	listedProfile := func(typ, key string) bool { return typ == BlacklistAccount && key == "in:ada-l" }
	listedCompany := func(typ, key string) bool { return typ == BlacklistCompany && key == "url:acme" }
	none := func(string, string) bool { return false }
	other := &CampaignBlock{ID: "cmp_other", Name: "Other"}
	reason := "location \"Paris\" matches none of: germany"
	heldOK := &HeldLead{ID: "prs_held", LinkedInID: "ada-l", Name: "Ada", Verdict: VerdictAccepted, Enrichment: EnrichmentDone}
	heldRejected := &HeldLead{ID: "prs_rej", Verdict: VerdictRejected, Enrichment: EnrichmentSkipped, Reason: &reason}
	heldLaterRejected := &HeldLead{ID: "prs_late", LinkedInID: "ada-l", Verdict: VerdictRejected, Enrichment: EnrichmentDone}

	tests := []struct {
		name    string
		facts   PushFacts
		filters HardFilters
		reason  string // a refusal's reason; "" when accepted or saved
		leadID  string // the answer's lead id
		save    *NewLead
	}{
		{"blacklisted by profile beats everything", PushFacts{Listed: listedProfile, Other: other, Held: heldOK}, filters, RejectBlacklisted, "", nil},
		{"blacklisted by company page", PushFacts{Listed: listedCompany}, filters, RejectBlacklisted, "", nil},
		{"another campaign beats a held lead", PushFacts{Listed: none, Other: other, Held: heldOK}, filters, RejectInAnotherCampaign, "", nil},
		{"a held lead is accepted again", PushFacts{Listed: none, Held: heldOK}, filters, "", "prs_held", nil},
		{"a lead rejected at push gets the same answer", PushFacts{Listed: none, Held: heldRejected}, filters, RejectHardFilter, "prs_rej", nil},
		{"a lead rejected after enrichment is a duplicate", PushFacts{Listed: none, Held: heldLaterRejected}, filters, "", "prs_late", nil},
		{"a proven mismatch is saved rejected", PushFacts{Listed: none}, filters, "", "",
			&NewLead{Verdict: VerdictRejected, Reason: reason, Enrichment: EnrichmentSkipped}},
		{"otherwise saved pending", PushFacts{Listed: none}, HardFilters{}, "", "",
			&NewLead{Verdict: VerdictPending, Enrichment: EnrichmentPending}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DecidePushLead(cand, tt.facts, tt.filters)
			if tt.save != nil {
				if d.Save == nil || *d.Save != *tt.save || d.Answer != (PushAnswer{}) {
					t.Fatalf("got %+v, want to save %+v", d, tt.save)
				}
				return
			}
			if d.Save != nil {
				t.Fatalf("saved %+v, want an answer", d.Save)
			}
			a := d.Answer
			switch {
			case tt.reason != "":
				if a.Rejected == nil || a.Accepted != nil || a.Rejected.Reason != tt.reason || a.Rejected.LeadID != tt.leadID {
					t.Fatalf("answer %+v %+v, want %s", a.Rejected, a.Accepted, tt.reason)
				}
			default:
				if a.Accepted == nil || a.Rejected != nil || a.Accepted.LeadID != tt.leadID || a.Accepted.Created {
					t.Fatalf("answer %+v %+v, want accepted %s", a.Rejected, a.Accepted, tt.leadID)
				}
			}
		})
	}
	if d := DecidePushLead(cand, PushFacts{Listed: none, Other: other}, filters); !strings.Contains(d.Answer.Rejected.Message, "cmp_other (Other)") {
		t.Fatalf("the other campaign is not named: %q", d.Answer.Rejected.Message)
	}
}

func TestNewLeadAnswerAndEvent(t *testing.T) {
	s := NewPushScreen(SourceAPI)
	c, _, _ := s.Screen(4, LeadInput{LinkedInURL: "ada-l", Name: "Ada", Company: " Acme ", Title: "CTO", Location: "Paris"})
	camp := CampaignBlock{ID: "cmp_1", Name: "Spring"}
	at := time.Now()

	pending := NewLead{Verdict: VerdictPending, Enrichment: EnrichmentPending}
	if a := pending.Answer(c, "prs_1"); a.Accepted == nil || *a.Accepted != (AcceptedLead{Index: 4, LeadID: "prs_1", LinkedInID: "ada-l", Name: "Ada", Created: true}) {
		t.Fatalf("pending answer: %+v", a)
	}
	ev := pending.Event("org_1", c, "prs_1", "bat_1", camp, at)
	if err := ev.Validate(); err != nil || ev.Kind != EventProspectAdded || ev.Data.Prospect.Company != "Acme" ||
		ev.Data.Prospect.LinkedInURL != "https://www.linkedin.com/in/ada-l" || ev.Data.Campaign.Name != "Spring" {
		t.Fatalf("prospect_added: %v %+v", err, ev.Data.Prospect)
	}

	rejected := NewLead{Verdict: VerdictRejected, Reason: "location mismatch", Enrichment: EnrichmentSkipped}
	if a := rejected.Answer(c, "prs_2"); a.Rejected == nil || a.Rejected.Reason != RejectHardFilter || a.Rejected.LeadID != "prs_2" ||
		a.Rejected.Message != "location mismatch" {
		t.Fatalf("rejected answer: %+v", a)
	}
	ev = rejected.Event("org_1", c, "prs_2", "bat_1", camp, at)
	if err := ev.Validate(); err != nil || ev.Kind != EventLeadRejected || ev.Data.Lead.BatchID != "bat_1" || ev.Data.Lead.Reason != "location mismatch" {
		t.Fatalf("lead_rejected: %v %+v", err, ev.Data.Lead)
	}
}

func TestNewLeadVerdictEvent(t *testing.T) {
	pb := &ProspectBlock{Name: "Ada", LeadID: "prs_1"}
	camp := CampaignBlock{ID: "cmp_1", Name: "Spring"}
	tests := []struct {
		verdict Verdict
		kind    EventKind
		reason  string
	}{
		{Verdict{Verdict: VerdictAccepted}, EventLeadAccepted, ""},
		{Verdict{Verdict: VerdictRejected, Reason: "role excluded"}, EventLeadRejected, "role excluded"},
		{Verdict{Verdict: VerdictPending}, "", ""},
	}
	for _, tt := range tests {
		ev, ok := NewLeadVerdictEvent("org_1", pb, camp, "bat_1", tt.verdict, time.Now())
		if ok != (tt.kind != "") {
			t.Fatalf("%s: ok %v", tt.verdict.Verdict, ok)
		}
		if !ok {
			continue
		}
		if err := ev.Validate(); err != nil || ev.Kind != tt.kind || ev.Data.Lead.Reason != tt.reason || ev.Data.Lead.BatchID != "bat_1" {
			t.Fatalf("%s: %v %+v", tt.verdict.Verdict, err, ev.Data.Lead)
		}
	}
}

func TestClipInput(t *testing.T) {
	for _, s := range []string{"", "short", strings.Repeat("a", maxEchoedInput), strings.Repeat("a", maxEchoedInput+1),
		strings.Repeat("é", maxEchoedInput), strings.Repeat("a", maxEchoedInput-1) + "€€"} {
		got := clipInput(s)
		body := strings.TrimSuffix(got, "…")
		if len(body) > maxEchoedInput || !strings.HasPrefix(s, body) || (got == s) != (len(s) <= maxEchoedInput) {
			t.Errorf("clipInput(%d bytes) = %d bytes", len(s), len(got))
		}
	}
}
