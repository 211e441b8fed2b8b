package outreach

// Activity kinds: the countable facts of the activity log. The daily analytics row
// (GET /analytics/daily), a campaign's stats and the digest are sums of them, named after their
// counters.
const (
	ActivityInviteSent         = "invite_sent"
	ActivityInviteWithdrawn    = "invite_withdrawn"
	ActivityConnectionAccepted = "connection_accepted"
	ActivityMessageSent        = "message_sent"
	ActivityReply              = "reply"
	// ActivityBooking is a booked call: booked automatically by the engine, or marked by
	// PATCH /prospects/{id} outcome=booked (then manual).
	ActivityBooking = "booking"
	// ActivityConversion is a conversion of the organization's primary metric: reported to
	// POST /api/webhooks/conversions, or marked by PATCH /prospects/{id} outcome=converted.
	ActivityConversion = "conversion"
)
