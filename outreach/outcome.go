package outreach

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
