package delivery

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"
)

// claimed is one leased delivery and the budget (first attempts or retries) that claimed it.
type claimed struct {
	c       ClaimedDelivery
	retries bool
}

// destQueue is one destination's local state: its sends in flight (at most perDest) and the
// claimed deliveries waiting for one of its slots, oldest due first.
type destQueue struct {
	inFlight int
	queue    []claimed
}

// sched holds what this process has claimed: per destination, the sends in flight and a bounded
// local queue. A send that finishes hands its slot straight to the next queued delivery of its
// destination, in the same goroutine, so a busy destination never waits for a claim round trip.
// A local queue holds at most queueCap = queueDepth × perDest − 1 rows, which is what the lease
// covers (Config.Lease); a claim takes of a destination at most queueCap minus its queue
// (ClaimDueParams.PerDestination). A destination whose room is less than perDest is left
// out of claims (saturated), and a send that drains its queue to half of queueCap wakes the claim
// loop: the claim then runs while the other half is still being sent, so a fast destination does
// not run dry while a claim is on its way (see queueDepth). Per budget, held counts claimed rows
// not yet finished (in flight or queued), capped by FirstAttemptSlots / RetrySlots: separate
// budgets, so a retry backlog never starves fresh events of claims.
type sched struct {
	perDest int
	caps    [2]int // FirstAttemptSlots, RetrySlots
	mu      sync.Mutex
	dests   map[string]*destQueue
	held    [2]int
	running [2]int
	closed  bool
	wg      sync.WaitGroup
	freed   [2]chan struct{} // wakes the claim loops: room opened in a queue or a budget
}

func newSched(perDest, firstSlots, retrySlots int) *sched {
	return &sched{perDest: perDest, caps: [2]int{firstSlots, retrySlots}, dests: map[string]*destQueue{},
		freed: [2]chan struct{}{make(chan struct{}, 1), make(chan struct{}, 1)}}
}

// queueDepth sizes a destination's local queue in multiples of its sends in flight. With two (the
// first design) a claim began when a quarter of the queue was left, and a fast destination
// drained that quarter faster than a claim under load took: in a burst to one destination most of
// its slots sat idle and the deliveries fell seconds behind the pushes. With four, the claim
// begins with two destinations' worth of sends still queued (measured: docs/performance.md,
// "Per destination").
// Each row of the queue waits at most queueDepth attempt timeouts for a slot, which the lease
// covers (Config.Lease).
const queueDepth = 4

// queueCap is the most rows a destination's local queue may hold (what the lease covers).
func (s *sched) queueCap() int { return queueDepth*s.perDest - 1 }

// saturatedAt is the queue length from which a destination is left out of claims: its room
// (queueCap minus the queue) is less than one slot's worth per send in flight, not worth a claim.
func (s *sched) saturatedAt() int { return s.queueCap() - s.perDest + 1 }

func budgetIndex(retries bool) int {
	if retries {
		return 1
	}
	return 0
}

// state returns the budget's held and running counts, the saturated destinations (a local queue
// of saturatedAt or more) and the length of every other non-empty local queue.
func (s *sched) state(retries bool) (held, running int, saturated []string, queued map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	saturated, queued = []string{}, map[string]int{}
	for id, d := range s.dests {
		switch n := len(d.queue); {
		case n >= s.saturatedAt():
			saturated = append(saturated, id)
		case n > 0:
			queued[id] = n
		}
	}
	b := budgetIndex(retries)
	return s.held[b], s.running[b], saturated, queued
}

// activeRoom bounds a claim by the room the destinations of the previous claim still have
// (queueCap minus what each holds queued; saturated ones are skipped by the claim anyway), or by
// nothing (a large int) when there was no previous claim or none of them has room. The claim
// locks the rows it reads before it cuts each destination to its room, so reading more rows than
// the busy destinations can take only locks rows it hands back: with one destination bursting,
// a claim of 200 locked 200 rows to take 39 on average (50,000 deliveries, 1,294 claims). Rows of
// other destinations due earlier are still taken in due order; the claim after one that found
// them counts their room too.
func (s *sched) activeRoom(active map[string]bool, saturated []string, queued map[string]int) int {
	if len(active) == 0 {
		return math.MaxInt
	}
	room := 0
	for id := range active {
		if !slices.Contains(saturated, id) {
			room += s.queueCap() - queued[id]
		}
	}
	if room <= 0 {
		return math.MaxInt
	}
	return room
}

// signal wakes both claim loops.
func (s *sched) signal() {
	for _, ch := range s.freed {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// add takes claimed deliveries: each starts at once if its destination has a free slot, else
// waits in the destination's queue. It returns the ones to start now.
func (s *sched) add(retries bool, cs []ClaimedDelivery) []claimed {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addLocked(retries, cs)
}

func (s *sched) addLocked(retries bool, cs []ClaimedDelivery) []claimed {
	var start []claimed
	b := budgetIndex(retries)
	for _, c := range cs {
		it := claimed{c: c, retries: retries}
		s.held[b]++
		s.wg.Add(1)
		d := s.dests[c.Target.ID]
		if d == nil {
			d = &destQueue{}
			s.dests[c.Target.ID] = d
		}
		if d.inFlight < s.perDest {
			d.inFlight++
			s.running[b]++
			start = append(start, it)
		} else {
			d.queue = append(d.queue, it)
		}
	}
	return start
}

// done finishes one send and returns the next queued delivery of the same destination, which
// takes over the slot; ok is false when the queue is empty (or the process is stopping).
func (s *sched) done(it claimed) (next claimed, ok bool) {
	b := budgetIndex(it.retries)
	s.mu.Lock()
	s.held[b]--
	s.running[b]--
	d := s.dests[it.c.Target.ID]
	wake := false
	if len(d.queue) > 0 && !s.closed {
		next, ok = d.queue[0], true
		d.queue[0] = claimed{}
		d.queue = d.queue[1:]
		s.running[budgetIndex(next.retries)]++
		// Half the queue drained: room for a claim's worth of this destination again, and the
		// other half to send while the claim is on its way.
		wake = len(d.queue) == s.queueCap()/2
	} else {
		if d.inFlight--; d.inFlight <= 0 && len(d.queue) == 0 {
			delete(s.dests, it.c.Target.ID)
		}
		wake = true // a slot is idle: anything due for this destination can start now
	}
	// The budget has room for a claim's worth again.
	wake = wake || s.held[b] == s.caps[b]-min(s.perDest, s.caps[b])
	s.mu.Unlock()
	s.wg.Done()
	if wake {
		s.signal()
	}
	return next, ok
}

// close stops handing queued deliveries to finishing sends and returns the queued ones, which
// the caller releases to the database; sends in flight still finish.
func (s *sched) close() []claimed {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var out []claimed
	for id, d := range s.dests {
		for _, it := range d.queue {
			s.held[budgetIndex(it.retries)]--
			s.wg.Done()
			out = append(out, it)
		}
		d.queue = nil
		if d.inFlight <= 0 {
			delete(s.dests, id)
		}
	}
	return out
}

func (s *sched) wait() { s.wg.Wait() }

// dispatch is one claim loop: first attempts or retries. It claims whenever its budget has room
// — right after a notification, a send finishing with an idle slot, or a destination queue
// draining to half — up to min(room, ClaimBatch) rows per claim and at most what each
// destination's local queue has room for (sched.queueCap), skipping saturated destinations, and
// claims again at once while claims find work. When a claim finds nothing, it sleeps until one of
// those wake-ups or the next delivery's due time (bounded by IdleWake): never a fixed sleep.
func (h *Hub) dispatch(ctx context.Context, retries bool) error {
	wake, capacity, budget := h.wakeFirst, h.cfg.FirstAttemptSlots, "first"
	if retries {
		wake, capacity, budget = h.wakeRetry, h.cfg.RetrySlots, "retry"
	}
	freed := h.sched.freed[budgetIndex(retries)]
	timer := time.NewTimer(0)
	defer timer.Stop()
	var active map[string]bool // the destinations of the last claim that found work
	for {
		held, running, saturated, queued := h.sched.state(retries)
		h.metrics.inFlight.WithLabelValues(budget).Set(float64(running))
		limit := min(capacity-held, h.cfg.ClaimBatch, h.sched.activeRoom(active, saturated, queued))
		if limit > 0 {
			started := time.Now()
			cs, err := h.store.ClaimDue(ctx, ClaimDueParams{Retries: retries, Limit: limit, Lease: h.cfg.Lease,
				Skip: saturated, PerDestination: h.sched.queueCap(), Queued: queued})
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if outage, wait := h.health.check("claiming deliveries", started, err); outage {
					if !sleep(ctx, wait) {
						return ctx.Err()
					}
					continue
				}
				h.log.Warn("delivery: claim failed", "err", err)
			} else {
				h.health.ok(started)
			}
			h.chunks.claimed(cs)
			for _, it := range h.sched.add(retries, cs) {
				go h.deliver(ctx, it)
			}
			if len(cs) > 0 {
				active = map[string]bool{}
				for _, c := range cs {
					active[c.Target.ID] = true
				}
				continue // there may be more due now
			}
			active = nil
		}
		// Nothing claimed. A freed slot or queue only matters when the budget is full or a
		// destination is saturated; otherwise nothing due was left behind, and waking on every
		// finished send would only repeat an empty claim.
		_, _, saturated, _ = h.sched.state(retries)
		var listenFreed chan struct{}
		if limit <= 0 || len(saturated) > 0 {
			listenFreed = freed
		}
		wait := h.cfg.IdleWake
		if limit > 0 {
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
		case <-listenFreed:
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

// deliver sends one claimed delivery, then the queued ones its destination slot passes on.
func (h *Hub) deliver(ctx context.Context, it claimed) {
	for ok := true; ok; it, ok = h.sched.done(it) {
		h.deliverOne(ctx, it.c)
	}
}

// deliverOne makes one attempt of a claimed delivery, at its slot when its destination is
// throttled, and hands the outcome to the recorder. The attempt is not cancelled by shutdown: it
// is bounded by the timeout, and recording it avoids a needless resend after restart.
func (h *Hub) deliverOne(ctx context.Context, c ClaimedDelivery) {
	if !h.awaitSlot(ctx, &c) {
		return
	}
	at := time.Now()
	actx, span := h.startAttempt(context.WithoutCancel(ctx), c)
	res := h.attempt(actx, c.Target, c.ID, c.EventKind, c.Payload, at)
	endAttempt(span, res)
	attempt := c.Attempts + 1
	v := h.policy.decide(attempt, c.MaxAttempts, attemptResult{OK: res.OK, RetryAfter: res.RetryAfter}, time.Now())
	rec := AttemptRecord{
		DeliveryID: c.ID, DestinationID: c.Target.ID, OrgID: c.OrgID, EventID: c.EventID, EventKind: c.EventKind,
		Attempt: attempt, Trigger: c.Trigger, At: at, URL: res.URL, StatusCode: res.StatusCode, Error: res.Error,
		DurationMS: int(res.Duration.Milliseconds()), ResponseExcerpt: res.Body, Status: v.Status, Succeeded: res.OK,
		LastOfChunk: h.chunks.finished(c), ThrottledMS: c.throttledMS(at),
	}
	if v.Status == DeliveryPending {
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
	case DeliverySucceeded:
		result = resultSuccess
		h.metrics.outcomes.WithLabelValues(eventKind, destKind, DeliverySucceeded).Inc()
	case DeliveryFailed:
		result = resultFailed
		h.metrics.outcomes.WithLabelValues(eventKind, destKind, DeliveryFailed).Inc()
	}
	h.metrics.attempts.WithLabelValues(eventKind, destKind, result).Inc()
}

// chunks counts, per dispatch queue chunk this process claimed (ClaimedDelivery.ChunkID,
// migration 084), its deliveries not yet attempted here. The
// record of the last one removes the chunk. Deliveries queued locally and released at shutdown
// are never counted down: their chunk stays, due again at once (Store.ReleaseClaims).
type chunks struct {
	mu   sync.Mutex
	left map[string]int
}

func (c *chunks) claimed(cs []ClaimedDelivery) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range cs {
		if id := d.ChunkID(); id != "" {
			if c.left == nil {
				c.left = map[string]int{}
			}
			c.left[id]++
		}
	}
}

// finished counts d's attempt and returns its chunk's id when it was the chunk's last, else "".
func (c *chunks) finished(d ClaimedDelivery) string {
	id := d.ChunkID()
	if id == "" {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left[id]--; c.left[id] > 0 {
		return ""
	}
	delete(c.left, id)
	return id
}
