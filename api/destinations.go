package api

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"outreachd/delivery"
	"outreachd/outreach"
)

// The HTTP handlers of the Event Destinations view: they decode (destination_json.go), call the
// manager the application and the operator CLI share (delivery.Destinations, which holds every
// rule) and encode. The delivery log, resend and recover are in deliveries.go.

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

// destinations opens every handler of the Event Destinations endpoints: with write, the key must
// be read_write (403); and the manager must be wired in this process (503 otherwise, for handler
// tests of other parts).
func (s *Server) destinations(w http.ResponseWriter, r *http.Request, write bool) (*delivery.Destinations, bool) {
	if write && !requireWrite(w, r) {
		return nil, false
	}
	if s.deps.Destinations == nil {
		writeError(w, http.StatusServiceUnavailable, CodeNotInProcess, "event destinations are not available in this process")
		return nil, false
	}
	return s.deps.Destinations, true
}

func (s *Server) failDestinations(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, delivery.ErrHubUnavailable) {
		writeError(w, http.StatusServiceUnavailable, CodeNotInProcess, delivery.ErrHubUnavailable.Error())
		return
	}
	s.fail(w, r, err)
}

// destinationAccess is what a handler of one destination does with it.
type destinationAccess int

const (
	readDestination    destinationAccess = iota // read it
	writeDestination                            // change it: a read_write key
	readDestinationLog                          // read its logs: a deleted one's too, until it is purged
)

// destinationOf opens every handler of one destination (destinations), then reads the destination
// the path names, of the caller's organization; an id of another shape, or another
// organization's, is not found.
func (s *Server) destinationOf(w http.ResponseWriter, r *http.Request, access destinationAccess) (*delivery.Destinations, delivery.Destination, bool) {
	m, ok := s.destinations(w, r, access == writeDestination)
	if !ok {
		return nil, delivery.Destination{}, false
	}
	id := mux.Vars(r)["id"]
	if !outreach.ValidID("dst", id) {
		writeError(w, http.StatusNotFound, CodeNotFound, "destination "+id+": not found")
		return nil, delivery.Destination{}, false
	}
	org := PrincipalFrom(r.Context()).OrgID
	var d delivery.Destination
	var err error
	if access == readDestinationLog {
		d, err = m.ForLog(r.Context(), org, id)
	} else {
		d, err = m.Get(r.Context(), org, id)
	}
	if err != nil {
		s.fail(w, r, err)
		return nil, delivery.Destination{}, false
	}
	return m, d, true
}

func (s *Server) respondDestination(w http.ResponseWriter, r *http.Request, m *delivery.Destinations, status int, d delivery.Destination, generated string, warnings ...string) {
	a, ok, err := m.LastAttempt(r.Context(), d)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := viewDestination(d, delivery.LastAttemptOf(a, ok))
	v.Secret = generated
	body := map[string]any{"data": v}
	if len(warnings) > 0 {
		body["warnings"] = warnings
	}
	writeJSON(w, status, body)
}

func (s *Server) listDestinations(w http.ResponseWriter, r *http.Request) {
	m, ok := s.destinations(w, r, false)
	if !ok {
		return
	}
	list, last, err := m.List(r.Context(), PrincipalFrom(r.Context()).OrgID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]destinationView, len(list))
	for i, d := range list {
		a, ok := last[d.ID]
		out[i] = viewDestination(d, delivery.LastAttemptOf(a, ok))
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

func (s *Server) createDestination(w http.ResponseWriter, r *http.Request) {
	m, ok := s.destinations(w, r, true)
	if !ok {
		return
	}
	in, ok := s.destinationBody(w, r)
	if !ok {
		return
	}
	d, generated, err := m.Create(r.Context(), PrincipalFrom(r.Context()).OrgID, delivery.DestinationSpec{
		Name: deref(in.Name), Kind: deref(in.Kind), URL: deref(in.URL), Events: in.events, Filter: in.Filter,
		RateLimitPerSecond: in.rateLimit, Secret: deref(in.secret),
		SlackBotToken: deref(in.token), SlackChannel: deref(in.channel), Enabled: in.Enabled,
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.respondDestination(w, r, m, http.StatusCreated, d, generated, destinationWarnings(d)...)
}

// unsignedWarning is the warnings entry of an https destination created without a signing
// secret: accepted (a receiver may not verify), but its receivers cannot tell our requests from
// anyone else's.
const unsignedWarning = `no signing secret: requests to this destination carry webhook-id and webhook-timestamp but no ` +
	`webhook-signature, so the receiver cannot verify they come from outreachd; set "secret": "generate" (PATCH) to sign them`

// destinationWarnings lists what a client should know about a destination it just created.
func destinationWarnings(d delivery.Destination) []string {
	if d.Kind == outreach.DestinationHTTPS && d.SecretSealed == nil {
		return []string{unsignedWarning}
	}
	return nil
}

func (s *Server) getDestination(w http.ResponseWriter, r *http.Request) {
	if m, d, ok := s.destinationOf(w, r, readDestination); ok {
		s.respondDestination(w, r, m, http.StatusOK, d, "")
	}
}

func (s *Server) patchDestination(w http.ResponseWriter, r *http.Request) {
	m, d, ok := s.destinationOf(w, r, writeDestination)
	if !ok {
		return
	}
	in, ok := s.destinationBody(w, r)
	if !ok {
		return
	}
	if in.Kind != nil && *in.Kind != d.Kind {
		s.fail(w, r, invalidField("kind", "cannot be changed; create a new destination instead"))
		return
	}
	d, generated, err := m.Update(r.Context(), d.OrgID, d.ID, delivery.DestinationPatch{Name: in.Name, URL: in.URL, Events: in.events,
		Filter: in.Filter, SetRateLimit: in.RateLimit != nil, RateLimitPerSecond: in.rateLimit, Secret: in.secret, SlackBotToken: in.token, SlackChannel: in.channel, Enabled: in.Enabled})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.respondDestination(w, r, m, http.StatusOK, d, generated)
}

func (s *Server) deleteDestination(w http.ResponseWriter, r *http.Request) {
	m, d, ok := s.destinationOf(w, r, writeDestination)
	if !ok {
		return
	}
	if err := m.Delete(r.Context(), d.OrgID, d.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"id": d.ID, "deleted": true}})
}

func (s *Server) testDestination(w http.ResponseWriter, r *http.Request) {
	m, d, ok := s.destinationOf(w, r, writeDestination)
	if !ok {
		return
	}
	var req struct {
		Event string `json:"event"`
	}
	if err := decodeOptionalJSON(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	kind, res, err := m.Test(r.Context(), d, req.Event)
	if err != nil {
		s.failDestinations(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": delivery.TestView(d.ID, kind, res)})
}

// destinationAttempts is the attempt log of a destination, a deleted one's too until the
// delivery history's retention removes it: what was sent before a deletion stays readable.
// ?throttled=true keeps the attempts the destination's rate limit held back.
func (s *Server) destinationAttempts(w http.ResponseWriter, r *http.Request) {
	m, d, ok := s.destinationOf(w, r, readDestinationLog)
	if !ok {
		return
	}
	page, err := parsePage(r, 200)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var throttled bool
	switch v := r.URL.Query().Get("throttled"); v {
	case "", "false":
	case "true":
		throttled = true
	default:
		s.fail(w, r, invalidField("throttled", "must be true or false, got %q", v))
		return
	}
	list, total, err := m.Attempts(r.Context(), d.OrgID, d.ID, page.Limit, page.Offset, throttled)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]attemptView, len(list))
	for i, a := range list {
		shown := a.URL
		if d.Kind == outreach.DestinationSlack {
			shown = delivery.DisplayURL(delivery.Destination{Kind: d.Kind, URL: a.URL})
		}
		out[i] = attemptView{ID: a.ID, DeliveryID: a.DeliveryID, EventID: a.EventID, Event: a.EventKind, Attempt: a.Attempt,
			Trigger: a.Trigger, At: outreach.FormatTime(a.At), URL: shown, StatusCode: a.StatusCode, Error: a.Error,
			DurationMS: a.DurationMS, ResponseExcerpt: a.ResponseExcerpt, NextAttemptAt: outreach.FormatTimePtr(a.NextAttemptAt),
			ThrottledMS: a.ThrottledMS}
	}
	page.Total = total
	writeJSON(w, http.StatusOK, map[string]any{"data": out, "pagination": page})
}

// parseTimeParam reads an ISO 8601 timestamp, or a YYYY-MM-DD day (its start in UTC; with
// endOfDay, the start of the next day, so a `to` day is included whole).
