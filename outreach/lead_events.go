package outreach

import (
	"strings"
	"time"
)

// Event is the event of the lead saved as n with id leadID, by a push of batchID to campaign:
// prospect_added for a pending lead, or lead_rejected for one the filters refused (its verdict
// is final, and an intake URL's sender reads no response).
func (n NewLead) Event(orgID string, c PushCandidate, leadID, batchID string, campaign CampaignBlock, at time.Time) Event {
	in := c.Input
	pb := &ProspectBlock{Name: c.Name, LinkedInURL: c.Profile.URL, LinkedInID: c.LinkedInID(), LeadID: leadID,
		Company: strings.TrimSpace(in.Company), JobTitle: strings.TrimSpace(in.Title), Location: strings.TrimSpace(in.Location),
		Headline: strings.TrimSpace(in.Headline)}
	if n.Verdict == VerdictRejected {
		return NewEvent(EventLeadRejected, orgID, at, EventData{Prospect: pb, Campaign: &campaign,
			Lead: &LeadBlock{BatchID: batchID, Reason: n.Reason}})
	}
	return NewEvent(EventProspectAdded, orgID, at, EventData{Prospect: pb, Campaign: &campaign})
}

// NewLeadVerdictEvent is the event of the verdict enrichment reached on a pushed lead of batchID:
// lead_accepted, or lead_rejected with the filter reason; none (ok false) for a verdict still
// pending.
func NewLeadVerdictEvent(orgID string, prospect *ProspectBlock, campaign CampaignBlock, batchID string, v Verdict, at time.Time) (Event, bool) {
	data := EventData{Prospect: prospect, Campaign: &campaign, Lead: &LeadBlock{BatchID: batchID}}
	switch v.Verdict {
	case VerdictAccepted:
		return NewEvent(EventLeadAccepted, orgID, at, data), true
	case VerdictRejected:
		data.Lead.Reason = v.Reason
		return NewEvent(EventLeadRejected, orgID, at, data), true
	}
	return Event{}, false
}
