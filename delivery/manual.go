package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"outreachd/outreach"
)

// AttemptView is the result of one attempt as the API and the CLI show it.
type AttemptView struct {
	DeliveryID      string // the webhook-id sent; for a test, an id of no stored delivery
	DestinationID   string
	Event           outreach.EventKind
	Attempt         int
	Trigger         string
	At              time.Time
	URL             string
	StatusCode      int    // 0 when no HTTP answer came
	Error           string // "" on a 2xx
	Duration        time.Duration
	ResponseExcerpt string
	OK              bool
}

// SendTest sends one sample event of kind (marked data.test = true) to d at once (at the next
// slot of its rate limit, when it has one), records it as a 'test' attempt and returns its
// result. It ignores d's filter. kind "" picks the first kind d selected (the
// first of the catalog when d selected all); a kind d did not select is refused. A test send does
// not count toward the destination's consecutive failures. It works without Run.
func (h *Hub) SendTest(ctx context.Context, d Destination, kind outreach.EventKind) (AttemptView, error) {
	selected := kinds(d.Events)
	if kind == "" {
		kind = outreach.AllEventKinds()[0]
		if len(selected) > 0 && !slices.Contains(selected, outreach.EventsAll) {
			kind = selected[0]
		}
	}
	if !kind.Valid() {
		return AttemptView{}, unknownKind("event", string(kind), false)
	}
	if !kind.Matches(selected) {
		return AttemptView{}, outreach.Invalidf("the destination does not receive %s events", kind)
	}
	ev := outreach.SampleEvent(kind, d.OrgID, time.Now())
	ev.Data.Test = true
	body, err := json.Marshal(ev)
	if err != nil {
		return AttemptView{}, fmt.Errorf("encode sample: %w", err)
	}
	var waited *int
	if d.RateLimitPerSecond != nil {
		if waited, err = h.awaitTestSlot(ctx, d.ID); err != nil {
			return AttemptView{}, err
		}
	}
	t := targetOf(d)
	id := outreach.NewID("dlv")
	at := time.Now()
	actx, span := h.startAttempt(ctx, ClaimedDelivery{ID: id, EventID: ev.ID, EventKind: string(kind), Trigger: TriggerTest, Target: t})
	res := h.attempt(actx, t, id, string(kind), body, at)
	endAttempt(span, res)
	h.metrics.duration.WithLabelValues(t.Kind).Observe(res.Duration.Seconds())
	h.metrics.attempts.WithLabelValues(string(kind), t.Kind, resultTest).Inc()
	rec := AttemptRecord{
		DestinationID: d.ID, OrgID: d.OrgID, EventID: ev.ID, EventKind: string(kind), Attempt: 1, WebhookID: id,
		Trigger: TriggerTest, At: at, URL: res.URL, StatusCode: res.StatusCode, Error: res.Error,
		DurationMS: int(res.Duration.Milliseconds()), ResponseExcerpt: res.Body, Succeeded: res.OK, ThrottledMS: waited,
	}
	if err := h.store.RecordAttempts(context.WithoutCancel(ctx), []AttemptRecord{rec}); err != nil {
		return AttemptView{}, err
	}
	return AttemptView{DeliveryID: id, DestinationID: d.ID, Event: kind, Attempt: 1, Trigger: TriggerTest,
		At: at, URL: res.URL, StatusCode: res.StatusCode, Error: res.Error, Duration: res.Duration,
		ResponseExcerpt: res.Body, OK: res.OK}, nil
}

func targetOf(d Destination) DeliveryTarget {
	t := DeliveryTarget{ID: d.ID, OrgID: d.OrgID, Name: d.Name, Kind: d.Kind, URL: d.URL,
		SlackChannel: d.SlackChannel, Enabled: d.Enabled}
	if d.SecretSealed != nil {
		t.SecretSealed = *d.SecretSealed
	}
	if d.PreviousSecretSealed != nil {
		t.PreviousSecretSealed = *d.PreviousSecretSealed
	}
	if d.SlackTokenSealed != nil {
		t.SlackTokenSealed = *d.SlackTokenSealed
	}
	for _, e := range d.Events {
		t.Events = append(t.Events, outreach.EventKind(e))
	}
	return t
}

// Resend makes one more attempt of a delivery of orgID now, whatever its state (trigger
// 'manual'). A finished delivery gets exactly that one attempt; a pending one is brought forward
// and keeps the rest of its budget. The attempt is made by whichever process claims it first.
func (h *Hub) Resend(ctx context.Context, orgID, deliveryID string) error {
	return h.store.ResendDelivery(ctx, orgID, deliveryID)
}

// Recover puts the failed deliveries of orgID created in [from, to) back in the queue, due now,
// each with a fresh budget of len(RetrySchedule) attempts, and returns how many.
func (h *Hub) Recover(ctx context.Context, orgID string, from, to time.Time) (int, error) {
	return h.RecoverDestination(ctx, orgID, "", from, to)
}

// RecoverDestination is Recover limited to one destination ("" means all of orgID's).
func (h *Hub) RecoverDestination(ctx context.Context, orgID, destinationID string, from, to time.Time) (int, error) {
	if !from.Before(to) {
		return 0, outreach.Invalidf("the range must start before it ends")
	}
	return h.store.RecoverDeliveries(ctx, orgID, destinationID, from, to, len(h.cfg.RetrySchedule))
}
