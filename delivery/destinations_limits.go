package delivery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

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

// checkFilter compiles a filter given for a destination selecting events: nil for none (absent
// or null). What is stored is its Raw text, compacted. A refusal names the place in the filter
// ("filter.$or[1].data.campaign.id: ...").
func checkFilter(raw json.RawMessage, events []string) (*outreach.Filter, error) {
	if isNullJSON(raw) {
		return nil, nil
	}
	return outreach.ParseFilter(raw, kinds(events))
}

// FilterPreview is how many of an organization's recent events a destination would receive.
type FilterPreview struct {
	Matched int // the events it would receive
	Of      int // the events looked at
}

// PreviewFilter checks an event selection (nil: all) and a filter as a create does, with the
// same words, and counts how many of bodies (events as the outbox stores them) a destination with
// them would receive: the application's "matches N of the last 100 events".
func PreviewFilter(events []string, filter json.RawMessage, bodies [][]byte) (FilterPreview, error) {
	sel := []string{string(outreach.EventsAll)}
	if events != nil {
		var err error
		if sel, err = ParseEventSelection(events); err != nil {
			return FilterPreview{}, err
		}
	}
	f, err := checkFilter(filter, sel)
	if err != nil {
		return FilterPreview{}, err
	}
	envs := make([]*outreach.Envelope, 0, len(bodies))
	for _, b := range bodies {
		env, err := outreach.DecodeEnvelope(b)
		if err != nil {
			return FilterPreview{}, fmt.Errorf("filter preview: %w", err)
		}
		envs = append(envs, env)
	}
	return FilterPreview{Matched: outreach.MatchingCount(f, kinds(sel), envs), Of: len(envs)}, nil
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
