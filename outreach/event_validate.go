package outreach

import (
	"slices"
	"time"
)

// Validate checks an event against the catalog before it enters the outbox, so a producer's
// mistake fails its own transaction instead of reaching every receiver. It checks the envelope,
// that exactly the kind's blocks are present, and the per-kind facts docs/api.md names.
func (e Event) Validate() error {
	spec, ok := lookupKind(e.Kind)
	if !ok {
		return invalidf("unknown event kind %q", e.Kind)
	}
	if e.OrgID == "" {
		return invalidf("%s event without org_id", e.Kind)
	}
	if _, err := time.Parse(TimeLayout, e.Timestamp); err != nil {
		return invalidf("%s event timestamp %q is not %s", e.Kind, e.Timestamp, TimeLayout)
	}
	present := e.Data.blocks()
	for _, b := range spec.required {
		if !slices.Contains(present, b) {
			return invalidf("%s event lacks its %s block", e.Kind, b)
		}
	}
	for _, b := range present {
		if !slices.Contains(spec.required, b) && !slices.Contains(spec.optional, b) {
			return invalidf("%s event must not carry a %s block", e.Kind, b)
		}
	}
	if e.Data.Manual && e.Kind != EventCallBooked {
		return invalidf("only call_booked can be manual, not %s", e.Kind)
	}
	if msg := e.Data.kindProblem(e.Kind); msg != "" {
		return invalidf("%s event: %s", e.Kind, msg)
	}
	return nil
}

// kindProblem checks the facts a kind promises beyond its blocks; it runs after the blocks
// were checked, so required blocks are non-nil here.
func (d EventData) kindProblem(k EventKind) string {
	switch k {
	case EventReplyPositive:
		if d.Message.Sentiment != SentimentPositive {
			return "message.sentiment must be positive"
		}
	case EventReplyNegative:
		if d.Message.Sentiment != SentimentNegative {
			return "message.sentiment must be negative"
		}
	case EventNeedsHuman:
		if !d.NeedsHuman.Reason.Valid() {
			return "needs_human.reason is not a value of the 2.5 table"
		}
	case EventCampaignStarted, EventCampaignCompleted:
		if d.Campaign.Stats == nil {
			return "campaign.stats is missing"
		}
	case EventLeadRejected:
		if d.Lead.Reason == "" {
			return "lead.reason is empty"
		}
	case EventLeadAccepted:
		if d.Lead.Reason != "" {
			return "an accepted lead has no lead.reason"
		}
	case EventAutoBookingFailed:
		if d.Booking.FailureReason == "" {
			return "booking.failure_reason is empty"
		}
	case EventPostScheduled:
		if d.Post.ScheduledTime == "" {
			return "post.scheduled_time is empty"
		}
	case EventAccountRateLimited:
		if d.Account.CooldownHours <= 0 || d.Account.CooldownUntil == "" {
			return "account.cooldown_hours must be positive and account.cooldown_until set"
		}
	case EventAccountDisconnected:
		if d.Account.Status == "" || d.Account.DisconnectedAt == "" {
			return "account.status and account.disconnected_at are required"
		}
	case EventAccountReconnected:
		// The time of the reconnection tells two reconnections apart (they would otherwise be
		// identical payloads and collapse).
		if d.Account.Status == "" || d.Account.ReconnectedAt == "" {
			return "account.status and account.reconnected_at are required"
		}
	case EventSalesNavUnavailable, EventSalesNavRestored:
		if d.Account.SNVerdict == "" {
			return "account.sn_verdict is empty"
		}
	case EventDailyDigest:
		r := d.Report
		if r.Type != ReportTypeDailyDigest || r.Stats == nil {
			return "report needs type daily_digest and stats"
		}
		if _, err := time.Parse(time.DateOnly, r.Period); err != nil {
			return "report.period must be a YYYY-MM-DD day"
		}
	case EventMarketAnalysisGenerated:
		if d.Report.Type != ReportTypeMarketAnalysis {
			return "report.type must be market_analysis"
		}
	case EventReportGenerated:
		if d.Report.Type == "" || d.Report.Period == "" {
			return "report.type and report.period are required"
		}
	}
	return ""
}
