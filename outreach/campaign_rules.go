package outreach

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// StatusChange is what moving a campaign to another status causes (PlanStatusChange); storage
// writes it in the transaction of the change.
type StatusChange struct {
	// None: the campaign already has the status. Nothing is written and nothing is emitted, so
	// repeating a command is harmless.
	None bool
	// StampStarted: the first move to active, which sets started_at (a paused campaign that
	// resumes keeps its first start).
	StampStarted bool
	// StampCompleted: a move to completed, which sets completed_at.
	StampCompleted bool
	// Event is the event the change emits with the campaign's stats: campaign_started on the
	// first move to active, campaign_completed on a move to completed; "" for none.
	Event EventKind
}

// PlanStatusChange decides what moving campaign id from status from to status to causes;
// started says whether it ran before (started_at is set). A move CanBecome refuses is an
// InvalidInputError.
func PlanStatusChange(id string, from CampaignStatus, started bool, to CampaignStatus) (StatusChange, error) {
	if from == to {
		return StatusChange{None: true}, nil
	}
	if !from.CanBecome(to) {
		return StatusChange{}, invalidf("campaign %s cannot go from %s to %s", id, from, to)
	}
	var ch StatusChange
	switch to {
	case CampaignActive:
		if !started {
			ch.StampStarted, ch.Event = true, EventCampaignStarted
		}
	case CampaignCompleted:
		ch.StampCompleted, ch.Event = true, EventCampaignCompleted
	}
	return ch, nil
}

// NewCampaignEvent is a campaign lifecycle event (campaign_started, campaign_completed): the
// campaign block with its lifetime stats as of the change. An operator's status change and the
// engine's completion of a campaign whose prospects are all done build it alike.
func NewCampaignEvent(kind EventKind, orgID, campaignID, name string, stats CampaignStats, at time.Time) Event {
	return NewEvent(kind, orgID, at, EventData{Campaign: &CampaignBlock{ID: campaignID, Name: name, Stats: &stats}})
}

// copySuffixRoom is the room a copy suffix may take; the names of an organization's campaigns
// that could clash with a copy of a name all start with the name cut to leave it.
const copySuffixRoom = len(" (copy 100000)")

// CopyNamePrefix is what every candidate name of a copy of name starts with: the names to ask
// the database about (those of the organization's campaigns that start with it) before CopyName.
func CopyNamePrefix(name string) string {
	return clipRunes(name, MaxCampaignNameLen-copySuffixRoom)
}

// CopyName is the name of a duplicated campaign: the first of "<name> (copy)", "<name> (copy 2)",
// "<name> (copy 3)"… that taken does not report, name shortened so that the result stays within
// MaxCampaignNameLen.
func CopyName(name string, taken func(string) bool) string {
	for i := 1; ; i++ {
		suffix := " (copy)"
		if i > 1 {
			suffix = fmt.Sprintf(" (copy %d)", i)
		}
		cand := clipRunes(name, MaxCampaignNameLen-utf8.RuneCountInString(suffix)) + suffix
		if !taken(cand) {
			return cand
		}
	}
}
