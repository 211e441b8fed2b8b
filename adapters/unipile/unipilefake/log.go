package unipilefake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Request is one call the fake received, as a test reads it back.
type Request struct {
	Method string
	Path   string
	// Pattern is the route it matched, such as "/api/v1/chats/{id}/messages"; "" for none.
	Pattern     string
	Query       url.Values
	ContentType string // the media type alone ("multipart/form-data")
	// Fields are the body's fields: a multipart form's values, or a JSON object's top-level
	// values (strings as they are, lists one value per item, anything else as JSON text).
	Fields url.Values
	// AccountID is the account_id of the query or of the body.
	AccountID string
	// Status is what the client was answered; 0 when the fake dropped the connection.
	Status int
	// Performed is true when the call changed the fake's state, including a call whose
	// answer a knob then lost.
	Performed bool
	At        time.Time
}

// maxRequestBody caps what the fake reads of a request.
const maxRequestBody = 1 << 20

// record reads r's body (leaving a copy for the handler) and describes the call.
func (f *Fake) record(r *http.Request) (Request, error) {
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Fields: url.Values{}, At: f.now()}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil {
		return req, fmt.Errorf("read body: %w", err)
	}
	if len(raw) > maxRequestBody {
		return req, errors.New("the body is over 1 MiB")
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	req.ContentType, _, _ = mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case req.ContentType == "multipart/form-data":
		if form, err := parseMultipart(r.Header.Get("Content-Type"), raw); err == nil {
			req.Fields = form
		}
	case req.ContentType == "application/json":
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			req.Fields = flatten(m)
		}
	}
	req.AccountID = req.Query.Get("account_id")
	if req.AccountID == "" {
		req.AccountID = req.Fields.Get("account_id")
	}
	return req, nil
}

// parseMultipart reads a multipart/form-data body's text fields.
func parseMultipart(contentType string, raw []byte) (url.Values, error) {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, err
	}
	form, err := multipart.NewReader(bytes.NewReader(raw), params["boundary"]).ReadForm(maxRequestBody)
	if err != nil {
		return nil, err
	}
	defer form.RemoveAll()
	return url.Values(form.Value), nil
}

func flatten(m map[string]any) url.Values {
	out := url.Values{}
	for k, v := range m {
		switch v := v.(type) {
		case string:
			out.Add(k, v)
		case []any:
			for _, it := range v {
				out.Add(k, jsonText(it))
			}
		default:
			out.Add(k, jsonText(v))
		}
	}
	return out
}

func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (f *Fake) appendLog(req Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, req)
}

// Requests is every call received so far, in order.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.log)
}

// Calls counts the calls of method to a route pattern or path (see Request.Pattern) whose
// body or query field has the given value; an empty field counts them all.
func (f *Fake) Calls(method, path, field, value string) int {
	n := 0
	for _, r := range f.Requests() {
		if r.Method != method || (r.Path != path && r.Pattern != path) {
			continue
		}
		if field == "" || slices.Contains(r.Fields[field], value) || slices.Contains(r.Query[field], value) {
			n++
		}
	}
	return n
}

// matches reports whether a knob's method and path (a concrete path or a route pattern)
// select req.
func matches(method, path string, req Request) bool {
	return (method == "" || strings.EqualFold(method, req.Method)) && (path == req.Path || path == req.Pattern)
}
