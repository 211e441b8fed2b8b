package delivery

import (
	"time"
)

// policy decides what happens to a delivery after an attempt: the delivery rules of docs/api.md
// ("Delivery rules") in one pure function, so they are tested without a network or a database.
type policy struct {
	schedule []time.Duration // delay before each attempt of one budget
	jitter   float64         // ± fraction of a scheduled delay
	rand     func() float64  // [0, 1)
}

// attemptResult is what the policy needs to know of one attempt.
type attemptResult struct {
	OK         bool
	RetryAfter time.Duration // from Retry-After on a 429/503
}

// verdict is the delivery's next state.
type verdict struct {
	Status string    // DeliveryPending, DeliverySucceeded or DeliveryFailed
	Next   time.Time // when pending: the next attempt
}

// decide applies the rules after attempt number `attempt` (1-based, counted over the delivery's
// life) of a delivery allowed maxAttempts in total, at time now:
//   - a 2xx succeeds;
//   - when the budget is spent, the delivery fails;
//   - else the next attempt waits the schedule's delay for it, ±jitter; a Retry-After is honoured
//     within the schedule: the wait is the larger of the two, but never longer than the
//     schedule's longest delay: no single wait exceeds what the schedule itself allows, and a
//     receiver can stretch a delivery's life to at most (attempts − 1) × that delay.
//
// A budget is the schedule's length; Recover grants a fresh one by raising maxAttempts, so the
// position inside the current budget is attempt - (maxAttempts - len(schedule)).
func (p policy) decide(attempt, maxAttempts int, res attemptResult, now time.Time) verdict {
	switch {
	case res.OK:
		return verdict{Status: DeliverySucceeded}
	case attempt >= maxAttempts:
		return verdict{Status: DeliveryFailed}
	}
	inBudget := attempt - (maxAttempts - len(p.schedule))
	if inBudget < 1 {
		inBudget = 1
	}
	if inBudget >= len(p.schedule) {
		inBudget = len(p.schedule) - 1
	}
	delay := p.jittered(p.schedule[inBudget])
	if res.RetryAfter > delay {
		delay = min(res.RetryAfter, p.longest())
	}
	return verdict{Status: DeliveryPending, Next: now.Add(delay)}
}

func (p policy) jittered(d time.Duration) time.Duration {
	if d <= 0 || p.jitter == 0 {
		return d
	}
	f := 1 + p.jitter*(2*p.rand()-1)
	return time.Duration(float64(d) * f)
}

func (p policy) longest() time.Duration {
	var m time.Duration
	for _, d := range p.schedule {
		m = max(m, d)
	}
	return m
}
