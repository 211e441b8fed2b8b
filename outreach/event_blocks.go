package outreach

// This file holds the blocks an event carries inside `data` (the catalog is in events.go).

// ProspectBlock is the person an event is about. Unlike the API's person block, an unknown
// field is omitted rather than null; the empty string and nil mean unknown.
type ProspectBlock struct {
	Name        string `json:"name,omitempty"`
	LinkedInURL string `json:"linkedin_url,omitempty"`
	LinkedInID  string `json:"linkedin_id,omitempty"`
	// LeadID is the prospect's id, the one GET /prospects/{id} and GET /leads/{id} both take.
	LeadID             string `json:"lead_id,omitempty"`
	Company            string `json:"company,omitempty"`
	JobTitle           string `json:"job_title,omitempty"` // the API's `role`
	Industry           string `json:"industry,omitempty"`
	Location           string `json:"location,omitempty"`
	Headline           string `json:"headline,omitempty"`
	CompanyWebsite     string `json:"company_website,omitempty"`
	CompanyLinkedInURL string `json:"company_linkedin_url,omitempty"`
	CompanySize        string `json:"company_size,omitempty"`
	// FollowerCount is a pointer because 0 followers is a known value.
	FollowerCount *int `json:"follower_count,omitempty"`
}

// MaxRecentConversation caps recent_conversation: enough to read the thread's turn in a chat
// message, small enough that a long thread does not bloat every payload.
const MaxRecentConversation = 5

// ConversationTurn is one message of recent_conversation; it has the shape of the inbox's
// last_message so a client parses one structure for both.
type ConversationTurn struct {
	FromMe bool   `json:"from_me"`
	Text   string `json:"text"`
	At     string `json:"at"`
}

// MessageBlock is the message an event is about: on reply_* and needs_human the lead's message,
// on message_sent ours. Sentiment is the reply classifier's (replies.go: positive, negative or
// neutral); it is set on reply_* and needs_human and omitted on message_sent.
type MessageBlock struct {
	Text               string             `json:"text"`
	ChatID             string             `json:"chat_id"`
	Sentiment          Sentiment          `json:"sentiment,omitempty"`
	RecentConversation []ConversationTurn `json:"recent_conversation,omitempty"`
}

// CampaignBlock names the campaign an event is tied to.
type CampaignBlock struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Stats is required on campaign_started and campaign_completed. Producers of other kinds may
	// leave it out: storage fills it in when the event's transaction commits, so every committed
	// event with a campaign block carries it.
	Stats *CampaignStats `json:"stats,omitempty"`
}

// CampaignStats are the campaign's lifetime totals when the event was emitted. Counter names
// are those of the daily analytics row; ProspectsByStatus is the campaign's
// prospect_counts, only statuses that occur.
type CampaignStats struct {
	Prospects         int            `json:"prospects"`
	ProspectsByStatus map[string]int `json:"prospects_by_status"`
	ActivityTotals
}

// ActivityTotals are the seven activity counters a campaign's stats and a report's stats share,
// summed from the daily analytics rows (2.8). Embedded, they encode as fields of the block that
// embeds them, in this order.
type ActivityTotals struct {
	InvitesSent         int `json:"invites_sent"`
	ConnectionsAccepted int `json:"connections_accepted"`
	MessagesSent        int `json:"messages_sent"`
	Replies             int `json:"replies"`
	PositiveReplies     int `json:"positive_replies"`
	NegativeReplies     int `json:"negative_replies"`
	Bookings            int `json:"bookings"`
}

// BookingProviderManual is the provider of a booking recorded by PATCH outcome=booked, which
// knows no slot: its start_time is omitted.
const BookingProviderManual = "manual"

// BookingBlock is a call on a calendar. StartTime is omitted when unknown (a manual booking);
// FailureReason says why an auto booking failed and appears only on auto_booking_failed.
type BookingBlock struct {
	StartTime     string `json:"start_time,omitempty"`
	Provider      string `json:"provider"`
	Title         string `json:"title,omitempty"`
	FailureReason string `json:"failure_reason,omitempty"`
}

// LeadBlock is the verdict context of a pushed lead; Reason is the filter_reason on a rejection.
type LeadBlock struct {
	BatchID string `json:"batch_id"`
	Reason  string `json:"reason,omitempty"`
}

// NeedsHumanBlock is the needs-human queue item a person must answer. AIDraft is omitted when the
// draft came back empty (reason empty_or_too_short).
type NeedsHumanBlock struct {
	Reason      NeedsHumanReason `json:"reason"`
	ReasonLabel string           `json:"reason_label"`
	AIDraft     string           `json:"ai_draft,omitempty"`
	QueueID     string           `json:"queue_id"`
	InboxURL    string           `json:"inbox_url"`
}

// StalledBlock says how long a conversation has been quiet and what was said last.
type StalledBlock struct {
	DaysSinceActivity  int                `json:"days_since_activity"`
	RecentConversation []ConversationTurn `json:"recent_conversation"`
}

// Report types.
const (
	ReportTypeDailyDigest    = "daily_digest"
	ReportTypeMarketAnalysis = "market_analysis"
	ReportTypeWeeklySummary  = "weekly_summary"
)

// ReportBlock is a generated report. Period is a UTC day (YYYY-MM-DD) or an ISO 8601 interval of
// days (YYYY-MM-DD/YYYY-MM-DD, both inclusive). Stats is required on daily_digest and omitted on
// market analyses, which are documents behind ShareURL rather than counts.
type ReportBlock struct {
	Type     string       `json:"type"`
	Period   string       `json:"period"`
	ShareURL string       `json:"share_url,omitempty"`
	Stats    *ReportStats `json:"stats,omitempty"`
}

// ReportStats are the eight counters of the daily analytics row without its date, summed
// over the report's period.
type ReportStats struct {
	ActivityTotals
	InvitesWithdrawn int `json:"invites_withdrawn"`
}

// Sales Navigator verdicts of a LinkedIn seat (sn_verdict, previous_sn_verdict).
const (
	SalesNavActive         = "active"          // search works
	SalesNavLapsed         = "lapsed"          // the subscription ended
	SalesNavSessionExpired = "session_expired" // the premium session died; classic LinkedIn still works
)

// AccountBlock is a LinkedIn seat. The kind decides the extra fields: cooldown_hours on
// account_rate_limited, status and disconnected_at on account_disconnected, the sn_* fields on
// sales_nav_*.
type AccountBlock struct {
	Name              string `json:"name"`
	AccountID         string `json:"account_id"`
	Reason            string `json:"reason,omitempty"`
	ReconnectURL      string `json:"reconnect_url,omitempty"`
	CooldownHours     int    `json:"cooldown_hours,omitempty"`
	CooldownUntil     string `json:"cooldown_until,omitempty"` // rate limits: when the seat may invite again
	Status            string `json:"status,omitempty"`
	DisconnectedAt    string `json:"disconnected_at,omitempty"`
	ReconnectedAt     string `json:"reconnected_at,omitempty"`
	SNVerdict         string `json:"sn_verdict,omitempty"`
	PreviousSNVerdict string `json:"previous_sn_verdict,omitempty"`
	SNChangedAt       string `json:"sn_changed_at,omitempty"`
}

// PostBlock is a LinkedIn post: URL once published, ScheduledTime while scheduled.
type PostBlock struct {
	Text          string `json:"text"`
	URL           string `json:"url,omitempty"`
	ScheduledTime string `json:"scheduled_time,omitempty"`
}
