package outreach

import "time"

// Outcome is what PATCH /prospects/{id} marks on a prospect.
type Outcome string

// Outcomes.
const (
	OutcomeBooked     Outcome = "booked"
	OutcomeConverted  Outcome = "converted"
	OutcomeInterested Outcome = "interested"
	OutcomeLost       Outcome = "lost"
)

// ParseOutcome accepts exactly the four outcome names.
func ParseOutcome(s string) (Outcome, error) {
	switch o := Outcome(s); o {
	case OutcomeBooked, OutcomeConverted, OutcomeInterested, OutcomeLost:
		return o, nil
	}
	return "", invalidf("outcome %q must be one of booked, converted, interested, lost", s)
}

// EndsSequence reports an outcome that stops all outreach to the prospect: a lost prospect is
// not contacted again, and a booked one has what the sequence was for. Interested and converted
// leave the sequence as it is.
func (o Outcome) EndsSequence() bool { return o == OutcomeLost || o == OutcomeBooked }

// OutcomeEffects is what marking an outcome on a prospect for the first time causes besides
// stamping it; storage writes it in the transaction of the mark. Marking an outcome again
// causes nothing.
type OutcomeEffects struct {
	// EndSequence stops all outreach: the sequence ends, nothing stays scheduled (a paused
	// position is dropped too) and the prospect's open follow-ups close. The status is left as
	// it was.
	EndSequence bool
	// Activity is the manual activity recorded (it counts in the analytics); "" for none.
	Activity string
	// CallBooked: a call_booked event marked manual is emitted (NewManualBookingEvent).
	CallBooked bool
}

// Effects says what marking o causes: interested only tags the prospect; lost stops all
// outreach; booked stops it too, records a booking and emits call_booked; converted records a
// conversion.
func (o Outcome) Effects() OutcomeEffects {
	switch o {
	case OutcomeLost:
		return OutcomeEffects{EndSequence: true}
	case OutcomeBooked:
		return OutcomeEffects{EndSequence: true, Activity: ActivityBooking, CallBooked: true}
	case OutcomeConverted:
		return OutcomeEffects{Activity: ActivityConversion}
	}
	return OutcomeEffects{}
}

// NewManualBookingEvent is the call_booked event of a booking a person marked (PATCH
// /prospects/{id} outcome=booked): manual, with no slot known.
func NewManualBookingEvent(orgID string, prospect *ProspectBlock, campaignID, campaignName string, at time.Time) Event {
	return NewEvent(EventCallBooked, orgID, at, EventData{
		Prospect: prospect,
		Campaign: &CampaignBlock{ID: campaignID, Name: campaignName},
		Booking:  &BookingBlock{Provider: BookingProviderManual, Title: "Call booked (marked manually)"},
		Manual:   true,
	})
}

// What marking an outcome did: recorded now, or recorded before and left alone.
const (
	OutcomeWritten    = "written"
	OutcomeAlreadySet = "already_set"
)

// CurrentOutcome is the one outcome a prospect read shows when several were marked: the
// furthest along wins, converted > booked > lost > interested (lost beats interested because a
// lost prospect marked interested stays stopped). "" when none was marked. GET /analytics counts
// prospects by the same rule, in SQL (storage.OrgAnalytics).
func CurrentOutcome(interested, lost, booked, converted bool) Outcome {
	switch {
	case converted:
		return OutcomeConverted
	case booked:
		return OutcomeBooked
	case lost:
		return OutcomeLost
	case interested:
		return OutcomeInterested
	}
	return ""
}
