package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"outreachd/outreach"
	"outreachd/storage"
)

// Error codes: every code of the coded shape {"error":{"code","message"}} comes from this block
// (the API, the in-process invoker and the MCP server's one HTTP error). They are documented in
// docs/api.md, "Errors", and clients rely on them exactly as written; the first seven are the
// codes outside tooling matches on since the first release. Never change a value.
const (
	CodeInvalidAPIKey     = "invalid_api_key"    // 401: missing, malformed, unknown, revoked or expired key
	CodeInsufficientScope = "insufficient_scope" // 403: a write with a read-only key
	CodeNotFound          = "not_found"          // 404
	CodeInvalidRequest    = "invalid_request"    // 400: input the client must fix
	CodeCampaignClosed    = "campaign_closed"    // 409: a write to a completed or archived campaign
	CodeInvalidFilters    = "invalid_filters"    // 422
	CodeInternal          = "internal_error"     // 500: generic message, details only in the logs

	CodeConflict       = "conflict"             // 409: a needs-human item already decided
	CodePastRetention  = "past_retention"       // 410: removed by the retention policy
	CodeNotImplemented = "not_implemented"      // 501: /mcp when the assistant server is not wired
	CodeLinkedInDown   = "linkedin_unavailable" // 502: GET /inbox, LinkedIn failed for an account
	CodeUnavailable    = "service_unavailable"  // 503 + Retry-After: the database is unreachable
	CodeNotInProcess   = "unavailable"          // 503: a part of the service is not running here
	CodeNotReady       = "not_ready"            // 503 from /readyz: the database is unreachable

	CodeUnauthenticated = "unauthenticated"   // 401: a provider's call without its secret or for no live link
	CodeTooLarge        = "payload_too_large" // 413: a provider's webhook over its size limit
)

// unavailableRetryAfter is the Retry-After (seconds) of a 503 service_unavailable: long enough
// for a restarting PostgreSQL, short enough that clients come back soon after it.
const unavailableRetryAfter = "5"

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
		_ = json.NewEncoder(buf).Encode(errorBody{Error: errorDetail{Code: CodeInternal, Message: "the response could not be encoded"}})
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
//
// Invalid input is read from its type (outreach.InvalidInputError): its kind gives the status
// and code, and its text, with whatever context the handler wrapped around it ("leads[3]%w"),
// is the message, since it carries no sentinel's words. Errors that wrap the sentinels
// themselves (packages that do not build the type yet) are worded by outreach.Describe.
func classify(err error) (int, string, string) {
	if ie, ok := errors.AsType[*outreach.InvalidInputError](err); ok {
		if errors.Is(ie, outreach.ErrInvalidFilters) {
			return http.StatusUnprocessableEntity, CodeInvalidFilters, err.Error()
		}
		return http.StatusBadRequest, CodeInvalidRequest, err.Error()
	}
	switch {
	case errors.Is(err, outreach.ErrInvalidFilters):
		return http.StatusUnprocessableEntity, CodeInvalidFilters, err.Error()
	case errors.Is(err, outreach.ErrInvalid):
		return http.StatusBadRequest, CodeInvalidRequest, err.Error()
	case errors.Is(err, outreach.ErrNotFound):
		return http.StatusNotFound, CodeNotFound, err.Error()
	case errors.Is(err, outreach.ErrCampaignClosed):
		return http.StatusConflict, CodeCampaignClosed, err.Error()
	case errors.Is(err, outreach.ErrConflict):
		return http.StatusConflict, CodeConflict, err.Error()
	case errors.Is(err, outreach.ErrPastRetention):
		return http.StatusGone, CodePastRetention, err.Error()
	case errors.Is(err, outreach.ErrUnauthenticated):
		return http.StatusUnauthorized, CodeUnauthenticated, err.Error()
	case errors.Is(err, outreach.ErrTooLarge):
		return http.StatusRequestEntityTooLarge, CodeTooLarge, err.Error()
	case errors.Is(err, outreach.ErrProviderUnavailable):
		return http.StatusBadGateway, CodeLinkedInDown, "LinkedIn's provider did not answer; nothing was recorded, retry later"
	case storage.IsUnavailable(err):
		return http.StatusServiceUnavailable, CodeUnavailable, "the database is unreachable at the moment; nothing was changed, retry after the Retry-After delay"
	default:
		return http.StatusInternalServerError, CodeInternal, "internal error; it has been logged"
	}
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
	s.logFailure(w, r, status, err)
	writeError(w, status, code, msg)
}

// failPlain answers err in the plain shape.
func (s *Server) failPlain(w http.ResponseWriter, r *http.Request, err error) {
	status, _, msg := classify(err)
	s.logFailure(w, r, status, err)
	writePlainError(w, status, msg)
}

// logFailure logs a server error. A 503 (database unreachable) gets Retry-After and is not
// logged per request: an outage would write a line for every call; /readyz and the delivery
// hub's one line per outage report it.
func (s *Server) logFailure(w http.ResponseWriter, r *http.Request, status int, err error) {
	switch {
	case status == http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", unavailableRetryAfter)
	case status >= 500:
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
}

// invalid is a client error (400 invalid_request) whose message names the problem
// (outreach.InvalidInputError).
func invalid(format string, args ...any) error {
	return outreach.Invalidf(format, args...)
}

// invalidField is invalid about one field, worded "field: problem".
func invalidField(field, format string, args ...any) error {
	return outreach.InvalidField(field, format, args...)
}
