package outreach

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
