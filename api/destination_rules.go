package api

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"outreachd/outreach"
	"outreachd/storage"
)

// The rules of Event Destinations that the HTTP API and the operator CLI share live
// on Destinations, so `admin destination create` and
// POST /destinations refuse exactly the same input with the same words.
// Decisions: docs/decisions/destinations.md.

// DeliveryHub is what these endpoints need of the delivery pipeline.
type DeliveryHub interface {
	// SendTest sends one sample of kind to d at once, records it as a test attempt and reports it.
	SendTest(ctx context.Context, d storage.Destination, kind outreach.EventKind) (TestSendResult, error)
	// Resend makes a new attempt of one delivery now, whatever its state.
	Resend(ctx context.Context, orgID, deliveryID string) error
	// Recover puts the failed deliveries of the range back in the queue with a fresh attempt budget.
	Recover(ctx context.Context, orgID string, r RecoverRange) (int, error)
}

// TestSendResult is the outcome of one test send.
type TestSendResult struct {
	StatusCode int    // 0 when no HTTP answer came
	Error      string // "" on success
	Duration   time.Duration
}

// RecoverRange selects failed deliveries created in [From, To), of one destination when set.
type RecoverRange struct {
	From, To      time.Time
	DestinationID string
}

// SecretSealer seals secrets for storage (delivery.SecretBox).
type SecretSealer interface {
	Seal(plaintext string) (string, error)
}

// URLChecker refuses URLs that must not be contacted (webhook.Guard: scheme and SSRF).
type URLChecker interface {
	CheckURL(ctx context.Context, rawURL string) error
}

// DestinationsConfig holds what Destinations is built from. Hub may be nil (test and resend
// then answer 503); the others are required.
type DestinationsConfig struct {
	Hub       DeliveryHub
	Sealer    SecretSealer
	Guard     URLChecker
	NewSecret func() string // delivery.GenerateSecret
	// SecretRotationOverlap is how long a replaced secret keeps signing beside the new one
	// (0: it is dropped at once).
	SecretRotationOverlap time.Duration
}

// Destinations manages event destinations for the HTTP API and the operator CLI.
type Destinations struct {
	store *storage.Store
	cfg   DestinationsConfig
}

// NewDestinations builds the destination manager.
func NewDestinations(store *storage.Store, cfg DestinationsConfig) (*Destinations, error) {
	if store == nil || cfg.Sealer == nil || cfg.Guard == nil || cfg.NewSecret == nil {
		return nil, errors.New("destinations: store, sealer, guard and secret generator are required")
	}
	return &Destinations{store: store, cfg: cfg}, nil
}

// Limits on destination fields.
const (
	maxDestinationName = 200
	maxDestinationURL  = 2048
	maxSecretLen       = 512
	maxSlackField      = 256
	// GenerateSecret is the secret value that asks the service to make one (returned once).
	GenerateSecret = "generate"
)

// DestinationSpec is a new destination as given. Events nil means all; Secret "" means none.
type DestinationSpec struct {
	Name, Kind, URL             string
	Events                      []string
	Secret                      string
	SlackBotToken, SlackChannel string
	Enabled                     *bool
}

// DestinationPatch changes some fields; nil leaves a field alone. For Secret, SlackBotToken and
// SlackChannel a pointer to "" removes the value.
type DestinationPatch struct {
	Name, URL                   *string
	Events                      []string
	Secret                      *string
	SlackBotToken, SlackChannel *string
	Enabled                     *bool
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), outreach.ErrInvalid)
}

// ParseEventSelection validates a selection: exactly ["all"], or distinct event kinds.
func ParseEventSelection(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, invalid(`events: select at least one event kind, or "all"`)
	}
	var out []string
	for _, e := range events {
		e = strings.TrimSpace(e)
		if e == string(outreach.EventsAll) {
			if len(events) > 1 {
				return nil, invalid(`events: "all" cannot be combined with other kinds`)
			}
			return []string{e}, nil
		}
		if _, ok := outreach.ParseEventKind(e); !ok {
			return nil, invalid("events: unknown event kind %q", e)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Create validates spec, checks its URL against the SSRF guard, seals its secrets and stores it.
// generated is the signing secret when the service made it (spec.Secret "generate"), else "".
func (m *Destinations) Create(ctx context.Context, orgID string, spec DestinationSpec) (d storage.Destination, generated string, err error) {
	d = storage.Destination{OrgID: orgID, Kind: strings.TrimSpace(spec.Kind), URL: strings.TrimSpace(spec.URL),
		Name: strings.TrimSpace(spec.Name), SlackChannel: strings.TrimSpace(spec.SlackChannel), Enabled: true}
	if d.Kind == "" {
		d.Kind = storage.DestinationHTTPS
	}
	if d.Kind != storage.DestinationHTTPS && d.Kind != storage.DestinationSlack {
		return d, "", invalid("kind: must be https or slack, got %q", d.Kind)
	}
	if spec.Enabled != nil {
		d.Enabled = *spec.Enabled
	}
	d.Events = []string{string(outreach.EventsAll)}
	if spec.Events != nil {
		if d.Events, err = ParseEventSelection(spec.Events); err != nil {
			return d, "", err
		}
	}
	if d.SlackTokenSealed, err = m.sealField("slack_bot_token", spec.SlackBotToken, maxSlackField); err != nil {
		return d, "", err
	}
	if spec.Secret == GenerateSecret {
		generated = m.cfg.NewSecret()
		spec.Secret = generated
	} else if spec.Secret != "" && strings.TrimSpace(spec.Secret) == "" {
		return d, "", invalid("secret: must not be blank")
	}
	if d.SecretSealed, err = m.sealField("secret", spec.Secret, maxSecretLen); err != nil {
		return d, "", err
	}
	if d.Name == "" {
		d.Name = defaultName(d)
	}
	if err := checkShape(d); err != nil {
		return d, "", err
	}
	if err := m.checkURL(ctx, d.URL); err != nil {
		return d, "", err
	}
	d, err = m.store.CreateDestination(ctx, d)
	return d, generated, err
}

// Update applies patch. A changed URL is checked against the guard before the row is locked.
func (m *Destinations) Update(ctx context.Context, orgID, id string, p DestinationPatch) (d storage.Destination, generated string, err error) {
	var events []string
	if p.Events != nil {
		if events, err = ParseEventSelection(p.Events); err != nil {
			return d, "", err
		}
	}
	newURL := ""
	if p.URL != nil {
		newURL = strings.TrimSpace(*p.URL)
		if err := m.checkURL(ctx, newURL); err != nil {
			return d, "", err
		}
	}
	var token, secret *string
	if p.SlackBotToken != nil {
		if token, err = m.sealField("slack_bot_token", *p.SlackBotToken, maxSlackField); err != nil {
			return d, "", err
		}
	}
	if p.Secret != nil {
		s := *p.Secret
		if s == GenerateSecret {
			generated = m.cfg.NewSecret()
			s = generated
		}
		if secret, err = m.sealField("secret", s, maxSecretLen); err != nil {
			return d, "", err
		}
	}
	d, err = m.store.UpdateDestination(ctx, orgID, id, func(d *storage.Destination) error {
		if p.Name != nil {
			d.Name = strings.TrimSpace(*p.Name)
			if d.Name == "" {
				d.Name = defaultName(*d)
			}
		}
		if p.URL != nil {
			d.URL = newURL
		}
		if events != nil {
			d.Events = events
		}
		if p.SlackBotToken != nil {
			d.SlackTokenSealed = token
		}
		if p.SlackChannel != nil {
			d.SlackChannel = strings.TrimSpace(*p.SlackChannel)
		}
		if p.Secret != nil {
			m.rotateSecret(d, secret, time.Now())
		}
		if p.Enabled != nil {
			d.Enabled = *p.Enabled
		}
		return checkShape(*d)
	})
	return d, generated, err
}

// Test sends a sample of event (a kind d selected; "" = the first it selects) to d now.
func (m *Destinations) Test(ctx context.Context, d storage.Destination, event string) (outreach.EventKind, TestSendResult, error) {
	selected := make([]outreach.EventKind, len(d.Events))
	for i, e := range d.Events {
		selected[i] = outreach.EventKind(e)
	}
	var kind outreach.EventKind
	if event == "" {
		kind = outreach.AllEventKinds()[0]
		if len(selected) > 0 && selected[0] != outreach.EventsAll {
			kind = selected[0]
		}
	} else {
		k, ok := outreach.ParseEventKind(event)
		if !ok {
			return "", TestSendResult{}, invalid("event: unknown event kind %q", event)
		}
		if !k.Matches(selected) {
			return "", TestSendResult{}, invalid("event: %s is not among the events this destination selected (%s)", k, strings.Join(d.Events, ", "))
		}
		kind = k
	}
	if m.cfg.Hub == nil {
		return kind, TestSendResult{}, errHubUnavailable
	}
	res, err := m.cfg.Hub.SendTest(ctx, d, kind)
	return kind, res, err
}

var errHubUnavailable = errors.New("the delivery hub is not running in this process")

func (m *Destinations) sealField(field, value string, max int) (*string, error) {
	if value == "" {
		return nil, nil
	}
	if len(value) > max {
		return nil, invalid("%s: longer than %d characters", field, max)
	}
	if strings.ContainsAny(value, " \t\r\n") {
		return nil, invalid("%s: must not contain whitespace", field)
	}
	sealed, err := m.cfg.Sealer.Seal(value)
	if err != nil {
		return nil, fmt.Errorf("seal %s: %w", field, err)
	}
	return &sealed, nil
}

func (m *Destinations) checkURL(ctx context.Context, raw string) error {
	if raw == "" {
		return nil // checkShape says whether a URL is required
	}
	if len(raw) > maxDestinationURL {
		return invalid("url: longer than %d characters", maxDestinationURL)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := m.cfg.Guard.CheckURL(ctx, raw); err != nil {
		return invalid("url: %s is refused: %v", raw, err)
	}
	return nil
}

// checkShape is the per-kind rule a stored destination always satisfies; it does no I/O.
func checkShape(d storage.Destination) error {
	if len(d.Name) > maxDestinationName {
		return invalid("name: longer than %d characters", maxDestinationName)
	}
	if len(d.SlackChannel) > maxSlackField {
		return invalid("slack_channel: longer than %d characters", maxSlackField)
	}
	switch d.Kind {
	case storage.DestinationHTTPS:
		if d.URL == "" {
			return invalid("url: required for an https destination")
		}
		if d.SlackTokenSealed != nil || d.SlackChannel != "" {
			return invalid("slack_bot_token and slack_channel: only for a slack destination")
		}
	case storage.DestinationSlack:
		bot := d.SlackTokenSealed != nil || d.SlackChannel != ""
		switch {
		case d.URL != "" && bot:
			return invalid("url: a slack destination takes an incoming-webhook url, or slack_bot_token with slack_channel, not both")
		case d.URL == "" && !bot:
			return invalid("url: a slack destination needs an incoming-webhook url, or slack_bot_token with slack_channel")
		case bot && (d.SlackTokenSealed == nil || d.SlackChannel == ""):
			return invalid("slack_bot_token and slack_channel: both are required for a Slack bot destination")
		}
	}
	return nil
}

func defaultName(d storage.Destination) string {
	if d.Kind == storage.DestinationSlack && d.URL == "" {
		return "Slack " + d.SlackChannel
	}
	if u, err := url.Parse(d.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return d.Kind
}

// DisplayURL is the URL as shown: a Slack incoming-webhook URL is itself a credential (anyone
// holding it can post), so its last path segment is cut to four characters.
func DisplayURL(d storage.Destination) string {
	if d.Kind != storage.DestinationSlack || d.URL == "" {
		return d.URL
	}
	i := strings.LastIndex(d.URL, "/")
	if i < 0 || len(d.URL)-i-1 <= 4 {
		return d.URL
	}
	return d.URL[:i+1] + d.URL[i+1:i+5] + "…"
}

// rotateSecret replaces d's secret with sealed (nil removes it). The secret being replaced keeps
// signing beside the new one for the configured overlap, so receivers can switch over without
// failing deliveries; a secret replaced again within its overlap drops the one before it, and
// removing the secret ends any rotation (nothing is signed any more).
func (m *Destinations) rotateSecret(d *storage.Destination, sealed *string, now time.Time) {
	old := d.SecretSealed
	d.SecretSealed = sealed
	d.PreviousSecretSealed, d.RotationEndsAt = nil, nil
	if old != nil && sealed != nil && m.cfg.SecretRotationOverlap > 0 {
		ends := now.Add(m.cfg.SecretRotationOverlap)
		d.PreviousSecretSealed, d.RotationEndsAt = old, &ends
	}
}

// LastAttemptView is `last_attempt` (API and CLI): {at, event, attempt, status_code, error},
// plus response_excerpt, so the Event Destinations view explains a failure without a second call.
type LastAttemptView struct {
	At         string  `json:"at"`
	Event      string  `json:"event"`
	Attempt    int     `json:"attempt"`
	StatusCode int     `json:"status_code"`
	Error      *string `json:"error"`
	// ResponseExcerpt is the start of what the endpoint answered, or of the network error when
	// no answer came (ShortExcerpt); null when there was neither.
	ResponseExcerpt *string `json:"response_excerpt"`
}

// LastAttemptOf renders a's summary, or nil (JSON null) before any attempt.
func LastAttemptOf(a storage.AttemptLogEntry, ok bool) *LastAttemptView {
	if !ok {
		return nil
	}
	v := &LastAttemptView{At: outreach.FormatTime(a.At), Event: a.EventKind, Attempt: a.Attempt, StatusCode: a.StatusCode, Error: a.Error}
	src := ""
	if a.ResponseExcerpt != nil {
		src = *a.ResponseExcerpt
	}
	if strings.TrimSpace(src) == "" && a.Error != nil {
		src = *a.Error
	}
	if ex := ShortExcerpt(src, MaxShortExcerpt); ex != "" {
		v.ResponseExcerpt = &ex
	}
	return v
}

// MaxShortExcerpt is the most bytes of last_attempt.response_excerpt.
const MaxShortExcerpt = 256

// ShortExcerpt makes a one-line summary of text written by someone else (a receiver's answer):
// valid UTF-8, control characters removed, runs of white space (line breaks and tabs included)
// made one space, trimmed, and cut on a character boundary to at most max bytes.
func ShortExcerpt(text string, max int) string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range text {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			continue
		}
		n := utf8.RuneLen(r)
		if space {
			n++
		}
		if b.Len()+n > max {
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

type destinationView struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Kind      string   `json:"kind"`
	URL       string   `json:"url"`
	Events    []string `json:"events"`
	HasSecret bool     `json:"has_secret"`
	// SecretRotationEndsAt is when the replaced secret stops signing beside the new one; null
	// when no rotation is running.
	SecretRotationEndsAt *string          `json:"secret_rotation_ends_at"`
	SlackChannel         *string          `json:"slack_channel"`
	Enabled              bool             `json:"enabled"`
	ConsecutiveFailures  int              `json:"consecutive_failures"`
	LastAttempt          *LastAttemptView `json:"last_attempt"`
	CreatedAt            string           `json:"created_at"`
	UpdatedAt            string           `json:"updated_at"`
	// Secret is present once: in the answer that generated it.
	Secret string `json:"secret,omitempty"`
}

func viewDestination(d storage.Destination, last *LastAttemptView) destinationView {
	v := destinationView{ID: d.ID, Name: d.Name, Kind: d.Kind, URL: DisplayURL(d), Events: d.Events,
		HasSecret: d.SecretSealed != nil, Enabled: d.Enabled, ConsecutiveFailures: d.ConsecutiveFailures,
		LastAttempt: last, CreatedAt: outreach.FormatTime(d.CreatedAt), UpdatedAt: outreach.FormatTime(d.UpdatedAt),
		SecretRotationEndsAt: outreach.FormatTimePtr(d.RotationEndsAt)}
	if d.SlackChannel != "" {
		v.SlackChannel = &d.SlackChannel
	}
	return v
}
