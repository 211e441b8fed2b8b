package delivery

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"outreachd/outreach"
)

// The shapes in which the API and the operator CLI both show a destination's attempts: the
// `last_attempt` summary and the answer of a test send. They live here, beside the manager, so
// the CLI prints them without importing the HTTP package.

// LastAttemptView is `last_attempt` (API and CLI): {at, event, attempt, status_code, error},
// plus response_excerpt, so the Event Destinations view explains a failure without a second call.
type LastAttemptView struct {
	At         string  `json:"at"`
	Event      string  `json:"event"`
	Attempt    int     `json:"attempt"`
	StatusCode int     `json:"status_code"`
	Error      *string `json:"error"`
	// ResponseExcerpt is the start of what the endpoint answered, or of the network error when
	// no answer came (ShortExcerpt); null when there was neither.
	ResponseExcerpt *string `json:"response_excerpt"`
}

// LastAttemptOf renders a's summary, or nil (JSON null) before any attempt.
func LastAttemptOf(a AttemptLogEntry, ok bool) *LastAttemptView {
	if !ok {
		return nil
	}
	v := &LastAttemptView{At: outreach.FormatTime(a.At), Event: a.EventKind, Attempt: a.Attempt, StatusCode: a.StatusCode, Error: a.Error}
	src := ""
	if a.ResponseExcerpt != nil {
		src = *a.ResponseExcerpt
	}
	if strings.TrimSpace(src) == "" && a.Error != nil {
		src = *a.Error
	}
	if ex := ShortExcerpt(src, MaxShortExcerpt); ex != "" {
		v.ResponseExcerpt = &ex
	}
	return v
}

// MaxShortExcerpt is the most bytes of last_attempt.response_excerpt.
const MaxShortExcerpt = 256

// ShortExcerpt makes a one-line summary of text written by someone else (a receiver's answer):
// valid UTF-8, control characters removed, runs of white space (line breaks and tabs included)
// made one space, trimmed, and cut on a character boundary to at most max bytes.
func ShortExcerpt(text string, max int) string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range text {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			continue
		}
		n := utf8.RuneLen(r)
		if space {
			n++
		}
		if b.Len()+n > max {
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TestView is the answer of a test send, shared by POST /destinations/{id}/test and
// `admin destination test`.
func TestView(destID string, kind outreach.EventKind, res AttemptView) map[string]any {
	var errText *string
	if res.Error != "" {
		errText = &res.Error
	}
	return map[string]any{"destination_id": destID, "event": kind, "ok": res.Error == "" && res.StatusCode/100 == 2,
		"status_code": res.StatusCode, "error": errText, "duration_ms": res.Duration.Milliseconds()}
}
