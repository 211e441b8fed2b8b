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
