package delivery

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"outreachd/outreach"
)

// Destinations manages the event destinations of organizations: it validates what is given
// (destinations_rules.go), checks URLs against the SSRF guard, seals secrets, rotates them, and
// reaches the hub for a test send, a resend or a recover. The HTTP API (api/destinations.go), the
// application (webapp) and the operator CLI (`admin destination ...`) all go through it, so they
// refuse the same input with the same words; none of them needs another's package for it.
// Decisions: docs/decisions/destinations.md.
type Destinations struct {
	store *Store
	cfg   DestinationsConfig
}

// SecretSealer seals secrets for storage (SecretBox).
type SecretSealer interface {
	Seal(plaintext string) (string, error)
}

// URLChecker refuses URLs that must not be contacted (adapters/webhook.Guard: scheme and SSRF).
type URLChecker interface {
	CheckURL(ctx context.Context, rawURL string) error
}

// DestinationsConfig holds what Destinations is built from. Hub may be nil (Test, Resend and
// Recover then answer ErrHubUnavailable); Sealer and Guard are required.
type DestinationsConfig struct {
	Hub    *Hub
	Sealer SecretSealer
	Guard  URLChecker
	// NewSecret makes a signing secret for "secret": "generate"; nil means GenerateSecret.
	NewSecret func() string
	// SecretRotationOverlap is how long a replaced secret keeps signing beside the new one
	// (0: it is dropped at once).
	SecretRotationOverlap time.Duration
}

// NewDestinations builds the destination manager.
func NewDestinations(store *Store, cfg DestinationsConfig) (*Destinations, error) {
	if store == nil || cfg.Sealer == nil || cfg.Guard == nil {
		return nil, errors.New("destinations: store, sealer and guard are required")
	}
	if cfg.NewSecret == nil {
		cfg.NewSecret = GenerateSecret
	}
	return &Destinations{store: store, cfg: cfg}, nil
}

// ErrHubUnavailable answers a test send, resend or recover in a process whose manager was built
// without the hub (the API maps it to 503).
var ErrHubUnavailable = errors.New("the delivery hub is not running in this process")

// Create validates spec, checks its URL against the SSRF guard, seals its secrets and stores it.
// generated is the signing secret when the service made it (spec.Secret GenerateSecretValue), else "".
func (m *Destinations) Create(ctx context.Context, orgID string, spec DestinationSpec) (d Destination, generated string, err error) {
	d = Destination{OrgID: orgID, Kind: strings.TrimSpace(spec.Kind), URL: strings.TrimSpace(spec.URL),
		Name: strings.TrimSpace(spec.Name), SlackChannel: strings.TrimSpace(spec.SlackChannel), Enabled: true}
	if d.Kind == "" {
		d.Kind = outreach.DestinationHTTPS
	}
	if d.Kind != outreach.DestinationHTTPS && d.Kind != outreach.DestinationSlack {
		return d, "", invalidField("kind", "must be https or slack, got %q", d.Kind)
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
	f, err := checkFilter(spec.Filter, d.Events)
	if err != nil {
		return d, "", err
	}
	d.Filter = f.Raw()
	if err := checkRateLimit(spec.RateLimitPerSecond); err != nil {
		return d, "", err
	}
	d.RateLimitPerSecond = spec.RateLimitPerSecond
	if d.SlackTokenSealed, err = m.sealField("slack_bot_token", spec.SlackBotToken, maxSlackField); err != nil {
		return d, "", err
	}
	if spec.Secret == GenerateSecretValue {
		generated = m.cfg.NewSecret()
		spec.Secret = generated
	} else if spec.Secret != "" && strings.TrimSpace(spec.Secret) == "" {
		return d, "", invalidField("secret", "must not be blank")
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

// Update applies patch. A changed URL is checked against the guard before the row is locked. A
// filter is checked against the selection the destination ends up with, and a change of events
// alone checks the stored filter against the new selection.
func (m *Destinations) Update(ctx context.Context, orgID, id string, p DestinationPatch) (d Destination, generated string, err error) {
	var events []string
	if p.Events != nil {
		if events, err = ParseEventSelection(p.Events); err != nil {
			return d, "", err
		}
	}
	if p.SetRateLimit {
		if err := checkRateLimit(p.RateLimitPerSecond); err != nil {
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
		if s == GenerateSecretValue {
			generated = m.cfg.NewSecret()
			s = generated
		}
		if secret, err = m.sealField("secret", s, maxSecretLen); err != nil {
			return d, "", err
		}
	}
	d, err = m.store.UpdateDestination(ctx, orgID, id, func(d *Destination) error {
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
		if err := applyLimits(d, p, events != nil); err != nil {
			return err
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

// applyLimits sets the filter and the rate limit a patch gives, on d as it is after the patch's
// events (eventsChanged: the patch changed them). It does no I/O: it runs under the row lock.
func applyLimits(d *Destination, p DestinationPatch, eventsChanged bool) error {
	switch {
	case p.Filter != nil:
		f, err := checkFilter(p.Filter, d.Events)
		if err != nil {
			return err
		}
		d.Filter = f.Raw()
	case eventsChanged:
		if err := recheckFilter(d.Filter, d.Events); err != nil {
			return err
		}
	}
	if p.SetRateLimit {
		d.RateLimitPerSecond = p.RateLimitPerSecond
	}
	return nil
}

// Test sends a sample of event (a kind d selected; "" = the first it selects) to d now.
func (m *Destinations) Test(ctx context.Context, d Destination, event string) (outreach.EventKind, AttemptView, error) {
	selected := kinds(d.Events)
	var kind outreach.EventKind
	if event == "" {
		kind = outreach.AllEventKinds()[0]
		if len(selected) > 0 && selected[0] != outreach.EventsAll {
			kind = selected[0]
		}
	} else {
		k, ok := outreach.ParseEventKind(event)
		if !ok {
			return "", AttemptView{}, unknownKind("event", event, false)
		}
		if !k.Matches(selected) {
			return "", AttemptView{}, invalidField("event", "%s is not among the events this destination selected (%s)", k, strings.Join(d.Events, ", "))
		}
		kind = k
	}
	if m.cfg.Hub == nil {
		return kind, AttemptView{}, ErrHubUnavailable
	}
	res, err := m.cfg.Hub.SendTest(ctx, d, kind)
	return kind, res, err
}

// RecoverRange selects failed deliveries created in [From, To), of one destination when set.
type RecoverRange struct {
	From, To      time.Time
	DestinationID string
}

// Resend makes a new attempt of one delivery of orgID now, whatever its state (Hub.Resend).
func (m *Destinations) Resend(ctx context.Context, orgID, deliveryID string) error {
	if m.cfg.Hub == nil {
		return ErrHubUnavailable
	}
	return m.cfg.Hub.Resend(ctx, orgID, deliveryID)
}

// Recover puts the failed deliveries of the range back in the queue with a fresh attempt budget
// and reports how many (Hub.RecoverDestination).
func (m *Destinations) Recover(ctx context.Context, orgID string, r RecoverRange) (int, error) {
	if m.cfg.Hub == nil {
		return 0, ErrHubUnavailable
	}
	return m.cfg.Hub.RecoverDestination(ctx, orgID, r.DestinationID, r.From, r.To)
}

func (m *Destinations) sealField(field, value string, max int) (*string, error) {
	if value == "" {
		return nil, nil
	}
	if len(value) > max {
		return nil, invalidField(field, "longer than %d characters", max)
	}
	if strings.ContainsAny(value, " \t\r\n") {
		return nil, invalidField(field, "must not contain whitespace")
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
		return invalidField("url", "longer than %d characters", maxDestinationURL)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := m.cfg.Guard.CheckURL(ctx, raw); err != nil {
		return invalidField("url", "%s is refused: %v", raw, err)
	}
	return nil
}

// rotateSecret replaces d's secret with sealed (nil removes it). The secret being replaced keeps
// signing beside the new one for the configured overlap, so receivers can switch over without
// failing deliveries; a secret replaced again within its overlap drops the one before it, and
// removing the secret ends any rotation (nothing is signed any more).
func (m *Destinations) rotateSecret(d *Destination, sealed *string, now time.Time) {
	old := d.SecretSealed
	d.SecretSealed = sealed
	d.PreviousSecretSealed, d.RotationEndsAt = nil, nil
	if old != nil && sealed != nil && m.cfg.SecretRotationOverlap > 0 {
		ends := now.Add(m.cfg.SecretRotationOverlap)
		d.PreviousSecretSealed, d.RotationEndsAt = old, &ends
	}
}
