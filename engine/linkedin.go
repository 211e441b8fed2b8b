package engine

import (
	"context"
	"errors"
	"time"

	"outreachd/outreach"
)

// LinkedIn is what the engine asks of a LinkedIn provider, in the port's words of package
// outreach: the simulator (adapters/linkedin) or a hosted LinkedIn API implements it as it is,
// and cmd/outreachd plugs the configured one in. Account ids here are the provider's.
type LinkedIn interface {
	// Accounts lists the seats the provider has, with their current status.
	Accounts(ctx context.Context) ([]outreach.ProviderAccount, error)
	// ConnectAccount links a seat to an organization; connecting one already linked reconnects it.
	ConnectAccount(ctx context.Context, orgID, name string) (outreach.ProviderAccount, error)
	// AccountHealth is a seat's status and what it did today and this week.
	AccountHealth(ctx context.Context, accountID string) (outreach.AccountHealth, error)
	// LookUpProfile resolves a person (a handle, a URL's key, or a member id) to the member id
	// invitations and messages are addressed to, with what the provider knows of them.
	LookUpProfile(ctx context.Context, accountID string, profile outreach.ProfileRef) (outreach.MemberProfile, error)
	// SendInvite sends a connection request with an optional note and returns the invitation's id.
	SendInvite(ctx context.Context, accountID string, profile outreach.ProfileRef, note string) (inviteID string, err error)
	// WithdrawInvite withdraws the pending invitation inviteID (what SendInvite returned; "" when
	// it is not known) sent to profile.
	WithdrawInvite(ctx context.Context, accountID, inviteID string, profile outreach.ProfileRef) error
	// SendMessage writes into a chat (chatOrProfile is a chat id) or starts one with a
	// connection (a profile key or member id).
	SendMessage(ctx context.Context, accountID, chatOrProfile, text string) (chatID, messageID string, err error)
	// Messages returns a chat's messages, oldest first.
	Messages(ctx context.Context, chatID string) ([]outreach.ChatMessage, error)
	// Relation lists what stands between the seat and a person now (a pending invitation, a
	// connection, a chat), so that an invitation or message whose answer was lost is checked
	// before it is sent again.
	Relation(ctx context.Context, accountID string, profile outreach.ProfileRef) (outreach.SeatRelation, error)
	// Poll returns the reports with Seq > after, oldest first, at most limit (<= 0: all): the
	// one path by which LinkedIn's events reach the engine.
	Poll(ctx context.Context, after int64, limit int) ([]outreach.LinkedInReport, error)
}

// Operator is implemented by a simulated LinkedIn that can re-enact what an operator reports
// (`admin simulate ...`), so that the simulator's own state agrees with the database and the
// fact reaches the engine as the simulator's report, like any other.
type Operator interface {
	InjectAccept(profileKey string) error
	InjectReply(profileKey, text string) (chatID string, err error)
	InjectDisconnect(accountID string) error
	InjectReconnect(accountID string) error
	InjectRateLimit(accountID string, cooldown time.Duration) error
	InjectSalesNav(accountID string, lapsed bool) error
}

// seatDown reports a provider error that stops the seat for now: rate limited or disconnected.
func seatDown(err error) bool {
	return errors.Is(err, outreach.ErrRateLimited) || errors.Is(err, outreach.ErrAccountDisconnected)
}

// notConnected reports a person the seat cannot write to: no connection, or unknown to it.
func notConnected(err error) bool {
	return errors.Is(err, outreach.ErrNotConnected) || errors.Is(err, outreach.ErrUnknownProfile)
}

// Drafter proposes a reply to a person's message (adapters/drafter, adapted in cmd/outreachd).
type Drafter interface {
	Draft(ctx context.Context, in DraftInput) (string, error)
}

// DraftInput has the fields of adapters/drafter.Input in the same order.
type DraftInput struct {
	ProspectName   string
	Company        string
	CampaignName   string
	Incoming       string
	Classification outreach.Classification
	History        []DraftTurn
}

// DraftTurn is an earlier message (adapters/drafter.Turn).
type DraftTurn struct {
	FromMe bool
	Text   string
	At     time.Time
}
