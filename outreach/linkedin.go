package outreach

import (
	"errors"
	"fmt"
	"time"
)

// The words of the LinkedIn provider port: what the service asks of LinkedIn and what LinkedIn
// answers, whoever carries it (the simulator, or a hosted LinkedIn API). Each consumer declares
// the interface it needs in these types (the engine's LinkedIn and Operator ports, the API's
// inbox reader), and each provider implements them directly, so no glue translates between
// parallel types. Ids a provider returns (accounts, chats, messages, invitations, members) are its
// own and opaque to the service.

// ProfileRef names a person to a provider. ProfileKey is the service's lead key ("in:<handle>"
// or "id:<member id>", NormalizeProfile); ProviderID is the provider's member id when known. At
// least one of them is set.
type ProfileRef struct {
	ProfileKey       string
	ProviderID       string
	PublicIdentifier string // the handle of linkedin.com/in/<handle>, when known
	Name             string
}

// MemberProfile is what a provider knows of a member: the answer to a profile look-up, which
// turns a handle or URL into the member id invitations and messages are addressed to. A field
// the provider does not know is "".
type MemberProfile struct {
	ProviderID       string
	PublicIdentifier string
	Name             string
	Headline         string
	Company          string
	// Person is what the look-up learned for the person block (role, company and its page,
	// location, industry, size, followers); nil fields are unknown. A provider that learns
	// nothing more than the fields above leaves it zero.
	Person Person
}

// SeatRelation is what stands between a seat and a person right now, as the provider lists it:
// what an action whose answer was lost is reconciled against before anything is sent again.
type SeatRelation struct {
	// InvitationID is the seat's pending invitation to the person ("" when none is pending).
	InvitationID string
	// Connected is a 1st-degree connection (an invitation was accepted, or they were connected).
	Connected bool
	// ChatID is the seat's one-to-one chat with the person ("" when there is none).
	ChatID string
}

// AccountStatus is whether a seat can act.
type AccountStatus string

const (
	AccountOK           AccountStatus = "ok"
	AccountRateLimited  AccountStatus = "rate_limited" // invitations refused until AccountHealth.RateLimitedUntil
	AccountDisconnected AccountStatus = "disconnected" // nothing works until the seat is connected again
)

// ProviderAccount is a LinkedIn account (a seat) as the provider knows it.
type ProviderAccount struct {
	ID          string
	OrgID       string
	Name        string
	Status      AccountStatus
	SalesNav    bool // premium search usable; classic LinkedIn works either way
	ConnectedAt time.Time
}

// AccountHealth is a seat's state and use at CheckedAt, as the provider counts it.
type AccountHealth struct {
	AccountID        string
	Status           AccountStatus
	RateLimitedUntil time.Time // zero unless rate limited
	SalesNav         bool
	InvitesToday     int // invitations sent on CheckedAt's UTC day
	InvitesThisWeek  int // invitations sent in the 7 days up to CheckedAt
	MessagesToday    int // messages the seat sent on CheckedAt's UTC day
	PendingInvites   int // invitations sent and neither accepted nor withdrawn
	DailyInviteLimit int // 0 when the provider does not say
	CheckedAt        time.Time
}

// Chat is one conversation as an inbox lists it.
type Chat struct {
	ID                 string
	AccountID          string
	AttendeeName       string
	AttendeeProviderID string
	ProfileKey         string // the key the service used for this person, when it started the chat
	UnreadCount        int    // messages from the attendee after the seat's last message
	LastMessage        *ChatMessage
}

// ChatMessage is one message of a chat.
type ChatMessage struct {
	ID       string
	ChatID   string
	Text     string
	At       time.Time
	FromMe   bool
	SenderID string // the sender's provider id; the account id when FromMe
}

// LinkedInReportKind is what LinkedIn reported.
type LinkedInReportKind string

const (
	ReportInviteAccepted      LinkedInReportKind = "invite_accepted"
	ReportMessageReceived     LinkedInReportKind = "message_received"
	ReportAccountDisconnected LinkedInReportKind = "account_disconnected"
	ReportAccountRateLimited  LinkedInReportKind = "account_rate_limited"
	ReportAccountReconnected  LinkedInReportKind = "account_reconnected"
	ReportSalesNavUnavailable LinkedInReportKind = "sales_nav_unavailable"
	ReportSalesNavRestored    LinkedInReportKind = "sales_nav_restored"
	// ReportSeatMessaged is a message the seat itself wrote to a person, reported back by the
	// provider. One outreachd sent (a sequence step, a reply, an invitation's note) changes
	// nothing; one it did not send means someone wrote to the person from the seat directly on
	// LinkedIn, and that person's automatic steps stop.
	ReportSeatMessaged LinkedInReportKind = "seat_messaged"
)

// LinkedInReport is one thing LinkedIn told the service, in the order it happened.
//
// Reports are pulled (the provider's Poll) rather than pushed on a channel: the engine keeps the
// last Seq it stored in PostgreSQL, so a restart resumes exactly where it stopped, several readers
// never race for one channel, and a test reads reports without goroutines. A provider that is
// told things by webhooks appends them to the same sequence. Reports an operator injected into
// the simulator are ordinary reports; nothing marks them.
type LinkedInReport struct {
	Seq           int64 // strictly increasing per provider; the Poll cursor
	Kind          LinkedInReportKind
	AccountID     string
	ProfileKey    string // the service's key for the person, when the report is about one
	ProviderID    string
	AttendeeName  string
	ChatID        string
	MessageID     string
	Text          string // message_received: the lead's text, which is data only
	CooldownHours int    // account_rate_limited: how long invitations are refused, in whole hours
	// CooldownUntil is, on account_rate_limited, when the seat may act again as the provider
	// said it (a Retry-After of seconds); zero when it gave only CooldownHours (from At).
	CooldownUntil time.Time
	At            time.Time
	// DedupeKey names the fact itself, from the provider's own ids (a message's id, the member
	// who accepted): whoever reports the same fact again (a webhook delivered twice, the
	// periodic reconciliation finding what a webhook already told) gives the same key, and the
	// fact is recorded once. "" for reports of a sequence (Seq), which dedupe on Seq.
	DedupeKey string
}

// Errors a provider answers with, wrapped (decide with errors.Is). The first group may succeed
// if the same call is made later (LinkedInRetryable); the second never will, as it stands.
var (
	ErrRateLimited         = errors.New("linkedin: seat rate limited")
	ErrAccountDisconnected = errors.New("linkedin: seat disconnected")
	// ErrProviderUnavailable is a provider that did not answer or failed on its side (a time-out,
	// a 5xx): retry with back-off.
	ErrProviderUnavailable = errors.New("linkedin: provider unavailable")
	// ErrOutcomeUnknown comes with ErrProviderUnavailable when the call may have been carried
	// out although no answer came back (the request was sent, then the connection broke, or
	// the provider failed after acting): whoever retries must first look (Relation, Messages)
	// whether the invitation or message went out, so that it never goes out twice.
	ErrOutcomeUnknown = errors.New("linkedin: the call may have been carried out")

	ErrUnknownAccount = errors.New("linkedin: unknown account")
	ErrUnknownChat    = errors.New("linkedin: unknown chat")
	ErrUnknownProfile = errors.New("linkedin: unknown profile")
	ErrInvalidProfile = errors.New("linkedin: profile has neither key nor provider id")
	ErrNotConnected   = errors.New("linkedin: not a 1st-degree connection")
	ErrAlreadyInvited = errors.New("linkedin: invitation already pending or accepted")
	// ErrAlreadyConnected is an invitation to a 1st-degree connection of the seat.
	ErrAlreadyConnected = errors.New("linkedin: already a 1st-degree connection")
	ErrNoPendingInvite  = errors.New("linkedin: no pending invitation")
	ErrNoteTooLong      = fmt.Errorf("linkedin: invitation note longer than %d characters", MaxConnectNoteLen)
	ErrEmptyMessage     = errors.New("linkedin: empty message")
	// ErrRefused is any other refusal of the provider's (parameters it will not take, a
	// recipient who cannot be reached, a feature the seat lacks).
	ErrRefused = errors.New("linkedin: refused by the provider")
)

// LinkedInError is a provider's refusal that says when to try again. Kind is one of the errors
// above (errors.Is finds it), RetryAt the earliest moment the same call may succeed (a rate
// limit's end, a provider's Retry-After), and Err the provider's own error, kept for logs.
type LinkedInError struct {
	Kind    error
	RetryAt time.Time
	Err     error
}

func (e *LinkedInError) Error() string {
	msg := e.Kind.Error()
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if !e.RetryAt.IsZero() {
		msg += " (until " + e.RetryAt.UTC().Format(time.RFC3339) + ")"
	}
	return msg
}

func (e *LinkedInError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// LinkedInRetryable reports whether a failed provider call may succeed if it is made again
// later, and from when when the provider said (zero otherwise). Anything else is final:
// retrying it would only repeat the refusal, or repeat an action LinkedIn already took.
func LinkedInRetryable(err error) (bool, time.Time) {
	if !errors.Is(err, ErrRateLimited) && !errors.Is(err, ErrAccountDisconnected) && !errors.Is(err, ErrProviderUnavailable) {
		return false, time.Time{}
	}
	var le *LinkedInError
	if errors.As(err, &le) {
		return true, le.RetryAt
	}
	return true, time.Time{}
}
