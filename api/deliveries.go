package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"outreachd/delivery"
	"outreachd/outreach"
)

// The delivery log, manual resend of one delivery and bulk recover of failed deliveries over a
// time range: the operator's view of what the hub did.

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
	return time.Time{}, invalidField(name, "must be an ISO 8601 timestamp like 2026-03-01T00:00:00Z or a day like 2026-03-01, got %q", raw)
}

var deliveryStatuses = []string{"pending", "succeeded", "failed"}

func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request) {
	m, ok := s.destinations(w, r, false)
	if !ok {
		return
	}
	org := PrincipalFrom(r.Context()).OrgID
	page, err := parsePage(r, 200)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	q := delivery.DeliveryLogQuery{Limit: page.Limit, Offset: page.Offset}
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
		// A deleted destination's deliveries stay readable until the retention removes them.
		if _, err := m.ForLog(r.Context(), org, q.DestinationID); err != nil {
			s.fail(w, r, fmt.Errorf("query parameter destination_id: %w", err))
			return
		}
	}
	list, total, err := m.Deliveries(r.Context(), org, q)
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
	m, ok := s.destinations(w, r, true)
	if !ok {
		return
	}
	id := mux.Vars(r)["id"]
	if err := m.Resend(r.Context(), PrincipalFrom(r.Context()).OrgID, id); err != nil {
		s.failDestinations(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"data": map[string]any{"delivery_id": id, "resent": true}})
}

func (s *Server) recoverDeliveries(w http.ResponseWriter, r *http.Request) {
	m, ok := s.destinations(w, r, true)
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
	var rr delivery.RecoverRange
	var err error
	switch {
	case req.From == "" || req.To == "":
		err = invalidField("from and to", "both are required")
	default:
		if rr.From, err = parseTimeParam("from", req.From, false); err == nil {
			rr.To, err = parseTimeParam("to", req.To, true)
		}
	}
	if err == nil && !rr.To.After(rr.From) {
		err = invalidField("to", "must be after from")
	}
	if err == nil && req.DestinationID != "" {
		rr.DestinationID = req.DestinationID
		_, err = m.Get(r.Context(), org, req.DestinationID)
		if err != nil {
			err = fmt.Errorf("destination_id: %w", err)
		}
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	n, err := m.Recover(r.Context(), org, rr)
	if err != nil {
		s.failDestinations(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"recovered": n,
		"from": outreach.FormatTime(rr.From), "to": outreach.FormatTime(rr.To), "destination_id": nonEmpty(rr.DestinationID)}})
}
