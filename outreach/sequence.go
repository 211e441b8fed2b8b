package outreach

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is a campaign's sequence: its steps, their limits and the attachments a message
// step may link.

// Sequence step types. Waiting is not a step: every step says how many days after the previous
// one it runs (delay_days).
const (
	StepConnect = "connect" // the connection request, with an optional note
	StepMessage = "message" // a message to a connected person
)

// Sequence limits. A LinkedIn invitation note holds 300 characters and a message 8,000.
const (
	MaxSequenceSteps      = 20
	MaxStepDelayDays      = 90
	MaxConnectNoteLen     = 300
	MaxMessageTextLen     = 8000
	MaxStepAttachments    = 5
	MaxAttachmentURLLen   = 2048
	MaxAttachmentNameLen  = 255
	maxAttachmentCTypeLen = 100
)

// Attachment is a file linked from a message step. Only https links to non-executable files
// survive ParseSequence.
type Attachment struct {
	URL         string `json:"url"`
	Name        string `json:"name,omitempty"`
	ContentType string `json:"content_type,omitempty"`
}

// SequenceStep is one step of a campaign's sequence; Attachments is never nil so every step
// has one shape.
type SequenceStep struct {
	Type        string       `json:"type"`
	DelayDays   int          `json:"delay_days"`
	Text        string       `json:"text"`
	Attachments []Attachment `json:"attachments"`
}

// StrippedAttachment reports an attachment ParseSequence removed: where it was (step and index
// within the step's attachments, both from 0), what it pointed at and why it went.
type StrippedAttachment struct {
	Step   int    `json:"step"`
	Index  int    `json:"index"`
	URL    string `json:"url"`
	Reason string `json:"reason"`
}

// ParseSequence reads and validates a sequence for a campaign of outreachType (stored form).
// Malformed steps are refused (ErrInvalid); unsafe attachments are removed and reported, so a
// sequence is never refused only because one file link was bad. Null or absent is empty.
//
// Outbound campaigns start with the connection request: at most one connect step, first; when
// there is none the request goes out without a note before step 0. Inbound campaigns message
// people already connected, so they have no connect step.
func ParseSequence(raw []byte, outreachType string) ([]SequenceStep, []StrippedAttachment, error) {
	steps := []SequenceStep{}
	stripped := []StrippedAttachment{}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return steps, stripped, nil
	}
	var in []struct {
		Type        string            `json:"type"`
		DelayDays   *int              `json:"delay_days"`
		Text        string            `json:"text"`
		Attachments []json.RawMessage `json:"attachments"`
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, nil, invalidf("sequence must be an array of steps {type, delay_days, text, attachments}: %s",
			DescribeJSONError(err, "sequence"))
	}
	if len(in) > MaxSequenceSteps {
		return nil, nil, invalidf("sequence has %d steps, at most %d are allowed", len(in), MaxSequenceSteps)
	}
	for i, st := range in {
		step := SequenceStep{Type: st.Type, Text: st.Text, Attachments: []Attachment{}}
		if st.DelayDays != nil {
			step.DelayDays = *st.DelayDays
		}
		if step.DelayDays < 0 || step.DelayDays > MaxStepDelayDays {
			return nil, nil, invalidf("sequence[%d].delay_days must be between 0 and %d, got %d", i, MaxStepDelayDays, step.DelayDays)
		}
		switch st.Type {
		case StepConnect:
			if outreachType == OutreachInbound {
				return nil, nil, invalidf("sequence[%d] is a connect step, but an inbound campaign messages people already connected", i)
			}
			if i != 0 {
				return nil, nil, invalidf("sequence[%d] is a connect step; the connection request can only be the first step", i)
			}
			if utf8.RuneCountInString(st.Text) > MaxConnectNoteLen {
				return nil, nil, invalidf("sequence[%d].text is longer than the %d characters of an invitation note", i, MaxConnectNoteLen)
			}
			if len(st.Attachments) > 0 {
				return nil, nil, invalidf("sequence[%d] is a connect step; invitation notes cannot carry attachments", i)
			}
		case StepMessage:
			if strings.TrimSpace(st.Text) == "" {
				return nil, nil, invalidf("sequence[%d].text is required on a message step", i)
			}
			if utf8.RuneCountInString(st.Text) > MaxMessageTextLen {
				return nil, nil, invalidf("sequence[%d].text is longer than %d characters", i, MaxMessageTextLen)
			}
		default:
			return nil, nil, invalidf("sequence[%d].type %q must be connect or message", i, st.Type)
		}
		for j, rawAtt := range st.Attachments {
			var a Attachment
			d := json.NewDecoder(bytes.NewReader(rawAtt))
			d.DisallowUnknownFields()
			if err := d.Decode(&a); err != nil {
				return nil, nil, invalidf("sequence[%d].attachments[%d] must be an object {url, name, content_type}: %s",
					i, j, jsonText(err))
			}
			reason := attachmentProblem(a)
			if reason == "" && len(step.Attachments) == MaxStepAttachments {
				reason = fmt.Sprintf("a step carries at most %d attachments", MaxStepAttachments)
			}
			if reason != "" {
				stripped = append(stripped, StrippedAttachment{Step: i, Index: j, URL: clip(a.URL, 200), Reason: reason})
				continue
			}
			step.Attachments = append(step.Attachments, a)
		}
		steps = append(steps, step)
	}
	return steps, stripped, nil
}

// blockedExtensions are files that run code when opened, or pages that run script in a browser.
var blockedExtensions = map[string]bool{
	".exe": true, ".com": true, ".scr": true, ".pif": true, ".msi": true, ".msp": true, ".dll": true,
	".cpl": true, ".bat": true, ".cmd": true, ".ps1": true, ".vbs": true, ".vbe": true, ".js": true,
	".mjs": true, ".jse": true, ".wsf": true, ".hta": true, ".lnk": true, ".reg": true, ".sh": true,
	".jar": true, ".apk": true, ".dmg": true, ".app": true, ".html": true, ".htm": true, ".xhtml": true,
	".shtml": true, ".svg": true, ".php": true,
}

// blockedTypes are the media types of the same files.
var blockedTypes = map[string]bool{
	"text/html": true, "application/xhtml+xml": true, "image/svg+xml": true,
	"application/javascript": true, "text/javascript": true, "application/x-javascript": true,
	"application/ecmascript": true, "text/ecmascript": true,
	"application/x-msdownload": true, "application/x-msdos-program": true, "application/x-msi": true,
	"application/x-ms-installer": true, "application/vnd.microsoft.portable-executable": true,
	"application/x-executable": true, "application/x-dosexec": true, "application/x-sh": true,
	"application/x-shellscript": true, "text/x-shellscript": true, "application/x-bat": true,
	"application/java-archive": true, "application/x-java-archive": true, "application/hta": true,
	"application/vnd.android.package-archive": true, "application/x-apple-diskimage": true,
}

// attachmentProblem says why an attachment is unsafe, or "" when it may stay.
func attachmentProblem(a Attachment) string {
	switch {
	case a.URL == "":
		return "url is missing"
	case len(a.URL) > MaxAttachmentURLLen:
		return fmt.Sprintf("url is longer than %d characters", MaxAttachmentURLLen)
	case strings.ContainsFunc(a.URL, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return "url contains spaces or control characters"
	case utf8.RuneCountInString(a.Name) > MaxAttachmentNameLen:
		return fmt.Sprintf("name is longer than %d characters", MaxAttachmentNameLen)
	case strings.ContainsFunc(a.Name, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return "name contains control characters"
	case len(a.ContentType) > maxAttachmentCTypeLen:
		return "content_type is over-long"
	}
	u, err := url.Parse(a.URL)
	if err != nil {
		return "url cannot be parsed"
	}
	if u.Scheme != "https" {
		if u.Scheme == "" {
			return "url is not absolute; only https links are allowed"
		}
		return "url scheme " + u.Scheme + " is not allowed; only https links are"
	}
	if u.Hostname() == "" {
		return "url has no host"
	}
	if u.User != nil {
		return "url carries credentials"
	}
	for _, p := range []string{u.Path, a.Name} {
		if ext := strings.ToLower(path.Ext(strings.TrimRight(p, "/. "))); blockedExtensions[ext] {
			return "file type " + ext + " is executable or script"
		}
	}
	if a.ContentType != "" {
		mt, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(a.ContentType)), ";")
		mt = strings.TrimSpace(mt)
		if blockedTypes[mt] {
			return "content_type " + mt + " is executable or script"
		}
		if !strings.Contains(mt, "/") {
			return "content_type " + strconv.Quote(a.ContentType) + " is not a media type"
		}
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
