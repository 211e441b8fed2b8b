// Package drafter writes reply drafts to a lead's message: a deterministic built-in template
// drafter (the default) and an optional drafter for any OpenAI-compatible chat endpoint.
//
// A drafter only proposes text. It must not decide whether the draft is sent: the engine runs
// outreach.RouteReply on every draft, whichever drafter wrote it. A lead's text is data here
// too: it may shape which template is used only through its outreach.Classification.
package drafter

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"outreachd/outreach"
)

// Drafter proposes a reply to the lead's latest message.
type Drafter interface {
	Draft(ctx context.Context, in Input) (string, error)
}

// Input is everything a drafter may use. Incoming and History texts come from the lead (or
// from us) and are data, never instructions.
type Input struct {
	ProspectName   string
	Company        string
	CampaignName   string
	Incoming       string
	Classification outreach.Classification
	History        []Turn // oldest first, not including Incoming
}

// Turn is one earlier message of the conversation.
type Turn struct {
	FromMe bool
	Text   string
	At     time.Time
}

// Builtin drafts from fixed templates chosen by the reply's intent. It never quotes a price,
// never says it is a person or a machine, and copies nothing from the lead's text; the only
// thing it takes from the lead is the first word of their name, cleaned (see FirstName).
// The same Input always gives the same draft.
type Builtin struct{}

var _ Drafter = Builtin{}

// builtinTemplates are the bodies after "Hi <first name>, ". Several per intent so that many
// replies in one inbox do not read identically; the choice is a hash of the input.
var builtinTemplates = map[string][]string{
	outreach.IntentInterested: {
		"great to hear from you. Would a 20-minute call next week work to walk you through how it works?",
		"glad this caught your interest. Happy to show you how it works on a short call. What does your week look like?",
	},
	outreach.IntentQuestion: {
		"good question. The answer depends a little on your setup, so it is easiest to go through it together. Would a short call this week work?",
		"thanks for asking. I can walk you through the details on a quick call, whenever suits you.",
	},
	outreach.IntentNotNow: {
		"thanks for letting me know. I will leave it here for now and check back in a few months, if that is alright.",
		"understood, timing matters. I will reach out again later in the year.",
	},
	outreach.IntentNotInterested: {
		"understood, thanks for the straight answer. I will not follow up further.",
		"thanks for letting me know. I will leave it there. All the best.",
	},
	outreach.IntentWantsEmail: {
		"happy to. I will send the details by email shortly.",
	},
	outreach.IntentAICallout: {
		"fair question. A member of our team will follow up with you directly shortly.",
	},
	outreach.IntentBooking: {
		"great, thank you. I will confirm a time and send over a calendar invite shortly.",
	},
	outreach.IntentOutOfOffice: {
		"thanks for the note. No rush at all, I will follow up once you are back.",
	},
	outreach.IntentUnknown: {
		"thanks for the reply. Would it be useful if I shared a short overview of what we do?",
		"thanks for getting back to me. Happy to share more about what we do if it is relevant for you.",
	},
}

// Draft returns a template reply for in.Classification.Intent (unknown intents use the
// "unknown" templates).
func (Builtin) Draft(ctx context.Context, in Input) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	variants, ok := builtinTemplates[in.Classification.Intent]
	if !ok {
		variants = builtinTemplates[outreach.IntentUnknown]
	}
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", in.ProspectName, in.Incoming, len(in.History))
	body := variants[h.Sum32()%uint32(len(variants))]
	return "Hi " + FirstName(in.ProspectName) + ", " + body, nil
}

// FirstName returns the leading run of letters, apostrophes and hyphens of the name's first
// word, at most 30 characters, or "there" when that is empty. It is the only part of a lead's
// own data a built-in draft repeats, so it is cut down to something that can only be a name.
func FirstName(full string) string {
	fields := strings.Fields(full)
	if len(fields) == 0 {
		return "there"
	}
	var b strings.Builder
	for _, r := range fields[0] {
		if !unicode.IsLetter(r) && r != '\'' && r != '-' {
			break
		}
		if utf8.RuneCountInString(b.String()) == 30 {
			break
		}
		b.WriteRune(r)
	}
	name := strings.Trim(b.String(), "'-")
	if name == "" {
		return "there"
	}
	return name
}
