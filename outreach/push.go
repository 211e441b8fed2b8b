package outreach

import "fmt"

// The rules of a push (POST /campaigns/{id}/leads, an intake URL), applied to each lead in this
// order; the first that applies decides:
//
//  1. invalid_linkedin_url: the lead names no usable LinkedIn profile;
//  2. duplicate_in_request: the same person as an earlier lead of the call;
//  3. blacklisted: on the do-not-contact list, by profile or by the pushed company;
//  4. already_in_another_campaign: being worked in another live campaign of the organization;
//  5. a re-send of a lead the campaign already holds is answered as the first time;
//  6. hard_filter: the pushed facts prove a mismatch with the campaign's filters; the lead is
//     saved as rejected and never enriched.
//
// Any other lead is saved pending, for enrichment to decide. Rules 1 and 2 need no database
// (PushScreen); the others are decided on what the database knows of each lead (DecidePushLead).

// AcceptedLead is a push's answer for a lead it holds; Created is false when the campaign held
// the lead already.
type AcceptedLead struct {
	Index      int // the lead's position in the request
	LeadID     string
	LinkedInID string
	Name       string
	Created    bool
}

// RejectedLead is a push's answer for a lead it refuses. Input echoes the lead's linkedin_url,
// cut to maxEchoedInput bytes; LeadID is set only for hard_filter, whose lead is saved.
type RejectedLead struct {
	Index   int
	Input   string
	Reason  string
	Message string
	LeadID  string
}

// PushAnswer is a push's answer for one lead: exactly one of Accepted and Rejected is set.
type PushAnswer struct {
	Accepted *AcceptedLead
	Rejected *RejectedLead
}

// PushCandidate is a lead of a push that passed the rules needing no database.
type PushCandidate struct {
	Index   int
	Input   LeadInput
	Profile Profile
	Name    string   // the name shown (LeadInput.FullName)
	Company []string // the do-not-contact keys of the pushed company (CompanyBlacklistKeys)
	Source  string   // the lead's own label, else the push's default
}

// LinkedInID is the lead's linkedin_id: its public handle, else its member id.
func (c PushCandidate) LinkedInID() string {
	if c.Profile.PublicIdentifier != "" {
		return c.Profile.PublicIdentifier
	}
	return c.Profile.MemberID
}

func (c PushCandidate) reject(reason, message, leadID string) PushAnswer {
	return PushAnswer{Rejected: &RejectedLead{Index: c.Index, Input: clipInput(c.Input.LinkedInURL), Reason: reason,
		Message: message, LeadID: leadID}}
}

// PushScreen applies the rules of a push that need no database, lead by lead in request order.
type PushScreen struct {
	defaultSource string
	firstAt       map[string]int // lead key -> index of the first lead of the call with it
	place         func(index int) string
}

// NewPushScreen screens one push whose leads without a label of their own get defaultSource.
func NewPushScreen(defaultSource string) *PushScreen {
	return NewPushScreenOf(defaultSource, func(i int) string { return fmt.Sprintf("the lead at index %d of this request", i) })
}

// NewPushScreenOf is NewPushScreen for leads that come from elsewhere than a request (the rows
// of a file): place names the lead at an index in a duplicate's message.
func NewPushScreenOf(defaultSource string, place func(index int) string) *PushScreen {
	return &PushScreen{defaultSource: defaultSource, firstAt: map[string]int{}, place: place}
}

// Screen checks the lead at index of the request: it is a candidate, or refused (ok false) with
// the answer.
func (s *PushScreen) Screen(index int, in LeadInput) (c PushCandidate, refused PushAnswer, ok bool) {
	c = PushCandidate{Index: index, Input: in}
	p, err := NormalizeProfile(in.LinkedInURL)
	if err != nil {
		return c, c.reject(RejectInvalidLinkedInURL, err.Error(), ""), false
	}
	if j, seen := s.firstAt[p.Key]; seen {
		return c, c.reject(RejectDuplicateInRequest, "same LinkedIn profile as "+s.place(j), ""), false
	}
	s.firstAt[p.Key] = index
	c.Profile, c.Name, c.Company, c.Source = p, in.FullName(), CompanyBlacklistKeys(in.Company), in.Source
	if c.Source == "" {
		c.Source = s.defaultSource
	}
	return c, PushAnswer{}, true
}

// PushFacts is what the database knows of a candidate when the push decides it.
type PushFacts struct {
	// Listed answers whether the organization's do-not-contact list has an entry (type, key).
	Listed func(typ, key string) bool
	// Other is another live campaign (draft, active or paused) of the organization where the
	// same person is being worked; nil for none.
	Other *CampaignBlock
	// Held is the lead the campaign already holds for the same person; nil for none.
	Held *HeldLead
}

// HeldLead is a lead a campaign already holds, as a re-send of it is answered.
type HeldLead struct {
	ID, LinkedInID, Name string
	Verdict, Enrichment  string
	Reason               *string // its stored filter reason
}

// Answer answers a re-send of the held lead: a lead the filters refused at push time gets the
// same hard_filter rejection as the first time, so re-sending a call gives the same answer;
// any other is accepted with created false.
func (h HeldLead) Answer(c PushCandidate) PushAnswer {
	if RejectedAtPush(h.Verdict, h.Enrichment) {
		msg := "excluded by the campaign's filters"
		if h.Reason != nil {
			msg = *h.Reason
		}
		return c.reject(RejectHardFilter, msg, h.ID)
	}
	return PushAnswer{Accepted: &AcceptedLead{Index: c.Index, LeadID: h.ID, LinkedInID: h.LinkedInID, Name: h.Name}}
}

// PushDecision is what a push does with a candidate: answer at once (Save nil), or save a new
// lead as Save says and answer with NewLead.Answer once its row exists.
type PushDecision struct {
	Answer PushAnswer
	Save   *NewLead
}

// DecidePushLead applies rules 3 to 6 to a candidate, in order, on the facts the database gave
// and the campaign's filters.
func DecidePushLead(c PushCandidate, f PushFacts, filters HardFilters) PushDecision {
	if msg, hit := DoNotContactReason(f.Listed, c.Profile.Key, c.Company); hit {
		return PushDecision{Answer: c.reject(RejectBlacklisted, msg, "")}
	}
	if f.Other != nil {
		return PushDecision{Answer: c.reject(RejectInAnotherCampaign, InAnotherCampaignMessage(f.Other.ID, f.Other.Name), "")}
	}
	if f.Held != nil {
		return PushDecision{Answer: f.Held.Answer(c)}
	}
	save := NewLead{Verdict: VerdictPending, Enrichment: EnrichmentPending}
	if v := filters.Evaluate(c.Input.Facts(), false); v.Verdict == VerdictRejected {
		save = NewLead{Verdict: VerdictRejected, Reason: v.Reason, Enrichment: EnrichmentSkipped}
	}
	return PushDecision{Save: &save}
}

// NewLead is how a push saves a new lead: pending for enrichment, or rejected at once when the
// pushed facts prove a mismatch with the campaign's filters (Reason says which; nothing
// enrichment could learn would admit it, so it is skipped).
type NewLead struct {
	Verdict    string
	Reason     string
	Enrichment string
}

// Answer is the push's answer for the lead saved as n with id leadID.
func (n NewLead) Answer(c PushCandidate, leadID string) PushAnswer {
	if n.Verdict == VerdictRejected {
		return c.reject(RejectHardFilter, n.Reason, leadID)
	}
	return PushAnswer{Accepted: &AcceptedLead{Index: c.Index, LeadID: leadID, LinkedInID: c.LinkedInID(), Name: c.Name, Created: true}}
}

// maxEchoedInput bounds the input a rejection echoes: it names the input, it need not repeat
// 2 KB of it.
const maxEchoedInput = 300

// clipInput cuts s to maxEchoedInput bytes at a character boundary, marking the cut with "…".
func clipInput(s string) string {
	if len(s) <= maxEchoedInput {
		return s
	}
	cut := maxEchoedInput
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not the first byte of a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
