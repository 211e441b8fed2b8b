package engine

import (
	"context"
	"errors"
	"time"

	"outreachd/outreach"
)

// LinkedIn is what the engine asks of a LinkedIn provider (a hosted API or the simulator in
// adapters/linkedin, adapted in cmd). Account ids here are the provider's.
type LinkedIn interface {
	Accounts(ctx context.Context) ([]ProviderAccount, error)
	ConnectAccount(ctx context.Context, orgID, name string) (ProviderAccount, error)
	SendInvite(ctx context.Context, accountID string, profile ProfileRef, note string) error
	WithdrawInvite(ctx context.Context, accountID string, profile ProfileRef) error
	// SendMessage writes into a chat (chatOrProfile is a chat id) or starts one with a
	// connection (a profile key).
	SendMessage(ctx context.Context, accountID, chatOrProfile, text string) (chatID, messageID string, err error)
	Messages(ctx context.Context, chatID string) ([]ProviderMessage, error)
	// Poll returns reports with Seq > after, oldest first.
	Poll(ctx context.Context, after int64, limit int) ([]Report, error)
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

// Provider errors the engine decides on; an adapter wraps its own errors with these.
var (
	ErrRateLimited     = errors.New("linkedin: seat rate limited")
	ErrAccountDown     = errors.New("linkedin: seat disconnected")
	ErrNotConnected    = errors.New("linkedin: not a 1st-degree connection or unknown person")
	ErrAlreadyInvited  = errors.New("linkedin: invite pending or accepted already")
	ErrNoPendingInvite = errors.New("linkedin: no pending invite")
	ErrUnknownChat     = errors.New("linkedin: unknown chat")
	ErrUnknownAccount  = errors.New("linkedin: unknown account")
)

// ProviderAccount is a seat as the provider knows it.
type ProviderAccount struct {
	ID    string
	OrgID string
	Name  string
}

// ProfileRef names a person to the provider: the lead key, and what else is known.
type ProfileRef struct {
	ProfileKey       string
	ProviderID       string
	PublicIdentifier string
	Name             string
}

// ProviderMessage is one message of a chat.
type ProviderMessage struct {
	ID     string
	ChatID string
	Text   string
	At     time.Time
	FromMe bool
}

// Report kinds, the strings of adapters/linkedin.ReportKind.
const (
	ReportInviteAccepted      = "invite_accepted"
	ReportMessageReceived     = "message_received"
	ReportAccountDisconnected = "account_disconnected"
	ReportAccountRateLimited  = "account_rate_limited"
	ReportAccountReconnected  = "account_reconnected"
	ReportSalesNavUnavailable = "sales_nav_unavailable"
	ReportSalesNavRestored    = "sales_nav_restored"
)

// Report is one fact the provider reported (adapters/linkedin.Report).
type Report struct {
	Seq           int64
	Kind          string
	AccountID     string
	ProfileKey    string
	ProviderID    string
	AttendeeName  string
	ChatID        string
	MessageID     string
	Text          string
	CooldownHours int
	At            time.Time
}

// Drafter proposes a reply to a person's message (adapters/drafter, adapted in cmd).
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
