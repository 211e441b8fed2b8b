package delivery

import (
	"testing"
	"time"
)

func TestPolicyDecide(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	sched := []time.Duration{0, 30 * time.Second, 5 * time.Minute, 30 * time.Minute}
	p := policy{schedule: sched, jitter: 0.1, rand: func() float64 { return 0.5 }} // no jitter at 0.5
	cases := []struct {
		name         string
		attempt, max int
		res          attemptResult
		rnd          float64
		status       string
		delay        time.Duration
	}{
		{"2xx succeeds", 1, 4, attemptResult{OK: true}, 0.5, DeliverySucceeded, 0},
		{"first failure waits the second delay", 1, 4, attemptResult{}, 0.5, DeliveryPending, 30 * time.Second},
		{"third failure waits the fourth delay", 3, 4, attemptResult{}, 0.5, DeliveryPending, 30 * time.Minute},
		{"fourth failure is final", 4, 4, attemptResult{}, 0.5, DeliveryFailed, 0},
		{"jitter low end", 1, 4, attemptResult{}, 0, DeliveryPending, 27 * time.Second},
		{"jitter high end", 1, 4, attemptResult{}, 0.999999999, DeliveryPending, 33 * time.Second},
		{"Retry-After longer than the delay wins", 1, 4, attemptResult{RetryAfter: 2 * time.Minute}, 0.5, DeliveryPending, 2 * time.Minute},
		{"Retry-After shorter than the delay is ignored", 2, 4, attemptResult{RetryAfter: time.Minute}, 0.5, DeliveryPending, 5 * time.Minute},
		{"Retry-After is capped by the longest delay", 1, 4, attemptResult{RetryAfter: 24 * time.Hour}, 0.5, DeliveryPending, 30 * time.Minute},
		{"recovered delivery starts a fresh budget", 5, 8, attemptResult{}, 0.5, DeliveryPending, 30 * time.Second},
		{"manual resend of a failed delivery is final", 5, 5, attemptResult{}, 0.5, DeliveryFailed, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p.rand = func() float64 { return c.rnd }
			v := p.decide(c.attempt, c.max, c.res, now)
			if v.Status != c.status {
				t.Fatalf("status %s, want %s", v.Status, c.status)
			}
			if c.status == DeliveryPending {
				if got := v.Next.Sub(now); got < c.delay-time.Millisecond || got > c.delay+time.Millisecond {
					t.Fatalf("next attempt in %s, want %s", got, c.delay)
				}
			}
		})
	}
}
