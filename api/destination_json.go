package api

import (
	"encoding/json"
	"net/http"

	"outreachd/delivery"
	"outreachd/outreach"
)

// The JSON of the Event Destinations endpoints: the create/update body and how it is read, and
// the shapes of a destination and of an attempt in answers. The rules themselves are
// delivery.Destinations'.

// destinationRequest is the body of POST and PATCH /destinations. The nullable fields stay raw
// so that PATCH can tell "absent" (keep) from null (remove).
type destinationRequest struct {
	Name          *string         `json:"name"`
	Kind          *string         `json:"kind"`
	URL           *string         `json:"url"`
	Events        json.RawMessage `json:"events"`
	Filter        json.RawMessage `json:"filter"`
	RateLimit     json.RawMessage `json:"rate_limit_per_second"`
	Secret        json.RawMessage `json:"secret"`
	SlackBotToken json.RawMessage `json:"slack_bot_token"`
	SlackChannel  json.RawMessage `json:"slack_channel"`
	Enabled       *bool           `json:"enabled"`
}

// parseEvents reads `events`: an array of kinds, or one string, "all" or kinds separated by
// commas, as the application and the operator CLI take them (delivery.SplitEvents). nil when
// absent; the selection's rules are delivery.ParseEventSelection's.
func parseEvents(raw json.RawMessage) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return delivery.SplitEvents(one), nil
	}
	var list []string
	if string(raw) == "null" || json.Unmarshal(raw, &list) != nil {
		return nil, invalidField("events", `must be an array of event kinds, or a string: "all" or event kinds separated by commas`)
	}
	if list == nil {
		list = []string{}
	}
	return list, nil
}

// parseNullable reads a string that null removes: nil when absent, a pointer to "" for null.
func parseNullable(field string, raw json.RawMessage) (*string, error) {
	if raw == nil {
		return nil, nil
	}
	var s *string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, invalidField(field, "must be a string or null")
	}
	if s == nil {
		empty := ""
		return &empty, nil
	}
	if *s == "" {
		return nil, invalidField(field, "must not be empty (send null to remove it)")
	}
	return s, nil
}

// parseRateLimit reads `rate_limit_per_second` when it is sent (raw not nil); null removes the
// limit. Its range is delivery's rule.
func parseRateLimit(raw json.RawMessage) (n *int, err error) {
	if raw == nil {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, invalidField("rate_limit_per_second", "must be an integer from %d to %d (attempts per second), or null for no limit",
			delivery.MinRateLimitPerSecond, delivery.MaxRateLimitPerSecond)
	}
	return n, nil
}

// destinationInput is a decoded create or update body with its loose fields resolved: the event
// selection parsed, and the fields where null (clear) differs from absent (keep). The filter
// stays raw: delivery checks it against the selection.
type destinationInput struct {
	destinationRequest
	events                 []string
	secret, token, channel *string
	rateLimit              *int // rate_limit_per_second, when RateLimit was sent
}

// destinationBody reads a create or update body; both endpoints refuse the same input alike. On
// failure it has answered.
func (s *Server) destinationBody(w http.ResponseWriter, r *http.Request) (destinationInput, bool) {
	in, err := decodeDestination(r)
	if err != nil {
		s.fail(w, r, err)
		return in, false
	}
	return in, true
}

func decodeDestination(r *http.Request) (in destinationInput, err error) {
	if err = decodeJSON(r, &in.destinationRequest); err != nil {
		return in, err
	}
	if in.events, err = parseEvents(in.Events); err != nil {
		return in, err
	}
	if in.secret, err = parseNullable("secret", in.Secret); err != nil {
		return in, err
	}
	if in.token, err = parseNullable("slack_bot_token", in.SlackBotToken); err != nil {
		return in, err
	}
	if in.rateLimit, err = parseRateLimit(in.RateLimit); err != nil {
		return in, err
	}
	in.channel, err = parseNullable("slack_channel", in.SlackChannel)
	return in, err
}

type destinationView struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Kind   string   `json:"kind"`
	URL    string   `json:"url"`
	Events []string `json:"events"`
	// Filter is the destination's filter as given (compacted), null for none.
	Filter json.RawMessage `json:"filter"`
	// RateLimitPerSecond is the throttle, null for none.
	RateLimitPerSecond *int `json:"rate_limit_per_second"`
	HasSecret          bool `json:"has_secret"`
	// SecretRotationEndsAt is when the replaced secret stops signing beside the new one; null
	// when no rotation is running.
	SecretRotationEndsAt *string                   `json:"secret_rotation_ends_at"`
	SlackChannel         *string                   `json:"slack_channel"`
	Enabled              bool                      `json:"enabled"`
	ConsecutiveFailures  int                       `json:"consecutive_failures"`
	LastAttempt          *delivery.LastAttemptView `json:"last_attempt"`
	CreatedAt            string                    `json:"created_at"`
	UpdatedAt            string                    `json:"updated_at"`
	// Secret is present once: in the answer that generated it.
	Secret string `json:"secret,omitempty"`
}

func viewDestination(d delivery.Destination, last *delivery.LastAttemptView) destinationView {
	v := destinationView{ID: d.ID, Name: d.Name, Kind: d.Kind, URL: delivery.DisplayURL(d), Events: d.Events,
		Filter: d.Filter, RateLimitPerSecond: d.RateLimitPerSecond, HasSecret: d.SecretSealed != nil, Enabled: d.Enabled, ConsecutiveFailures: d.ConsecutiveFailures,
		LastAttempt: last, CreatedAt: outreach.FormatTime(d.CreatedAt), UpdatedAt: outreach.FormatTime(d.UpdatedAt),
		SecretRotationEndsAt: outreach.FormatTimePtr(d.RotationEndsAt)}
	if d.SlackChannel != "" {
		v.SlackChannel = &d.SlackChannel
	}
	return v
}

type attemptView struct {
	ID              int64   `json:"id"`
	DeliveryID      *string `json:"delivery_id"`
	EventID         string  `json:"event_id"`
	Event           string  `json:"event"`
	Attempt         int     `json:"attempt"`
	Trigger         string  `json:"trigger"`
	At              string  `json:"at"`
	URL             string  `json:"url"`
	StatusCode      int     `json:"status_code"`
	Error           *string `json:"error"`
	DurationMS      int     `json:"duration_ms"`
	ResponseExcerpt *string `json:"response_excerpt"`
	NextAttemptAt   *string `json:"next_attempt_at"`
	// ThrottledMS is set when the destination's rate limit held the attempt back: from when it
	// came due to its start, in milliseconds (a wait, not a failure); null otherwise.
	ThrottledMS *int `json:"throttled_ms"`
}
