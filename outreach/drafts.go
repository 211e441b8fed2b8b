package outreach

import "time"

// MaxReplyText bounds a reply a person approves or edits: LinkedIn refuses longer messages.
const MaxReplyText = 8000

// DraftDecision is a person's decision on a needs-human item: approve its draft (as drafted, or
// with Text, the person's own edit) or dismiss it. The page, the assistant (MCP) and the API all
// decide through the same engine action, so the rules live in one place.
type DraftDecision struct {
	OrgID  string
	ItemID string
	// Text is the person's edited reply; nil sends the draft as it stands. An assistant may pass
	// only text the person wrote: no tool composes outbound text.
	Text *string
	// Actor names who decided ("user:usr_…", "key:key_…", "oauth:<client>:<user>"); it is
	// recorded on the item.
	Actor string
}

// Draft outcome statuses.
const (
	// DraftSent: the reply went out through the LinkedIn provider.
	DraftSent = "sent"
	// DraftScheduled: the provider was busy (rate limit, seat down); the engine sends it when
	// the seat is back.
	DraftScheduled = "scheduled"
	// DraftDismissed: nothing was sent (dismissed by the person, or the person has since been
	// stopped or blocked, or the provider refused the message and the item went back to the queue).
	DraftDismissed = "dismissed"
)

// DraftOutcome is what a decision did.
type DraftOutcome struct {
	ItemID  string
	DraftID string
	ChatID  string
	Status  string
	Text    string
	At      time.Time
}
