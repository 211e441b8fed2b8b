package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"outreachd/outreach"
)

// readBody reads the whole (size-capped) request body. Every body the API takes is JSON, and
// PostgreSQL's text and jsonb cannot hold U+0000, so a body that writes one (`\u0000`, the only
// way JSON can carry it) is refused here, for every endpoint, instead of failing in the database.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, invalid("request body exceeds %d bytes", tooBig.Limit)
		}
		return nil, invalid("read request body")
	}
	if outreach.JSONEscapesNUL(body) {
		return nil, invalid("request body contains a NUL character (\\u0000), which is not allowed")
	}
	return body, nil
}

// decodeJSON decodes a request body strictly into v: exactly one JSON value, no unknown fields,
// right types. Every failure is an outreach.InvalidInputError naming the problem.
func decodeJSON(r *http.Request, v any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return decodeStrict(body, v)
}

// decodeOptionalJSON is decodeJSON for a body that may be left out: an empty one (or one of
// white space only) leaves v as it is.
func decodeOptionalJSON(r *http.Request, v any) error {
	body, err := readBody(r)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return err
	}
	return decodeStrict(body, v)
}

func decodeStrict(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return invalid("request body is empty; a JSON object is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return outreach.JSONInputError(err, "request body")
	}
	if dec.More() {
		return invalid("request body holds more than one JSON value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalid("request body holds trailing data after the JSON value")
	}
	return nil
}

// queryInt reads an optional integer query parameter within [lo, hi].
func queryInt(r *http.Request, name string, def, lo, hi int) (int, error) {
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, invalid("query parameter %s must be an integer, got %q", name, raw)
	}
	if n < lo || n > hi {
		return 0, invalid("query parameter %s must be between %d and %d, got %d", name, lo, hi, n)
	}
	return n, nil
}

// Page is a parsed limit/offset pair.
type Page struct {
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
	Total  int `json:"total"`
}

// parsePage reads limit (default 50, max maxLimit) and offset (default 0).
func parsePage(r *http.Request, maxLimit int) (Page, error) {
	limit, err := queryInt(r, "limit", 50, 1, maxLimit)
	if err != nil {
		return Page{}, err
	}
	offset, err := queryInt(r, "offset", 0, 0, 1_000_000_000)
	if err != nil {
		return Page{}, err
	}
	return Page{Limit: limit, Offset: offset}, nil
}

// nonEmpty is s, or nil (JSON null) when it is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
