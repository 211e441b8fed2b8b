package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"outreachd/outreach"
)

// Error codes of decisions.md §3 (binding).
const (
	codeInvalidAPIKey     = "invalid_api_key"
	codeInsufficientScope = "insufficient_scope"
	codeNotFound          = "not_found"
	codeInvalidRequest    = "invalid_request"
	codeCampaignClosed    = "campaign_closed"
	codeInvalidFilters    = "invalid_filters"
	codeInternal          = "internal_error"
)

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// writeError answers with the coded shape {"error":{"code","message"}}.
func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, errorBody{Error: errorDetail{Code: code, Message: message}})
}

// writePlainError answers with the plain shape {"error":"..."} that GET /analytics/daily,
// POST /api/webhooks/conversions and every 429 use.
func writePlainError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]string{"error": message})
}

// classify is the one mapping from errors to HTTP: status, code and a message safe to show.
// Messages of client errors come from our own wrapping and name the problem; a 5xx never
// carries err.Error().
func classify(err error) (int, string, string) {
	switch {
	case errors.Is(err, outreach.ErrInvalidFilters):
		return http.StatusUnprocessableEntity, codeInvalidFilters, clientMessage(err)
	case errors.Is(err, outreach.ErrInvalid):
		return http.StatusBadRequest, codeInvalidRequest, clientMessage(err)
	case errors.Is(err, outreach.ErrNotFound):
		return http.StatusNotFound, codeNotFound, clientMessage(err)
	case errors.Is(err, outreach.ErrCampaignClosed):
		return http.StatusConflict, codeCampaignClosed, clientMessage(err)
	case errors.Is(err, outreach.ErrConflict):
		return http.StatusConflict, "conflict", clientMessage(err)
	default:
		return http.StatusInternalServerError, codeInternal, "internal error; it has been logged"
	}
}

// clientMessage strips the sentinels' own words from a wrapped message, so that
// "campaign_id: invalid input: not a campaign id" reads "campaign_id: not a campaign id".
func clientMessage(err error) string {
	msg := outreach.Describe(err)
	return strings.ReplaceAll(msg, outreach.ErrInvalidFilters.Error()+": ", "")
}

// fail answers err in the coded shape and logs server errors.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, code, msg := classify(err)
	if status >= 500 {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeError(w, status, code, msg)
}

// failPlain answers err in the plain shape.
func (s *Server) failPlain(w http.ResponseWriter, r *http.Request, err error) {
	status, _, msg := classify(err)
	if status >= 500 {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writePlainError(w, status, msg)
}
