package outreach

import (
	"fmt"
	"strings"
)

// Reasons a pushed lead is rejected at once (a push's rejected[].reason), in the order the
// rules of a push apply them (docs/api.md).
const (
	RejectInvalidLinkedInURL = "invalid_linkedin_url"
	RejectDuplicateInRequest = "duplicate_in_request"
	RejectBlacklisted        = "blacklisted"
	RejectInAnotherCampaign  = "already_in_another_campaign"
	RejectHardFilter         = "hard_filter"
)

// Enrichment statuses of a lead. Skipped marks a lead rejected by the filters at push time:
// nothing the enricher could learn would admit it, so it is never enriched.
const (
	EnrichmentPending  = "pending"
	EnrichmentDone     = "done"
	EnrichmentNotFound = "not_found"
	EnrichmentFailed   = "failed"
	EnrichmentSkipped  = "skipped"
)

// EnrichmentFinal reports whether a lead with this enrichment status has nothing left to
// learn, so its filters are judged with unknown fields as final.
func EnrichmentFinal(status string) bool {
	return status != EnrichmentPending && status != EnrichmentSkipped
}

// RejectedAtPush reports a lead the filters refused when it was pushed (it was never
// enriched). A re-send of it is answered with the same hard_filter rejection as the first
// time, so re-sending a call gives the same answer.
func RejectedAtPush(verdict, enrichment string) bool {
	return verdict == VerdictRejected && enrichment == EnrichmentSkipped
}

// Source labels for leads that carry no label of their own.
const (
	SourceAPI       = "api"
	SourceIntakeURL = "intake_url"
	SourceCSV       = "csv_import" // a file imported in the application
)

// Prospect statuses as the engine moves them:
// pending -> active (admitted) -> connection_sent (invited) -> connected -> messaged ->
// replied | opted_out (negative reply, blacklisted, blocked) | completed (sequence done or
// invite withdrawn). Inbound campaigns skip the invite.
const (
	ProspectPending        = "pending"
	ProspectActive         = "active"
	ProspectConnectionSent = "connection_sent"
	ProspectConnected      = "connected"
	ProspectMessaged       = "messaged"
	ProspectReplied        = "replied"
	ProspectOptedOut       = "opted_out"
	ProspectCompleted      = "completed"
)

// Facts are what the filters can see of a pushed lead before enrichment.
func (l LeadInput) Facts() Facts {
	return Facts{Company: nonBlank(l.Company), Role: nonBlank(l.Title), Location: nonBlank(l.Location), Headline: nonBlank(l.Headline)}
}

// CompanyBlacklistKeys are the do-not-contact keys a company as a client gives it matches:
// its company page when it is a linkedin.com/company/ link, else its normalized name.
func CompanyBlacklistKeys(company string) []string {
	company = strings.TrimSpace(company)
	if company == "" {
		return nil
	}
	if slug, ok := ParseCompanyURL(company); ok {
		return []string{"url:" + slug}
	}
	if n := NormalizeCompanyName(company); n != "" {
		return []string{"name:" + n}
	}
	return nil
}

// DoNotContactReason decides whether a lead is on the do-not-contact list and says why, in the
// words of a push's rejection message: by profile first, then by the first company key listed.
// listed answers for one entry (BlacklistAccount or BlacklistCompany, and its key).
func DoNotContactReason(listed func(typ, key string) bool, profileKey string, companyKeys []string) (string, bool) {
	if listed(BlacklistAccount, profileKey) {
		return "on the do-not-contact list by profile", true
	}
	for _, ck := range companyKeys {
		if listed(BlacklistCompany, ck) {
			if strings.HasPrefix(ck, "url:") {
				return "on the do-not-contact list by company page", true
			}
			return "on the do-not-contact list by company name", true
		}
	}
	return "", false
}

// InAnotherCampaignMessage is the message of an already_in_another_campaign rejection.
func InAnotherCampaignMessage(campaignID, campaignName string) string {
	return fmt.Sprintf("being worked in another campaign of the organization: %s (%s)", campaignID, campaignName)
}

func nonBlank(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}
