package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"outreachd/adapters/slack"
	"outreachd/adapters/webhook"
	"outreachd/outreach"
)

// HeaderEvent carries the event kind on every delivery, so receivers can route before parsing.
const HeaderEvent = "X-Service-Event"

// sendResult is one attempt as the hub records it, whatever the destination kind.
type sendResult struct {
	URL        string
	StatusCode int
	Error      string
	Body       string
	Duration   time.Duration
	RetryAfter time.Duration
	OK         bool
}

// attempt sends payload to one destination once: an HTTPS POST with the delivery headers of docs/api.md and
// both signatures when the destination has a secret, or a Slack message. It never returns an
// error: every failure is an attempt result to record.
func (h *Hub) attempt(ctx context.Context, t DeliveryTarget, deliveryID, kind string, payload []byte, at time.Time) sendResult {
	switch t.Kind {
	case outreach.DestinationSlack:
		return h.attemptSlack(ctx, t, payload)
	default:
		return h.attemptHTTPS(ctx, t, deliveryID, kind, payload, at)
	}
}

func (h *Hub) attemptHTTPS(ctx context.Context, t DeliveryTarget, deliveryID, kind string, payload []byte, at time.Time) sendResult {
	secret, err := h.open(t.SecretSealed)
	if err != nil {
		// Never send unsigned what the receiver expects signed.
		return sendResult{URL: t.URL, Error: "signing secret cannot be opened: " + err.Error()}
	}
	// During a rotation the replaced secret signs too (webhook-signature only).
	previous, err := h.open(t.PreviousSecretSealed)
	if err != nil {
		return sendResult{URL: t.URL, Error: "previous signing secret cannot be opened: " + err.Error()}
	}
	hdr := deliveryHeaders(secret, previous, deliveryID, kind, at, payload)
	injectTraceParent(ctx, hdr)
	r := h.webhook.Send(ctx, webhook.Request{URL: t.URL, Body: payload, Header: hdr})
	return sendResult{URL: t.URL, StatusCode: r.StatusCode, Error: r.Error, Body: r.Body, Duration: r.Duration,
		RetryAfter: r.RetryAfter, OK: r.OK}
}

// deliveryHeaders are the headers of one HTTPS attempt (docs/api.md): the signatures, the event
// kind, the content type and the user agent.
func deliveryHeaders(secret, previous, deliveryID, kind string, at time.Time, payload []byte) http.Header {
	hdr := RotatingSignatureHeaders(secret, previous, deliveryID, at, payload)
	hdr.Set("User-Agent", webhook.DefaultUserAgent)
	hdr.Set("Content-Type", "application/json")
	hdr.Set(HeaderEvent, kind)
	return hdr
}

func (h *Hub) attemptSlack(ctx context.Context, t DeliveryTarget, payload []byte) sendResult {
	res := sendResult{URL: t.URL}
	if t.URL == "" {
		res.URL = "slack:" + t.SlackChannel
	}
	if h.slack == nil {
		res.Error = "slack destinations are not configured in this process"
		return res
	}
	var ev outreach.Event
	if err := json.Unmarshal(payload, &ev); err != nil {
		res.Error = "unreadable payload: " + err.Error()
		return res
	}
	target := slack.Target{WebhookURL: t.URL, Channel: t.SlackChannel}
	if t.SlackTokenSealed != "" {
		token, err := h.open(t.SlackTokenSealed)
		if err != nil {
			res.Error = "slack token cannot be opened: " + err.Error()
			return res
		}
		target = slack.Target{BotToken: token, Channel: t.SlackChannel}
	}
	start := time.Now()
	sctx, cancel := context.WithTimeout(ctx, h.cfg.Timeout)
	defer cancel()
	r, err := h.slack.Send(sctx, target, ev)
	res.StatusCode, res.Body, res.RetryAfter = r.StatusCode, r.Body, r.RetryAfter
	res.Duration = r.Duration
	if res.Duration == 0 {
		res.Duration = time.Since(start)
	}
	switch {
	case err == nil:
		res.OK = true
	case errors.Is(err, context.DeadlineExceeded) && r.StatusCode == 0:
		res.Error = "timeout after " + h.cfg.Timeout.String()
	default:
		res.Error = err.Error()
	}
	return res
}

// open unseals a stored secret; "" stays "".
func (h *Hub) open(sealed string) (string, error) {
	if sealed == "" {
		return "", nil
	}
	if h.cfg.Secrets == nil {
		return "", fmt.Errorf("no secrets key in this process: %w", ErrSealedSecret)
	}
	return h.cfg.Secrets.Open(sealed)
}
