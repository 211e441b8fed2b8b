package outreach

import (
	"slices"
	"time"
)

// This file is the event catalog (docs/api.md, "Events"): the kinds, the envelope, the blocks inside
// `data`, which blocks each kind carries, and the subscription rule. It is one file on purpose:
// the catalog table, the block types and the samples have to change together, and reading them
// side by side is how a reviewer checks that a kind's payload matches its documentation.
// The reasons behind these choices are in docs/decisions/events.md.

// EventKind is one kind of outbound event; its string is the envelope's `event`.
type EventKind string

// Every kind, in the order docs/api.md lists them.
const (
	EventReplyReceived           EventKind = "reply_received"
	EventReplyPositive           EventKind = "reply_positive"
	EventReplyNegative           EventKind = "reply_negative"
	EventNeedsHuman              EventKind = "needs_human"
	EventInviteSent              EventKind = "invite_sent"
	EventConnectionAccepted      EventKind = "connection_accepted"
	EventInviteWithdrawn         EventKind = "invite_withdrawn"
	EventMessageSent             EventKind = "message_sent"
	EventCallBooked              EventKind = "call_booked"
	EventAutoBookingCreated      EventKind = "auto_booking_created"
	EventAutoBookingFailed       EventKind = "auto_booking_failed"
	EventConversationStalled     EventKind = "conversation_stalled"
	EventCampaignStarted         EventKind = "campaign_started"
	EventCampaignCompleted       EventKind = "campaign_completed"
	EventProspectAdded           EventKind = "prospect_added"
	EventLeadAccepted            EventKind = "lead_accepted"
	EventLeadRejected            EventKind = "lead_rejected"
	EventPostPublished           EventKind = "post_published"
	EventPostScheduled           EventKind = "post_scheduled"
	EventAccountRateLimited      EventKind = "account_rate_limited"
	EventAccountDisconnected     EventKind = "account_disconnected"
	EventAccountReconnected      EventKind = "account_reconnected"
	EventSalesNavUnavailable     EventKind = "sales_nav_unavailable"
	EventSalesNavRestored        EventKind = "sales_nav_restored"
	EventReportGenerated         EventKind = "report_generated"
	EventMarketAnalysisGenerated EventKind = "market_analysis_generated"
	EventDailyDigest             EventKind = "daily_digest"
)

// EventsAll is the selector a destination stores to mean "every kind". It is not a kind:
// ParseEventKind rejects it and no event carries it.
const EventsAll EventKind = "all"

// EventGroup is the heading a kind is listed under in docs/api.md (and in the application's picker).
type EventGroup string

// The groups of event kinds.
const (
	EventGroupReplies     EventGroup = "Replies"
	EventGroupConnections EventGroup = "Connections"
	EventGroupMessages    EventGroup = "Messages"
	EventGroupBookings    EventGroup = "Bookings"
	EventGroupStalled     EventGroup = "Stalled leads"
	EventGroupCampaigns   EventGroup = "Campaigns"
	EventGroupLeadIntake  EventGroup = "Lead intake"
	EventGroupContent     EventGroup = "Content"
	EventGroupAlerts      EventGroup = "Alerts"
)

// Names of the blocks inside `data`; they are the JSON keys of EventData.
const (
	BlockProspect   = "prospect"
	BlockMessage    = "message"
	BlockCampaign   = "campaign"
	BlockBooking    = "booking"
	BlockLead       = "lead"
	BlockNeedsHuman = "needs_human"
	BlockStalled    = "stalled"
	BlockReport     = "report"
	BlockAccount    = "account"
	BlockPost       = "post"
)

// kindSpec is one row of the catalog. required blocks are always present; optional ones are
// present when the fact exists (a needs_human conversation need not belong to a campaign).
type kindSpec struct {
	kind     EventKind
	group    EventGroup
	required []string
	optional []string
}

var (
	personInCampaign = []string{BlockProspect, BlockCampaign}
	replyBlocks      = []string{BlockProspect, BlockMessage, BlockCampaign}
	accountBlocks    = []string{BlockAccount}
	reportBlocks     = []string{BlockReport}
	postBlocks       = []string{BlockPost}
	bookingBlocks    = []string{BlockProspect, BlockCampaign, BlockBooking}
	leadBlocks       = []string{BlockProspect, BlockCampaign, BlockLead}
)

// eventCatalog is read-only; accessors hand out copies so no caller can change it.
var eventCatalog = []kindSpec{
	// Rule 6.2.2: reply_* only fire for people reached through a campaign, so campaign is required.
	{EventReplyReceived, EventGroupReplies, replyBlocks, nil},
	{EventReplyPositive, EventGroupReplies, replyBlocks, nil},
	{EventReplyNegative, EventGroupReplies, replyBlocks, nil},
	// needs_human is not filtered that way: an inbox conversation may have no campaign.
	{EventNeedsHuman, EventGroupReplies, []string{BlockProspect, BlockMessage, BlockNeedsHuman}, []string{BlockCampaign}},
	{EventInviteSent, EventGroupConnections, personInCampaign, nil},
	{EventConnectionAccepted, EventGroupConnections, personInCampaign, nil},
	{EventInviteWithdrawn, EventGroupConnections, personInCampaign, nil},
	// A message sent by approving a draft in the inbox may be outside any campaign.
	{EventMessageSent, EventGroupMessages, []string{BlockProspect, BlockMessage}, []string{BlockCampaign}},
	{EventCallBooked, EventGroupBookings, bookingBlocks, nil},
	{EventAutoBookingCreated, EventGroupBookings, bookingBlocks, nil},
	{EventAutoBookingFailed, EventGroupBookings, bookingBlocks, nil},
	{EventConversationStalled, EventGroupStalled, []string{BlockProspect, BlockCampaign, BlockStalled}, nil},
	{EventCampaignStarted, EventGroupCampaigns, []string{BlockCampaign}, nil},
	{EventCampaignCompleted, EventGroupCampaigns, []string{BlockCampaign}, nil},
	{EventProspectAdded, EventGroupCampaigns, personInCampaign, nil},
	{EventLeadAccepted, EventGroupLeadIntake, leadBlocks, nil},
	{EventLeadRejected, EventGroupLeadIntake, leadBlocks, nil},
	{EventPostPublished, EventGroupContent, postBlocks, nil},
	{EventPostScheduled, EventGroupContent, postBlocks, nil},
	{EventAccountRateLimited, EventGroupAlerts, accountBlocks, nil},
	{EventAccountDisconnected, EventGroupAlerts, accountBlocks, nil},
	{EventAccountReconnected, EventGroupAlerts, accountBlocks, nil},
	{EventSalesNavUnavailable, EventGroupAlerts, accountBlocks, nil},
	{EventSalesNavRestored, EventGroupAlerts, accountBlocks, nil},
	{EventReportGenerated, EventGroupAlerts, reportBlocks, nil},
	{EventMarketAnalysisGenerated, EventGroupAlerts, reportBlocks, nil},
	{EventDailyDigest, EventGroupAlerts, reportBlocks, nil},
}

func lookupKind(k EventKind) (kindSpec, bool) {
	for _, s := range eventCatalog {
		if s.kind == k {
			return s, true
		}
	}
	return kindSpec{}, false
}

// AllEventKinds returns every kind in the documented order (the order of the application's picker).
func AllEventKinds() []EventKind {
	out := make([]EventKind, len(eventCatalog))
	for i, s := range eventCatalog {
		out[i] = s.kind
	}
	return out
}

// ParseEventKind accepts exactly the kind names, so a typo in a destination's selection is
// refused when it is saved instead of silently never matching.
func ParseEventKind(s string) (EventKind, bool) {
	if _, ok := lookupKind(EventKind(s)); !ok {
		return "", false
	}
	return EventKind(s), true
}

// Valid reports whether k is a known kind.
func (k EventKind) Valid() bool {
	_, ok := lookupKind(k)
	return ok
}

// Group returns the group of k, or "" for an unknown kind.
func (k EventKind) Group() EventGroup {
	s, _ := lookupKind(k)
	return s.group
}

// Blocks returns the blocks every event of kind k carries in `data`.
func (k EventKind) Blocks() []string {
	s, _ := lookupKind(k)
	return slices.Clone(s.required)
}

// OptionalBlocks returns the blocks an event of kind k carries only when the fact exists.
func (k EventKind) OptionalBlocks() []string {
	s, _ := lookupKind(k)
	return slices.Clone(s.optional)
}

// Matches implements a destination's selection. An empty selection means all kinds: nil and
// empty cannot be told apart after a trip through JSON or a database array, and the API refuses
// to save an empty selection, so an empty one only ever comes from "all". Rule 6.2.1:
// subscribing to reply_received also delivers reply_positive and reply_negative.
func (k EventKind) Matches(selected []EventKind) bool {
	if len(selected) == 0 {
		return true
	}
	for _, s := range selected {
		switch {
		case s == EventsAll, s == k:
			return true
		case s == EventReplyReceived && (k == EventReplyPositive || k == EventReplyNegative):
			return true
		}
	}
	return false
}

// Event is the envelope of every delivery, exactly: {event, timestamp, org_id, data}. ID is the outbox
// message id; it is not part of the payload, so two identical facts produce identical bodies
// and collapse into one delivery (the 24-hour duplicate rule).
type Event struct {
	ID        string    `json:"-"`
	Kind      EventKind `json:"event"`
	Timestamp string    `json:"timestamp"`
	OrgID     string    `json:"org_id"`
	Data      EventData `json:"data"`
}

// NewEvent stamps a new event. at is when the fact happened, not when it is delivered, so
// retries and late deliveries carry the same timestamp.
func NewEvent(kind EventKind, orgID string, at time.Time, data EventData) Event {
	return Event{ID: NewID("evt"), Kind: kind, Timestamp: FormatTime(at), OrgID: orgID, Data: data}
}

// EventData is the `data` object: one optional block per kind of information plus two markers.
type EventData struct {
	Prospect   *ProspectBlock   `json:"prospect,omitempty"`
	Message    *MessageBlock    `json:"message,omitempty"`
	Campaign   *CampaignBlock   `json:"campaign,omitempty"`
	Booking    *BookingBlock    `json:"booking,omitempty"`
	Lead       *LeadBlock       `json:"lead,omitempty"`
	NeedsHuman *NeedsHumanBlock `json:"needs_human,omitempty"`
	Stalled    *StalledBlock    `json:"stalled,omitempty"`
	Report     *ReportBlock     `json:"report,omitempty"`
	Account    *AccountBlock    `json:"account,omitempty"`
	Post       *PostBlock       `json:"post,omitempty"`
	// Manual marks a call_booked fired by PATCH /prospects/{id} outcome=booked.
	Manual bool `json:"manual,omitempty"`
	// Test marks a sample sent by a destination's Test button; receivers must not act on it.
	Test bool `json:"test,omitempty"`
}

// blocks lists the names of the blocks present, in the documented order.
func (d EventData) blocks() []string {
	present := []struct {
		name string
		ok   bool
	}{
		{BlockProspect, d.Prospect != nil}, {BlockMessage, d.Message != nil}, {BlockCampaign, d.Campaign != nil},
		{BlockBooking, d.Booking != nil}, {BlockLead, d.Lead != nil}, {BlockNeedsHuman, d.NeedsHuman != nil},
		{BlockStalled, d.Stalled != nil}, {BlockReport, d.Report != nil}, {BlockAccount, d.Account != nil},
		{BlockPost, d.Post != nil},
	}
	var out []string
	for _, p := range present {
		if p.ok {
			out = append(out, p.name)
		}
	}
	return out
}

// ProspectBlock is the person an event is about. Unlike the API's person block (2.3), an unknown
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
// last_message (2.7) so a client parses one structure for both.
type ConversationTurn struct {
	FromMe bool   `json:"from_me"`
	Text   string `json:"text"`
	At     string `json:"at"`
}

// RecentConversation keeps the last MaxRecentConversation turns of a thread given oldest first.
func RecentConversation(turns []ConversationTurn) []ConversationTurn {
	if len(turns) > MaxRecentConversation {
		turns = turns[len(turns)-MaxRecentConversation:]
	}
	return slices.Clone(turns)
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
// are those of the daily analytics row (2.8); ProspectsByStatus is the campaign's
// prospect_counts (2.1), only statuses that occur.
type CampaignStats struct {
	Prospects           int            `json:"prospects"`
	ProspectsByStatus   map[string]int `json:"prospects_by_status"`
	InvitesSent         int            `json:"invites_sent"`
	ConnectionsAccepted int            `json:"connections_accepted"`
	MessagesSent        int            `json:"messages_sent"`
	Replies             int            `json:"replies"`
	PositiveReplies     int            `json:"positive_replies"`
	NegativeReplies     int            `json:"negative_replies"`
	Bookings            int            `json:"bookings"`
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

// NeedsHumanBlock is the queue item (2.5) a person must answer. AIDraft is omitted when the
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

// ReportStats are the eight counters of the daily analytics row (2.8) without its date, summed
// over the report's period.
type ReportStats struct {
	InvitesSent         int `json:"invites_sent"`
	ConnectionsAccepted int `json:"connections_accepted"`
	MessagesSent        int `json:"messages_sent"`
	Replies             int `json:"replies"`
	PositiveReplies     int `json:"positive_replies"`
	NegativeReplies     int `json:"negative_replies"`
	Bookings            int `json:"bookings"`
	InvitesWithdrawn    int `json:"invites_withdrawn"`
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

// sampleBaseURL is where sample links point: a sample cannot know PUBLIC_URL, and example.com
// is reserved, so nobody's real page is linked from a test message.
const sampleBaseURL = "https://app.example.com"

// SampleEvent builds a realistic event of kind k with made-up people and numbers, marked Test
// (data.test = true): the Test button sends it, and tests use it to check every kind end to end.
// Its ids are fresh, so two samples are never collapsed as duplicates. An unknown kind yields
// an event that fails Validate.
func SampleEvent(k EventKind, orgID string, at time.Time) Event {
	at = at.UTC()
	ago := func(d time.Duration) string { return FormatTime(at.Add(-d)) }
	followers := 2140
	prospect := &ProspectBlock{
		Name:               "Jane Doe",
		LinkedInURL:        "https://www.linkedin.com/in/jane-doe-4821",
		LinkedInID:         "ACoAAB3xYz0BcDeFgHiJkLmNoPqRsTuVwXyZ12",
		LeadID:             NewID("prs"),
		Company:            "Acme Analytics",
		JobTitle:           "Head of Growth",
		Industry:           "Computer Software",
		Location:           "Berlin, Germany",
		Headline:           "Growth at Acme Analytics | B2B SaaS",
		CompanyWebsite:     "https://acme-analytics.example.com",
		CompanyLinkedInURL: "https://www.linkedin.com/company/acme-analytics",
		CompanySize:        "51-200",
		FollowerCount:      &followers,
	}
	stats := &CampaignStats{
		Prospects:           120,
		ProspectsByStatus:   map[string]int{"pending": 40, "connection_sent": 38, "connected": 22, "messaged": 12, "replied": 8},
		InvitesSent:         80,
		ConnectionsAccepted: 42,
		MessagesSent:        51,
		Replies:             8,
		PositiveReplies:     5,
		NegativeReplies:     2,
		Bookings:            2,
	}
	campaign := &CampaignBlock{ID: NewID("cmp"), Name: "Q4 Heads of Growth DACH", Stats: stats}
	conversation := []ConversationTurn{
		{FromMe: true, Text: "Hi Jane, thanks for connecting! We help growth teams cut reporting time in half.", At: ago(50 * time.Hour)},
		{FromMe: true, Text: "Would a 20-minute walkthrough next week be useful?", At: ago(26 * time.Hour)},
		{FromMe: false, Text: "Sounds interesting - could you send me a few time slots for Thursday?", At: ago(2 * time.Minute)},
	}
	reply := &MessageBlock{
		Text:               conversation[2].Text,
		ChatID:             NewID("chat"),
		Sentiment:          SentimentNeutral,
		RecentConversation: conversation,
	}
	booking := &BookingBlock{
		StartTime: FormatTime(at.Truncate(24 * time.Hour).Add(48*time.Hour + 15*time.Hour)),
		Provider:  "calendly",
		Title:     "Acme Analytics x Jane Doe - intro call",
	}
	account := &AccountBlock{Name: "Sam Seller", AccountID: NewID("acc")}
	yesterday := at.AddDate(0, 0, -1).Format(time.DateOnly)

	d := EventData{Test: true}
	switch k {
	case EventReplyReceived, EventReplyPositive, EventReplyNegative:
		d.Prospect, d.Message, d.Campaign = prospect, reply, campaign
		switch k {
		case EventReplyPositive:
			reply.Sentiment = SentimentPositive
		case EventReplyNegative:
			reply.Sentiment = SentimentNegative
			reply.Text = "Not interested, please remove me from your list."
			conversation[2].Text = reply.Text
		}
	case EventNeedsHuman:
		reply.Text = "Can you just email me the details at jane@acme-analytics.example.com?"
		conversation[2].Text = reply.Text
		d.Prospect, d.Message, d.Campaign = prospect, reply, campaign
		d.NeedsHuman = &NeedsHumanBlock{
			Reason:      ReasonWantsEmail,
			ReasonLabel: ReasonWantsEmail.Label(),
			AIDraft:     "Happy to! Could you confirm the best address to reach you?",
			QueueID:     NewID("nhu"),
			InboxURL:    ConversationURL(sampleBaseURL, reply.ChatID),
		}
	case EventInviteSent, EventConnectionAccepted, EventInviteWithdrawn, EventProspectAdded:
		d.Prospect, d.Campaign = prospect, campaign
	case EventMessageSent:
		d.Prospect, d.Campaign = prospect, campaign
		d.Message = &MessageBlock{Text: conversation[1].Text, ChatID: reply.ChatID, RecentConversation: conversation[:2]}
	case EventCallBooked, EventAutoBookingCreated:
		d.Prospect, d.Campaign, d.Booking = prospect, campaign, booking
	case EventAutoBookingFailed:
		booking.FailureReason = "the requested slot is no longer free"
		d.Prospect, d.Campaign, d.Booking = prospect, campaign, booking
	case EventConversationStalled:
		d.Prospect, d.Campaign = prospect, campaign
		d.Stalled = &StalledBlock{DaysSinceActivity: 9, RecentConversation: []ConversationTurn{
			{FromMe: false, Text: "Interesting, let me check with my team.", At: ago(9 * 24 * time.Hour)},
			{FromMe: true, Text: "Of course - shall I follow up next week?", At: ago(9*24*time.Hour - time.Hour)},
		}}
	case EventCampaignStarted:
		stats.ProspectsByStatus = map[string]int{"pending": 120}
		stats.InvitesSent, stats.ConnectionsAccepted, stats.MessagesSent = 0, 0, 0
		stats.Replies, stats.PositiveReplies, stats.NegativeReplies, stats.Bookings = 0, 0, 0, 0
		d.Campaign = campaign
	case EventCampaignCompleted:
		d.Campaign = campaign
	case EventLeadAccepted:
		d.Prospect, d.Campaign = prospect, campaign
		d.Lead = &LeadBlock{BatchID: NewID("bat")}
	case EventLeadRejected:
		d.Prospect, d.Campaign = prospect, campaign
		d.Lead = &LeadBlock{BatchID: NewID("bat"), Reason: "company_size 51-200 is outside the filter 201-1000"}
	case EventPostPublished:
		d.Post = &PostBlock{Text: "Three things we learned cutting our reporting time in half.", URL: "https://www.linkedin.com/feed/update/urn:li:activity:7260000000000000000"}
	case EventPostScheduled:
		d.Post = &PostBlock{Text: "Three things we learned cutting our reporting time in half.", ScheduledTime: FormatTime(at.Add(20 * time.Hour))}
	case EventAccountRateLimited:
		account.Reason = "weekly invitation limit reached"
		account.CooldownHours, account.CooldownUntil = 24, FormatTime(at.Add(24*time.Hour))
		d.Account = account
	case EventAccountDisconnected:
		account.Reason = "session expired"
		account.ReconnectURL = AccountURL(sampleBaseURL, account.AccountID)
		account.Status = "disconnected"
		account.DisconnectedAt = ago(3 * time.Minute)
		d.Account = account
	case EventAccountReconnected:
		account.Status, account.ReconnectedAt = "connected", ago(time.Minute)
		d.Account = account
	case EventSalesNavUnavailable:
		account.Reason = "Sales Navigator session expired; classic LinkedIn still works"
		account.ReconnectURL = AccountURL(sampleBaseURL, account.AccountID)
		account.SNVerdict, account.PreviousSNVerdict, account.SNChangedAt = SalesNavSessionExpired, SalesNavActive, ago(time.Minute)
		d.Account = account
	case EventSalesNavRestored:
		account.SNVerdict, account.PreviousSNVerdict, account.SNChangedAt = SalesNavActive, SalesNavSessionExpired, ago(time.Minute)
		d.Account = account
	case EventReportGenerated:
		d.Report = &ReportBlock{
			Type:     ReportTypeWeeklySummary,
			Period:   at.AddDate(0, 0, -7).Format(time.DateOnly) + "/" + yesterday,
			ShareURL: ReportURL(sampleBaseURL, ReportTypeWeeklySummary, at.AddDate(0, 0, -7).Format(time.DateOnly)),
			Stats:    &ReportStats{InvitesSent: 140, ConnectionsAccepted: 61, MessagesSent: 95, Replies: 17, PositiveReplies: 9, NegativeReplies: 4, Bookings: 3, InvitesWithdrawn: 12},
		}
	case EventMarketAnalysisGenerated:
		d.Report = &ReportBlock{Type: ReportTypeMarketAnalysis, Period: yesterday, ShareURL: ReportURL(sampleBaseURL, ReportTypeMarketAnalysis, yesterday)}
	case EventDailyDigest:
		d.Report = &ReportBlock{
			Type:   ReportTypeDailyDigest,
			Period: yesterday,
			Stats:  &ReportStats{InvitesSent: 20, ConnectionsAccepted: 9, MessagesSent: 14, Replies: 3, PositiveReplies: 2, NegativeReplies: 1, Bookings: 1, InvitesWithdrawn: 2},
		}
	}
	return NewEvent(k, orgID, at, d)
}
