package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"outreachd/outreach"
)

// Error codes: clients rely on them exactly as written (docs/api.md, "Errors").
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

// writeJSON encodes v into a pooled buffer and sends it in one write with its Content-Length: a
// 50-prospect page is ≈ 30 KB, which streamed through the ResponseWriter's 4 KB buffer went out as
// a chunked body in eight or so writes.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := jsonBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 1<<20 { // do not keep a huge one-off buffer alive
			buf.Reset()
			jsonBuffers.Put(buf)
		}
	}()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		buf.Reset()
		status = http.StatusInternalServerError
		_ = json.NewEncoder(buf).Encode(errorBody{Error: errorDetail{Code: codeInternal, Message: "the response could not be encoded"}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeError answers with the coded shape {"error":{"code","message"}}.
func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, errorBody{Error: errorDetail{Code: code, Message: message}})
}

// writePlainError answers with the plain shape {"error":"..."} that GET /analytics/daily,
// POST /api/webhooks/conversions and every 429 use.
func writePlainError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]string{"error": message})
}

// plainErrorRoute reports the endpoints whose every error, 401 included, uses the plain shape
// (docs/api.md, "Errors"): GET /analytics/daily and POST /api/webhooks/conversions.
func plainErrorRoute(r *http.Request) bool {
	return (r.Method == http.MethodGet && r.URL.Path == "/api/v1/analytics/daily") ||
		(r.Method == http.MethodPost && r.URL.Path == "/api/webhooks/conversions")
}

// writeErrorFor answers in the shape r's endpoint uses.
func writeErrorFor(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	if plainErrorRoute(r) {
		writePlainError(w, status, message)
		return
	}
	writeError(w, status, code, message)
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

// failFor answers err in the shape r's endpoint uses (plainErrorRoute).
func (s *Server) failFor(w http.ResponseWriter, r *http.Request, err error) {
	if plainErrorRoute(r) {
		s.failPlain(w, r, err)
		return
	}
	s.fail(w, r, err)
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
