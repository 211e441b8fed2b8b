package linkedin

import (
	"fmt"
	"time"
)

// Forecast is what the simulated network will do with a person an account invites for the
// first time, as the seed decides it. A demo uses it to cast people who show, within minutes,
// what a campaign looks like (an acceptance, a reply answered on its own, a reply only a person
// may answer); nothing else should, since a real provider cannot foresee people.
type Forecast struct {
	Accepts     bool
	AcceptAfter time.Duration // after the invite; meaningful when Accepts
	// Persona is how the person answers: silent, positive, neutral, negative, wants_email,
	// bot_question, booking or out_of_office.
	Persona string
	// Replies is how many of the account's messages the person answers (0 for silent).
	Replies int
	// FirstReplyAfter is how long after the account's first message the first reply comes.
	FirstReplyAfter time.Duration
}

// Foresee returns the Forecast for profileKey invited by accountID.
func (s *Simulator) Foresee(accountID, profileKey string) Forecast {
	p := s.personaOf(profileKey)
	f := Forecast{Persona: string(p), Replies: len(personaScripts[p]),
		Accepts: s.unit("accept", profileKey) < s.cfg.AcceptRate}
	f.AcceptAfter = delay(s.cfg.AcceptDelayMin, s.cfg.AcceptDelayMax, s.unit("accept-delay", accountID, profileKey, fmt.Sprint(1)))
	f.FirstReplyAfter = delay(s.cfg.ReplyDelayMin, s.cfg.ReplyDelayMax, s.unit("reply-delay", accountID, profileKey, fmt.Sprint(0)))
	return f
}
