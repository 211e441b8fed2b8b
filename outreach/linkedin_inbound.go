package outreach

import "time"

// The words of what a hosted LinkedIn provider tells the service on its own (webhooks, a
// sign-in link's call-back) and of what the service keeps for it (sign-in links, the
// reconciliation's progress, which member id has which handle). The provider's adapter
// declares the interfaces it needs in these types and the engine implements them with its SQL,
// so neither imports the other.

// InboundWebhook is one webhook a provider sent, authenticated and parsed: what is stored
// durably before the provider is answered.
type InboundWebhook struct {
	Provider string
	// DedupeKey comes from the event's own ids: the same webhook delivered twice has the same
	// key and is stored once.
	DedupeKey string
	// Kind is the event as the provider names it ("message_received", "unknown", …).
	Kind       string
	Body       []byte // as received
	ReceivedAt time.Time
	// Reports is what the webhook tells the engine (each with its own DedupeKey); none for a
	// kind that tells it nothing.
	Reports []LinkedInReport
}

// MemberHandle is a member id and the public handle of the member's profile (folded as lead
// keys fold handles), as a provider learned them.
type MemberHandle struct {
	MemberID         string
	PublicIdentifier string
}

// SeatLink is a sign-in link the service made for a seat-to-be: the LinkedIn account signed
// in through it joins OrgID as the seat Name, if that happens before ExpiresAt.
type SeatLink struct {
	OrgID     string
	Name      string
	ExpiresAt time.Time
}

// ConnectLink is the sign-in page a person opens to connect a LinkedIn account as a seat.
type ConnectLink struct {
	URL       string
	ExpiresAt time.Time
}

// SeatSync is where the periodic reconciliation of one seat stands.
type SeatSync struct {
	// AccountID is the provider's id of the seat.
	AccountID string
	// Since is the watermark: what happened after it is not yet reconciled. A seat never
	// synced starts at the moment it joined the service.
	Since time.Time
	// Status is the provider's account status the last run saw ("" before the first run).
	Status string
	// Pending lists the member ids of the seat's invitations that were pending at the last run.
	Pending []string
}
