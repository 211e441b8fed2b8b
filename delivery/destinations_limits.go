package delivery

import (
	"bytes"
	"encoding/json"
	"errors"

	"outreachd/outreach"
)

// The rules of what narrows or paces a destination's deliveries: its filter (outreach's filter
// language, checked against the event kinds it selects) and its rate limit. Destinations applies
// them on every create and update, so the API, the application and the operator CLI refuse the
// same input with the same words.

// Bounds of rate_limit_per_second.
const (
	MinRateLimitPerSecond = 1
	MaxRateLimitPerSecond = 1000
)

// isNullJSON reports whether raw is absent or JSON null: no filter.
func isNullJSON(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// checkFilter compiles a filter given for a destination selecting events and returns what is
// stored: the filter compacted, or nil for none (absent or null). A refusal names the place in
// the filter ("filter.$or[1].data.campaign.id: ...").
func checkFilter(raw json.RawMessage, events []string) (json.RawMessage, error) {
	if isNullJSON(raw) {
		return nil, nil
	}
	f, err := outreach.ParseFilter(raw, kinds(events))
	if err != nil {
		return nil, err
	}
	return f.Raw(), nil
}

// recheckFilter checks a stored filter against a new event selection (a change of events that
// leaves the filter as it is): a filter naming a field none of the new kinds has no longer fits.
func recheckFilter(stored json.RawMessage, events []string) error {
	if stored == nil {
		return nil
	}
	_, err := outreach.ParseFilter(stored, kinds(events))
	var bad *outreach.InvalidInputError
	if errors.As(err, &bad) {
		return invalidField("events", "the destination's filter does not fit this selection (%s); change or remove the filter (\"filter\": null) in the same request", bad.Message)
	}
	return err
}

// checkRateLimit refuses a rate limit outside 1–1000 (nil: none).
func checkRateLimit(n *int) error {
	if n != nil && (*n < MinRateLimitPerSecond || *n > MaxRateLimitPerSecond) {
		return invalidField("rate_limit_per_second", "must be an integer from %d to %d (attempts per second), or null for no limit; got %d",
			MinRateLimitPerSecond, MaxRateLimitPerSecond, *n)
	}
	return nil
}
