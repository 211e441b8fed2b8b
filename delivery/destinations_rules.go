package delivery

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"outreachd/outreach"
)

// The rules a destination's fields obey, without I/O: the event selection, the per-kind shape,
// the default name and the URL as shown. Destinations applies them on every create and update.

// Limits on destination fields.
const (
	maxDestinationName = 200
	maxDestinationURL  = 2048
	maxSecretLen       = 512
	maxSlackField      = 256
)

// GenerateSecretValue is the secret value that asks the service to make one (returned once).
const GenerateSecretValue = "generate"

// DestinationSpec is a new destination as given. Events nil means all; Secret "" means none;
// Filter nil or JSON null means none (destinations_limits.go has its rules and the rate limit's).
type DestinationSpec struct {
	Name, Kind, URL             string
	Events                      []string
	Filter                      json.RawMessage
	RateLimitPerSecond          *int
	Secret                      string
	SlackBotToken, SlackChannel string
	Enabled                     *bool
}

// DestinationPatch changes some fields; nil leaves a field alone. For Secret, SlackBotToken and
// SlackChannel a pointer to "" removes the value; Filter JSON null removes the filter; with
// SetRateLimit, RateLimitPerSecond replaces the rate limit (nil removes it).
type DestinationPatch struct {
	Name, URL                   *string
	Events                      []string
	Filter                      json.RawMessage
	SetRateLimit                bool
	RateLimitPerSecond          *int
	Secret                      *string
	SlackBotToken, SlackChannel *string
	Enabled                     *bool
}

// invalidField is input the caller must fix (outreach.InvalidInputError), worded "field: problem".
func invalidField(field, format string, args ...any) error {
	return outreach.InvalidField(field, format, args...)
}

// SplitEvents reads an event selection written as one string, as the application's form, the
// operator CLI's --events and the API's `events` (as a string) take it: "all", or kinds separated
// by commas or white space. Empty (not nil) when s names none: ParseEventSelection refuses that.
func SplitEvents(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	if f == nil {
		return []string{}
	}
	return f
}

// unknownKind refuses an event kind the catalog does not have, listing the ones it has (and
// "all", where a selection is asked for).
func unknownKind(field, kind string, selection bool) error {
	kinds := outreach.AllEventKinds()
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	also := ""
	if selection {
		also = `, or "all" for every one`
	}
	return invalidField(field, "unknown event kind %q; the kinds are %s%s", kind, strings.Join(names, ", "), also)
}

// ParseEventSelection validates a selection: exactly ["all"], or distinct event kinds.
func ParseEventSelection(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, invalidField("events", `select at least one event kind, or "all"`)
	}
	var out []string
	for _, e := range events {
		e = strings.TrimSpace(e)
		if e == string(outreach.EventsAll) {
			if len(events) > 1 {
				return nil, invalidField("events", `"all" cannot be combined with other kinds`)
			}
			return []string{e}, nil
		}
		if _, ok := outreach.ParseEventKind(e); !ok {
			return nil, unknownKind("events", e, true)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// checkShape is the per-kind rule a stored destination always satisfies; it does no I/O.
func checkShape(d Destination) error {
	if len(d.Name) > maxDestinationName {
		return invalidField("name", "longer than %d characters", maxDestinationName)
	}
	if len(d.SlackChannel) > maxSlackField {
		return invalidField("slack_channel", "longer than %d characters", maxSlackField)
	}
	switch d.Kind {
	case outreach.DestinationHTTPS:
		if d.URL == "" {
			return invalidField("url", "required for an https destination")
		}
		if d.SlackTokenSealed != nil || d.SlackChannel != "" {
			return invalidField("slack_bot_token and slack_channel", "only for a slack destination")
		}
	case outreach.DestinationSlack:
		bot := d.SlackTokenSealed != nil || d.SlackChannel != ""
		switch {
		case d.URL != "" && bot:
			return invalidField("url", "a slack destination takes an incoming-webhook url, or slack_bot_token with slack_channel, not both")
		case d.URL == "" && !bot:
			return invalidField("url", "a slack destination needs an incoming-webhook url, or slack_bot_token with slack_channel")
		case bot && (d.SlackTokenSealed == nil || d.SlackChannel == ""):
			return invalidField("slack_bot_token and slack_channel", "both are required for a Slack bot destination")
		}
	}
	return nil
}

func defaultName(d Destination) string {
	if d.Kind == outreach.DestinationSlack && d.URL == "" {
		return "Slack " + d.SlackChannel
	}
	if u, err := url.Parse(d.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return d.Kind
}

// DisplayURL is the URL as shown: a Slack incoming-webhook URL is itself a credential (anyone
// holding it can post), so its last path segment is cut to four characters.
func DisplayURL(d Destination) string {
	if d.Kind != outreach.DestinationSlack || d.URL == "" {
		return d.URL
	}
	i := strings.LastIndex(d.URL, "/")
	if i < 0 || len(d.URL)-i-1 <= 4 {
		return d.URL
	}
	return d.URL[:i+1] + d.URL[i+1:i+5] + "…"
}
