// Package linkedin is the service's only way to LinkedIn: the Provider interface for what the
// service asks of LinkedIn, the Report type for what LinkedIn tells it back, and a Simulator
// that behaves like the real network for tests, local runs and demos.
//
// It must not know about campaigns, storage or webhooks: the engine decides what to send and
// records what happened; this package only carries actions out and reports events. The glue
// that presents it in its consumers' types lives here too, so there is one copy of it: ForEngine
// (engine.go: the engine's LinkedIn and Operator ports) and ForInbox (inbox.go: the API's
// InboxReader). Those two files are the only ones that import engine and api, and only for the
// types of the ports those packages declare; neither imports this package.
package linkedin

import (
	"context"
	"errors"
	"time"
)

// Provider is what the service asks of LinkedIn, through a hosted LinkedIn API provider or the
// Simulator. All ids it returns are the provider's own and opaque to the service.
type Provider interface {
	// Accounts lists the connected LinkedIn accounts (seats) with their current status.
	Accounts(ctx context.Context) ([]Account, error)
	// ConnectAccount links a LinkedIn account to an organization; connecting an account that
	// is already linked reconnects it.
	ConnectAccount(ctx context.Context, orgID, name string) (Account, error)
	// SendInvite sends a connection request with an optional note.
	SendInvite(ctx context.Context, accountID string, profile ProfileRef, note string) (inviteID string, err error)
	// WithdrawInvite withdraws a pending connection request.
	WithdrawInvite(ctx context.Context, accountID string, profile ProfileRef) error
	// SendMessage writes into an existing chat (chatOrProfile is a chat id) or starts one with
	// a 1st-degree connection (chatOrProfile is a profile key or provider id).
	SendMessage(ctx context.Context, accountID, chatOrProfile, text string) (chatID, messageID string, err error)
	// ListChats returns an account's chats, most recent activity first; limit <= 0 means all.
	ListChats(ctx context.Context, accountID string, limit int) ([]Chat, error)
	// Messages returns a chat's messages, oldest first.
	Messages(ctx context.Context, chatID string) ([]Message, error)
	// AccountHealth reports whether an account can act right now.
	AccountHealth(ctx context.Context, accountID string) (Health, error)
	// Poll returns the reports with Seq > after, oldest first, at most limit (<= 0: all).
	// It is the one path by which LinkedIn's events reach the engine; see Report.
	Poll(ctx context.Context, after int64, limit int) ([]Report, error)
}

// Errors a Provider returns; wrapped, so test them with errors.Is.
var (
	ErrUnknownAccount      = errors.New("linkedin: unknown account")
	ErrUnknownChat         = errors.New("linkedin: unknown chat")
	ErrUnknownProfile      = errors.New("linkedin: unknown profile")
	ErrInvalidProfile      = errors.New("linkedin: profile has neither key nor provider id")
	ErrAccountDisconnected = errors.New("linkedin: account disconnected")
	ErrRateLimited         = errors.New("linkedin: account rate limited")
	ErrAlreadyInvited      = errors.New("linkedin: invite already pending or accepted")
	ErrNoPendingInvite     = errors.New("linkedin: no pending invite")
	ErrNotConnected        = errors.New("linkedin: not a 1st-degree connection")
	ErrNoteTooLong         = errors.New("linkedin: invite note longer than 300 characters")
	ErrEmptyMessage        = errors.New("linkedin: empty message")
)

// MaxNoteLength is LinkedIn's limit on an invite note, in characters.
const MaxNoteLength = 300

// AccountStatus is whether a seat can act.
type AccountStatus string

const (
	StatusOK           AccountStatus = "ok"
	StatusRateLimited  AccountStatus = "rate_limited" // invites refused until RateLimitedUntil
	StatusDisconnected AccountStatus = "disconnected" // nothing works until reconnected
)

// Account is one connected LinkedIn account (a seat).
type Account struct {
	ID          string
	OrgID       string
	Name        string
	Status      AccountStatus
	SalesNav    bool // premium search usable; classic LinkedIn works either way
	ConnectedAt time.Time
}

// Health is an account's state at CheckedAt.
type Health struct {
	AccountID        string
	Status           AccountStatus
	RateLimitedUntil time.Time // zero unless rate limited
	SalesNav         bool
	InvitesToday     int // invites sent on CheckedAt's UTC day
	DailyInviteLimit int // 0 when the provider does not say
	CheckedAt        time.Time
}

// ProfileRef names a person. ProfileKey is the service's normalised lead key; ProviderID is
// LinkedIn's member id when known. At least one of them must be set.
type ProfileRef struct {
	ProfileKey       string
	ProviderID       string
	PublicIdentifier string
	Name             string
}

// Chat is one conversation as an inbox lists it (spec 2.7).
type Chat struct {
	ID                 string
	AccountID          string
	AttendeeName       string
	AttendeeProviderID string
	ProfileKey         string // the key the service used for this person, when it started the chat
	UnreadCount        int    // messages from the attendee after our last message
	LastMessage        *Message
}

// Message is one chat message.
type Message struct {
	ID       string
	ChatID   string
	Text     string
	At       time.Time
	FromMe   bool
	SenderID string // provider id of the sender; the account id when FromMe
}

// ReportKind is what LinkedIn reported.
type ReportKind string

const (
	ReportInviteAccepted      ReportKind = "invite_accepted"
	ReportMessageReceived     ReportKind = "message_received"
	ReportAccountDisconnected ReportKind = "account_disconnected"
	ReportAccountRateLimited  ReportKind = "account_rate_limited"
	ReportAccountReconnected  ReportKind = "account_reconnected"
	ReportSalesNavUnavailable ReportKind = "sales_nav_unavailable"
	ReportSalesNavRestored    ReportKind = "sales_nav_restored"
)

// Report is one thing LinkedIn told the service, in the order it happened.
//
// Reports are pulled with Provider.Poll rather than pushed on a channel: the engine keeps the
// last Seq it has processed (in PostgreSQL, next to the effects), so a restart resumes exactly
// where it stopped, several readers never race for one channel, and a test reads reports
// without goroutines. A real provider's webhooks are appended to the same sequence by its
// adapter. Operator-injected simulator events are ordinary reports; nothing marks them.
type Report struct {
	Seq           int64 // strictly increasing per provider; the Poll cursor
	Kind          ReportKind
	AccountID     string
	ProfileKey    string // the service's key for the person, when the report is about one
	ProviderID    string
	AttendeeName  string
	ChatID        string
	MessageID     string
	Text          string // message_received: the lead's text, which is data only
	CooldownHours int    // account_rate_limited: how long invites are refused
	At            time.Time
}
