package unipilefake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The problem types the fake answers, as Unipile's reference names them.
const (
	typeInvalidParameters         = "errors/invalid_parameters"
	typeTooManyCharacters         = "errors/too_many_characters"
	typeMissingCredentials        = "errors/missing_credentials"
	typeDisconnectedAccount       = "errors/disconnected_account"
	typeAccountRestricted         = "errors/account_restricted"
	typeResourceNotFound          = "errors/resource_not_found"
	typeInvalidRecipient          = "errors/invalid_recipient"
	typeNoConnectionWithRecipient = "errors/no_connection_with_recipient"
	typeAlreadyInvitedRecently    = "errors/already_invited_recently"
	typeAlreadyConnected          = "errors/already_connected"
	typeTooManyRequests           = "errors/too_many_requests"
	typeUnexpectedError           = "errors/unexpected_error"
	typeServiceUnavailable        = "errors/service_unavailable"
	typeRequestTimeout            = "errors/request_timeout"
)

// defaultType is the type a knob answers for a status when the test names none.
func defaultType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return typeInvalidParameters
	case http.StatusUnauthorized:
		return typeDisconnectedAccount
	case http.StatusForbidden:
		return typeAccountRestricted
	case http.StatusNotFound:
		return typeResourceNotFound
	case http.StatusTooManyRequests:
		return typeTooManyRequests
	case http.StatusServiceUnavailable:
		return typeServiceUnavailable
	case http.StatusGatewayTimeout:
		return typeRequestTimeout
	}
	return typeUnexpectedError
}

// problem writes an RFC 7807 answer the way Unipile does: {status, type, title, detail}.
func problem(w http.ResponseWriter, status int, typ, title, detail string) {
	writeJSON(w, status, map[string]any{"status": status, "type": typ, "title": title, "detail": detail})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func badRequest(w http.ResponseWriter, format string, args ...any) {
	problem(w, http.StatusBadRequest, typeInvalidParameters, "Invalid parameters", fmt.Sprintf(format, args...))
}

func notFound(w http.ResponseWriter, what string) {
	problem(w, http.StatusNotFound, typeResourceNotFound, "Resource not found.", what+" not found.")
}

// answerList writes the page of items r asks for as a list answer, {object, items, cursor},
// the cursor null on the last page; maxLimit is the endpoint's largest documented limit.
func answerList[T any](f *Fake, w http.ResponseWriter, r *http.Request, object string, items []T, maxLimit int, render func(T) any) {
	from, to, next, ok := f.page(w, r, len(items), maxLimit)
	if !ok {
		return
	}
	out := []any{}
	for _, it := range items[from:to] {
		out = append(out, render(it))
	}
	var cursor any
	if next != "" {
		cursor = next
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": object, "items": out, "cursor": cursor})
}

// newestFirst is the items keep selects, last added first.
func newestFirst[T any](items []T, keep func(T) bool) []T {
	var out []T
	for _, it := range slices.Backward(items) {
		if keep(it) {
			out = append(out, it)
		}
	}
	return out
}

// page reads limit and cursor and says which slice of n items to answer, and the cursor of
// the next page ("" on the last). Cursors are opaque base64, as Unipile's are. maxLimit is the
// endpoint's documented largest limit; the fake never answers more than its PageSize.
func (f *Fake) page(w http.ResponseWriter, r *http.Request, n, maxLimit int) (from, to int, next string, ok bool) {
	size := f.cfg.PageSize
	if v := r.URL.Query().Get("limit"); v != "" {
		limit, err := strconv.Atoi(v)
		if err != nil || limit < 1 || limit > maxLimit {
			badRequest(w, "limit must be an integer between 1 and %d.", maxLimit)
			return 0, 0, "", false
		}
		size = min(size, limit)
	}
	if c := r.URL.Query().Get("cursor"); c != "" {
		raw, err := base64.StdEncoding.DecodeString(c)
		off, err2 := strconv.Atoi(strings.TrimPrefix(string(raw), "offset:"))
		if err != nil || err2 != nil || !strings.HasPrefix(string(raw), "offset:") || off < 0 {
			badRequest(w, "cursor is not a cursor this API gave.")
			return 0, 0, "", false
		}
		from = min(off, n)
	}
	to = min(from+size, n)
	if to < n {
		next = base64.StdEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(to)))
	}
	return from, to, next, true
}
