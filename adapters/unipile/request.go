package unipile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
)

// call is one request to Unipile, described before it is sent.
type call struct {
	method string
	path   string // after /api/v1, with path segments already escaped
	query  url.Values
	json   any         // a JSON body, or nil
	form   []formField // a multipart/form-data body, or nil
	object string      // the "object" the answer declares; "" accepts any
}

// formField is one part of a multipart body; a repeated name is a repeated part, which is how
// Unipile reads a list such as attendees_ids.
type formField struct{ name, value string }

// do sends cl and decodes a 2xx answer into out (nil: the answer is read and dropped).
func (c *Client) do(ctx context.Context, cl call, out any) error {
	body, contentType, err := encodeBody(cl)
	if err != nil {
		return err
	}
	target := c.base + apiPrefix + cl.path
	if len(cl.query) > 0 {
		target += "?" + cl.query.Encode()
	}
	// sent turns true once the whole request is on the wire: from then on Unipile may have
	// acted even if no answer comes back, which is what MaybePerformed reports.
	var sent atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				sent.Store(true)
			}
		},
	})
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, target, reader)
	if err != nil {
		return fmt.Errorf("unipile: %s %s: %w: %w", cl.method, cl.path, ErrInvalidRequest, err)
	}
	req.Header.Set("X-API-KEY", c.cfg.APIKey)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return &TransportError{Method: cl.method, Path: cl.path, Sent: sent.Load(), Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxResponseBytes+1))
	if err != nil {
		// The status line arrived, so the request reached Unipile.
		return &TransportError{Method: cl.method, Path: cl.path, Sent: true, Err: err}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return problemFrom(cl, resp, raw, c.cfg.MaxErrorBodyBytes)
	}
	if int64(len(raw)) > c.cfg.MaxResponseBytes {
		return unreadable(cl, resp.StatusCode, raw[:c.cfg.MaxErrorBodyBytes], "the answer is longer than the configured limit")
	}
	if out == nil {
		return nil
	}
	if err := decodeAnswer(raw, cl.object, out); err != nil {
		return unreadable(cl, resp.StatusCode, truncate(raw, c.cfg.MaxErrorBodyBytes), err.Error())
	}
	if ch, ok := out.(checker); ok {
		if err := ch.check(); err != nil {
			return unreadable(cl, resp.StatusCode, truncate(raw, c.cfg.MaxErrorBodyBytes), err.Error())
		}
	}
	return nil
}

// checker is an answer that must carry something to be of use (the id a POST created).
type checker interface{ check() error }

// idAnswer is an answer whose one useful field is an id, such as {object, invitation_id}.
type idAnswer struct {
	field string
	id    string
}

func (a *idAnswer) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if raw, ok := m[a.field]; ok {
		// The reference allows null for some ids (message_id); null leaves it empty.
		return json.Unmarshal(raw, &a.id)
	}
	return nil
}

func (a *idAnswer) check() error {
	if a.id == "" {
		return fmt.Errorf("the answer has no %s", a.field)
	}
	return nil
}

// encodeBody renders cl's body and its content type.
func encodeBody(cl call) ([]byte, string, error) {
	switch {
	case cl.json != nil && cl.form != nil:
		return nil, "", fmt.Errorf("unipile: %s %s: %w: both a JSON and a form body", cl.method, cl.path, ErrInvalidRequest)
	case cl.json != nil:
		b, err := json.Marshal(cl.json)
		if err != nil {
			return nil, "", fmt.Errorf("unipile: %s %s: %w: %w", cl.method, cl.path, ErrInvalidRequest, err)
		}
		return b, "application/json", nil
	case cl.form != nil:
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		for _, f := range cl.form {
			if err := w.WriteField(f.name, f.value); err != nil {
				return nil, "", fmt.Errorf("unipile: %s %s: %w", cl.method, cl.path, err)
			}
		}
		if err := w.Close(); err != nil {
			return nil, "", fmt.Errorf("unipile: %s %s: %w", cl.method, cl.path, err)
		}
		return buf.Bytes(), w.FormDataContentType(), nil
	}
	return nil, "", nil
}

// decodeAnswer checks the answer's "object" (when it names one) and decodes it into out.
func decodeAnswer(raw []byte, object string, out any) error {
	if object != "" {
		var head struct {
			Object *string `json:"object"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return fmt.Errorf("not a JSON object: %w", err)
		}
		if head.Object != nil && *head.Object != object {
			return fmt.Errorf("the answer is a %q, not a %q", *head.Object, object)
		}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("the answer does not match its documented shape: %w", err)
	}
	return nil
}

// problemFrom reads a failed answer: an RFC 7807 document when Unipile sent one, else what
// the status line and the raw body say.
func problemFrom(cl call, resp *http.Response, raw []byte, keep int) *Error {
	e := &Error{
		Method:     cl.method,
		Path:       cl.path,
		Status:     resp.StatusCode,
		RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After")),
		Body:       string(truncate(raw, keep)),
	}
	var p struct {
		Type   string          `json:"type"`
		Title  string          `json:"title"`
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(raw, &p) == nil {
		e.Type, e.Title = p.Type, p.Title
		// detail is a string in the reference; anything else is kept as its JSON text.
		if err := json.Unmarshal(p.Detail, &e.Detail); err != nil && len(p.Detail) > 0 {
			e.Detail = string(p.Detail)
		}
	}
	if e.Title == "" {
		e.Title = http.StatusText(resp.StatusCode)
	}
	return e
}

// unreadable is a 2xx answer that could not be read: Unipile did what was asked, but what it
// answered (the new id) is unknown.
func unreadable(cl call, status int, raw []byte, why string) *Error {
	return &Error{
		Method: cl.method, Path: cl.path, Status: status,
		Title: "unreadable answer", Detail: why, Body: string(raw),
	}
}

func truncate(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return b[:n]
}

// pathOf joins escaped path segments: pathOf("users", id) is "/users/<id escaped>".
func pathOf(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

// required reports the first empty one of name/value pairs as an invalid request.
func required(what string, pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if strings.TrimSpace(pairs[i+1]) == "" {
			return fmt.Errorf("unipile: %s: %w: %s is required", what, ErrInvalidRequest, pairs[i])
		}
	}
	return nil
}
