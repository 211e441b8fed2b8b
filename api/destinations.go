package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// This file is the Event Destinations view of api-v1 §6.1 (list, create, update, delete, test,
// attempt history, last attempt) plus the delivery log, manual resend and bulk recover. The rules
// that the operator CLI shares live on Destinations, so `admin destination create` and
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

// ParseEventSelection validates a selection: exactly ["all"], or distinct kinds of api-v1 §6.2.
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
			d.SecretSealed = secret
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

// LastAttemptView is `last_attempt` of decisions §2: {at, event, attempt, status_code, error}.
type LastAttemptView struct {
	At         string  `json:"at"`
	Event      string  `json:"event"`
	Attempt    int     `json:"attempt"`
	StatusCode int     `json:"status_code"`
	Error      *string `json:"error"`
}

// LastAttemptOf renders a's summary, or nil (JSON null) before any attempt.
func LastAttemptOf(a storage.AttemptLogEntry, ok bool) *LastAttemptView {
	if !ok {
		return nil
	}
	return &LastAttemptView{At: outreach.FormatTime(a.At), Event: a.EventKind, Attempt: a.Attempt, StatusCode: a.StatusCode, Error: a.Error}
}

type destinationView struct {
	ID                  string           `json:"id"`
	Name                string           `json:"name"`
	Kind                string           `json:"kind"`
	URL                 string           `json:"url"`
	Events              []string         `json:"events"`
	HasSecret           bool             `json:"has_secret"`
	SlackChannel        *string          `json:"slack_channel"`
	Enabled             bool             `json:"enabled"`
	ConsecutiveFailures int              `json:"consecutive_failures"`
	LastAttempt         *LastAttemptView `json:"last_attempt"`
	CreatedAt           string           `json:"created_at"`
	UpdatedAt           string           `json:"updated_at"`
	// Secret is present once: in the answer that generated it.
	Secret string `json:"secret,omitempty"`
}

func viewDestination(d storage.Destination, last *LastAttemptView) destinationView {
	v := destinationView{ID: d.ID, Name: d.Name, Kind: d.Kind, URL: DisplayURL(d), Events: d.Events,
		HasSecret: d.SecretSealed != nil, Enabled: d.Enabled, ConsecutiveFailures: d.ConsecutiveFailures,
		LastAttempt: last, CreatedAt: outreach.FormatTime(d.CreatedAt), UpdatedAt: outreach.FormatTime(d.UpdatedAt)}
	if d.SlackChannel != "" {
		v.SlackChannel = &d.SlackChannel
	}
	return v
}

// ---- HTTP ----

func (s *Server) destinationRoutes(v1 *mux.Router) {
	v1.HandleFunc("/destinations", s.listDestinations).Methods(http.MethodGet)
	v1.HandleFunc("/destinations", s.createDestination).Methods(http.MethodPost)
	v1.HandleFunc("/destinations/{id}", s.getDestination).Methods(http.MethodGet)
	v1.HandleFunc("/destinations/{id}", s.patchDestination).Methods(http.MethodPatch)
	v1.HandleFunc("/destinations/{id}", s.deleteDestination).Methods(http.MethodDelete)
	v1.HandleFunc("/destinations/{id}/test", s.testDestination).Methods(http.MethodPost)
	v1.HandleFunc("/destinations/{id}/attempts", s.destinationAttempts).Methods(http.MethodGet)
	v1.HandleFunc("/deliveries", s.listDeliveries).Methods(http.MethodGet)
	v1.HandleFunc("/deliveries/recover", s.recoverDeliveries).Methods(http.MethodPost)
	v1.HandleFunc("/deliveries/{id}/resend", s.resendDelivery).Methods(http.MethodPost)
}

// destinations answers 503 when the manager is not wired (handler tests of other parts).
func (s *Server) destinations(w http.ResponseWriter) (*Destinations, bool) {
	if s.deps.Destinations == nil {
		writeError(w, http.StatusServiceUnavailable, "unavailable", "event destinations are not available in this process")
		return nil, false
	}
	return s.deps.Destinations, true
}

func (s *Server) failDestinations(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errHubUnavailable) {
		writeError(w, http.StatusServiceUnavailable, "unavailable", errHubUnavailable.Error())
		return
	}
	s.fail(w, r, err)
}

// destinationRequest is the body of POST and PATCH /destinations. The nullable fields stay raw
// so that PATCH can tell "absent" (keep) from null (remove).
type destinationRequest struct {
	Name          *string         `json:"name"`
	Kind          *string         `json:"kind"`
	URL           *string         `json:"url"`
	Events        json.RawMessage `json:"events"`
	Secret        json.RawMessage `json:"secret"`
	SlackBotToken json.RawMessage `json:"slack_bot_token"`
	SlackChannel  json.RawMessage `json:"slack_channel"`
	Enabled       *bool           `json:"enabled"`
}

// parseEvents reads `events`: an array of kinds, or the string "all". nil when absent.
func parseEvents(raw json.RawMessage) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil && one == string(outreach.EventsAll) {
		return []string{one}, nil
	}
	var list []string
	if string(raw) == "null" || json.Unmarshal(raw, &list) != nil {
		return nil, invalid(`events: must be an array of event kinds, or "all"`)
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
		return nil, invalid("%s: must be a string or null", field)
	}
	if s == nil {
		empty := ""
		return &empty, nil
	}
	if *s == "" {
		return nil, invalid("%s: must not be empty (send null to remove it)", field)
	}
	return s, nil
}

func (req destinationRequest) nullables() (secret, token, channel *string, err error) {
	if secret, err = parseNullable("secret", req.Secret); err != nil {
		return
	}
	if token, err = parseNullable("slack_bot_token", req.SlackBotToken); err != nil {
		return
	}
	channel, err = parseNullable("slack_channel", req.SlackChannel)
	return
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (s *Server) destinationOf(w http.ResponseWriter, r *http.Request) (*Destinations, storage.Destination, bool) {
	m, ok := s.destinations(w)
	if !ok {
		return nil, storage.Destination{}, false
	}
	id := mux.Vars(r)["id"]
	if !outreach.ValidID("dst", id) {
		writeError(w, http.StatusNotFound, codeNotFound, "destination "+id+": not found")
		return nil, storage.Destination{}, false
	}
	d, err := s.store.GetDestination(r.Context(), PrincipalFrom(r.Context()).OrgID, id)
	if err != nil {
		s.fail(w, r, err)
		return nil, storage.Destination{}, false
	}
	return m, d, true
}

func (s *Server) respondDestination(w http.ResponseWriter, r *http.Request, status int, d storage.Destination, generated string) {
	last, err := s.store.LastAttempts(r.Context(), d.OrgID, []string{d.ID})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	a, ok := last[d.ID]
	v := viewDestination(d, LastAttemptOf(a, ok))
	v.Secret = generated
	writeJSON(w, status, map[string]any{"data": v})
}

func (s *Server) listDestinations(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.destinations(w); !ok {
		return
	}
	org := PrincipalFrom(r.Context()).OrgID
	list, err := s.store.ListDestinations(r.Context(), org)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ids := make([]string, len(list))
	for i, d := range list {
		ids[i] = d.ID
	}
	last, err := s.store.LastAttempts(r.Context(), org, ids)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]destinationView, len(list))
	for i, d := range list {
		a, ok := last[d.ID]
		out[i] = viewDestination(d, LastAttemptOf(a, ok))
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

func (s *Server) createDestination(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	m, ok := s.destinations(w)
	if !ok {
		return
	}
	var req destinationRequest
	if err := decodeJSON(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	events, err := parseEvents(req.Events)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	secret, token, channel, err := req.nullables()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d, generated, err := m.Create(r.Context(), PrincipalFrom(r.Context()).OrgID, DestinationSpec{
		Name: deref(req.Name), Kind: deref(req.Kind), URL: deref(req.URL), Events: events, Secret: deref(secret),
		SlackBotToken: deref(token), SlackChannel: deref(channel), Enabled: req.Enabled,
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.respondDestination(w, r, http.StatusCreated, d, generated)
}

func (s *Server) getDestination(w http.ResponseWriter, r *http.Request) {
	if _, d, ok := s.destinationOf(w, r); ok {
		s.respondDestination(w, r, http.StatusOK, d, "")
	}
}

func (s *Server) patchDestination(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	m, d, ok := s.destinationOf(w, r)
	if !ok {
		return
	}
	var req destinationRequest
	if err := decodeJSON(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	if req.Kind != nil && *req.Kind != d.Kind {
		s.fail(w, r, invalid("kind: cannot be changed; create a new destination instead"))
		return
	}
	events, err := parseEvents(req.Events)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	secret, token, channel, err := req.nullables()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d, generated, err := m.Update(r.Context(), d.OrgID, d.ID, DestinationPatch{Name: req.Name, URL: req.URL, Events: events,
		Secret: secret, SlackBotToken: token, SlackChannel: channel, Enabled: req.Enabled})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.respondDestination(w, r, http.StatusOK, d, generated)
}

func (s *Server) deleteDestination(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	_, d, ok := s.destinationOf(w, r)
	if !ok {
		return
	}
	if err := s.store.DeleteDestination(r.Context(), d.OrgID, d.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"id": d.ID, "deleted": true}})
}

func (s *Server) testDestination(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	m, d, ok := s.destinationOf(w, r)
	if !ok {
		return
	}
	body, err := readBody(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var req struct {
		Event string `json:"event"`
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := decodeStrict(body, &req); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	kind, res, err := m.Test(r.Context(), d, req.Event)
	if err != nil {
		s.failDestinations(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": TestView(d.ID, kind, res)})
}

// TestView is the answer of a test send, shared with `admin destination test`.
func TestView(destID string, kind outreach.EventKind, res TestSendResult) map[string]any {
	var errText *string
	if res.Error != "" {
		errText = &res.Error
	}
	return map[string]any{"destination_id": destID, "event": kind, "ok": res.Error == "" && res.StatusCode/100 == 2,
		"status_code": res.StatusCode, "error": errText, "duration_ms": res.Duration.Milliseconds()}
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
}

func (s *Server) destinationAttempts(w http.ResponseWriter, r *http.Request) {
	_, d, ok := s.destinationOf(w, r)
	if !ok {
		return
	}
	page, err := parsePage(r, 200)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	list, total, err := s.store.AttemptLog(r.Context(), d.OrgID, d.ID, page.Limit, page.Offset)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]attemptView, len(list))
	for i, a := range list {
		shown := a.URL
		if d.Kind == storage.DestinationSlack {
			shown = DisplayURL(storage.Destination{Kind: d.Kind, URL: a.URL})
		}
		out[i] = attemptView{ID: a.ID, DeliveryID: a.DeliveryID, EventID: a.EventID, Event: a.EventKind, Attempt: a.Attempt,
			Trigger: a.Trigger, At: outreach.FormatTime(a.At), URL: shown, StatusCode: a.StatusCode, Error: a.Error,
			DurationMS: a.DurationMS, ResponseExcerpt: a.ResponseExcerpt, NextAttemptAt: outreach.FormatTimePtr(a.NextAttemptAt)}
	}
	page.Total = total
	writeJSON(w, http.StatusOK, map[string]any{"data": out, "pagination": page})
}

// parseTimeParam reads an ISO 8601 timestamp, or a YYYY-MM-DD day (its start in UTC; with
// endOfDay, the start of the next day, so a `to` day is included whole).
func parseTimeParam(name, raw string, endOfDay bool) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, raw); err == nil {
		if endOfDay {
			t = t.AddDate(0, 0, 1)
		}
		return t, nil
	}
	return time.Time{}, invalid("%s: must be an ISO 8601 timestamp like 2026-03-01T00:00:00Z or a day like 2026-03-01, got %q", name, raw)
}

var deliveryStatuses = []string{"pending", "succeeded", "failed"}

func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.destinations(w); !ok {
		return
	}
	org := PrincipalFrom(r.Context()).OrgID
	page, err := parsePage(r, 200)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	q := storage.DeliveryLogQuery{Limit: page.Limit, Offset: page.Offset}
	vals := r.URL.Query()
	if q.Status = vals.Get("status"); q.Status != "" && !slices.Contains(deliveryStatuses, q.Status) {
		s.fail(w, r, invalid("query parameter status must be one of %s, got %q", strings.Join(deliveryStatuses, ", "), q.Status))
		return
	}
	for _, p := range []struct {
		name string
		dst  **time.Time
		end  bool
	}{{"from", &q.From, false}, {"to", &q.To, true}} {
		if raw := vals.Get(p.name); raw != "" {
			t, err := parseTimeParam("query parameter "+p.name, raw, p.end)
			if err != nil {
				s.fail(w, r, err)
				return
			}
			*p.dst = &t
		}
	}
	if q.From != nil && q.To != nil && !q.To.After(*q.From) {
		s.fail(w, r, invalid("query parameter to must be after from"))
		return
	}
	if q.DestinationID = vals.Get("destination_id"); q.DestinationID != "" {
		if _, err := s.store.GetDestination(r.Context(), org, q.DestinationID); err != nil {
			s.fail(w, r, fmt.Errorf("query parameter destination_id: %w", err))
			return
		}
	}
	list, total, err := s.store.DeliveryLog(r.Context(), org, q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]map[string]any, len(list))
	for i, d := range list {
		out[i] = map[string]any{"id": d.ID, "destination_id": d.DestinationID, "event_id": d.EventID, "event": d.EventKind,
			"status": d.Status, "attempts": d.Attempts, "max_attempts": d.MaxAttempts,
			"next_attempt_at": outreach.FormatTimePtr(d.NextAttemptAt), "emitted_at": outreach.FormatTime(d.EmittedAt),
			"created_at": outreach.FormatTime(d.CreatedAt), "updated_at": outreach.FormatTime(d.UpdatedAt),
			"delivered_at": outreach.FormatTimePtr(d.DeliveredAt), "last_status_code": d.LastStatusCode, "last_error": d.LastError}
	}
	page.Total = total
	writeJSON(w, http.StatusOK, map[string]any{"data": out, "pagination": page})
}

func (s *Server) resendDelivery(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	m, ok := s.destinations(w)
	if !ok {
		return
	}
	if m.cfg.Hub == nil {
		s.failDestinations(w, r, errHubUnavailable)
		return
	}
	id := mux.Vars(r)["id"]
	if err := m.cfg.Hub.Resend(r.Context(), PrincipalFrom(r.Context()).OrgID, id); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"data": map[string]any{"delivery_id": id, "resent": true}})
}

func (s *Server) recoverDeliveries(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	m, ok := s.destinations(w)
	if !ok {
		return
	}
	var req struct {
		From          string `json:"from"`
		To            string `json:"to"`
		DestinationID string `json:"destination_id"`
	}
	if err := decodeJSON(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	org := PrincipalFrom(r.Context()).OrgID
	var rr RecoverRange
	var err error
	switch {
	case req.From == "" || req.To == "":
		err = invalid("from and to: both are required")
	default:
		if rr.From, err = parseTimeParam("from", req.From, false); err == nil {
			rr.To, err = parseTimeParam("to", req.To, true)
		}
	}
	if err == nil && !rr.To.After(rr.From) {
		err = invalid("to: must be after from")
	}
	if err == nil && req.DestinationID != "" {
		rr.DestinationID = req.DestinationID
		_, err = s.store.GetDestination(r.Context(), org, req.DestinationID)
		if err != nil {
			err = fmt.Errorf("destination_id: %w", err)
		}
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if m.cfg.Hub == nil {
		s.failDestinations(w, r, errHubUnavailable)
		return
	}
	n, err := m.cfg.Hub.Recover(r.Context(), org, rr)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"recovered": n,
		"from": outreach.FormatTime(rr.From), "to": outreach.FormatTime(rr.To), "destination_id": nilIfEmpty(rr.DestinationID)}})
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
