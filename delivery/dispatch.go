package delivery

import (
	"context"
	"sync"
	"time"

	"outreachd/storage"
)

// slots counts the sends in flight in this process, per destination and per budget. A
// destination at its cap is left out of the next claims, so a hanging destination holds at most
// PerDestination sends (and their leases) while every other destination keeps flowing.
type slots struct {
	perDest int
	mu      sync.Mutex
	byDest  map[string]int
	budget  [2]int // [first, retry]
	wg      sync.WaitGroup
	freed   [2]chan struct{}
}

func newSlots(perDest int) *slots {
	return &slots{perDest: perDest, byDest: map[string]int{},
		freed: [2]chan struct{}{make(chan struct{}, 1), make(chan struct{}, 1)}}
}

func budgetIndex(retries bool) int {
	if retries {
		return 1
	}
	return 0
}

// snapshot returns the per-destination counts and the budget's use.
func (s *slots) snapshot(retries bool) (map[string]int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]int, len(s.byDest))
	for k, v := range s.byDest {
		m[k] = v
	}
	return m, s.budget[budgetIndex(retries)]
}

func (s *slots) take(retries bool, dest string) {
	s.mu.Lock()
	s.byDest[dest]++
	s.budget[budgetIndex(retries)]++
	s.wg.Add(1)
	s.mu.Unlock()
}

func (s *slots) release(retries bool, dest string) {
	s.mu.Lock()
	if s.byDest[dest]--; s.byDest[dest] <= 0 {
		delete(s.byDest, dest)
	}
	s.budget[budgetIndex(retries)]--
	s.mu.Unlock()
	s.wg.Done()
	// Both budgets share the per-destination caps, so both loops may now claim more.
	for _, ch := range s.freed {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (s *slots) wait() { s.wg.Wait() }

// dispatch is one claim loop: first attempts or retries. It claims as many due deliveries as it
// has free slots, starts one goroutine per send, and sleeps until a notification, a freed slot,
// or the next delivery's due time (bounded by IdleWake) — never a fixed polling sleep.
func (h *Hub) dispatch(ctx context.Context, retries bool) error {
	wake, capacity, budget := h.wakeFirst, h.cfg.FirstAttemptSlots, "first"
	if retries {
		wake, capacity, budget = h.wakeRetry, h.cfg.RetrySlots, "retry"
	}
	freed := h.slots.freed[budgetIndex(retries)]
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		inFlight, used := h.slots.snapshot(retries)
		h.metrics.inFlight.WithLabelValues(budget).Set(float64(used))
		free := capacity - used
		full := false
		if free > 0 {
			limit := min(free, h.cfg.ClaimBatch)
			claimed, err := h.store.ClaimDeliveries(ctx, storage.ClaimParams{
				Retries: retries, Limit: limit, Lease: h.cfg.Lease,
				PerDestination: h.cfg.PerDestination, InFlight: inFlight,
			})
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				h.log.Warn("delivery: claim failed", "err", err)
			}
			for _, c := range claimed {
				h.slots.take(retries, c.Target.ID)
				go h.deliver(ctx, retries, c)
			}
			full = len(claimed) > 0
		}
		if full {
			continue // there may be more due now, for destinations not yet at their cap
		}
		wait := h.cfg.IdleWake
		if free > 0 {
			inFlight, _ = h.slots.snapshot(retries)
			var saturated []string
			for id, n := range inFlight {
				if n >= h.cfg.PerDestination {
					saturated = append(saturated, id)
				}
			}
			if next, ok, err := h.store.NextDue(ctx, retries, saturated); err == nil && ok {
				// Something due now that we could not take is locked by another process for the
				// moment of its claim; look again shortly rather than spin.
				wait = min(wait, max(time.Until(next), 5*time.Millisecond))
			}
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		case <-freed:
		case <-timer.C:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// deliver makes one attempt of a claimed delivery and hands the outcome to the recorder. The
// attempt is not cancelled by shutdown: it is bounded by the timeout, and recording it avoids a
// needless resend after restart.
func (h *Hub) deliver(ctx context.Context, retries bool, c storage.ClaimedDelivery) {
	defer h.slots.release(retries, c.Target.ID)
	at := time.Now()
	res := h.attempt(context.WithoutCancel(ctx), c.Target, c.ID, c.EventKind, c.Payload, at)
	attempt := c.Attempts + 1
	v := h.policy.decide(attempt, c.MaxAttempts, attemptResult{OK: res.OK, Gone: res.Gone, RetryAfter: res.RetryAfter}, time.Now())
	rec := storage.AttemptRecord{
		DeliveryID: c.ID, DestinationID: c.Target.ID, OrgID: c.OrgID, EventID: c.EventID, EventKind: c.EventKind,
		Attempt: attempt, Trigger: c.Trigger, At: at, URL: res.URL, StatusCode: res.StatusCode, Error: res.Error,
		DurationMS: int(res.Duration.Milliseconds()), ResponseExcerpt: res.Body, Status: v.Status, Succeeded: res.OK,
	}
	if v.Status == storage.DeliveryPending {
		rec.NextAttemptAt = &v.Next
	}
	h.observe(c.EventKind, c.Target.Kind, res, v.Status)
	if res.OK {
		h.metrics.lag.Observe(time.Since(c.EmittedAt).Seconds())
	}
	h.recorder.add(rec)
}

func (h *Hub) observe(eventKind, destKind string, res sendResult, status string) {
	h.metrics.duration.WithLabelValues(destKind).Observe(res.Duration.Seconds())
	result := resultRetry
	switch status {
	case storage.DeliverySucceeded:
		result = resultSuccess
		h.metrics.outcomes.WithLabelValues(eventKind, destKind, storage.DeliverySucceeded).Inc()
	case storage.DeliveryFailed:
		result = resultFailed
		h.metrics.outcomes.WithLabelValues(eventKind, destKind, storage.DeliveryFailed).Inc()
	}
	h.metrics.attempts.WithLabelValues(eventKind, destKind, result).Inc()
}
