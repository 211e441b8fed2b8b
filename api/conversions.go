package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"outreachd/outreach"
	"outreachd/storage"
)

// Limits of a conversion event. The 24-hour window is the documented one; the size
// caps are ours.
const (
	conversionDedupeWindow = 24 * time.Hour
	maxConversionTextLen   = 500
	maxConversionMetaBytes = 16 << 10
)

type conversionBody struct {
	EventType     *string         `json:"event_type"`
	LinkedInID    *string         `json:"linkedin_id"`
	ProspectName  *string         `json:"prospect_name"`
	ProspectEmail *string         `json:"prospect_email"`
	Meta          json.RawMessage `json:"meta"`
}

// postConversion records a client conversion event. It sits outside /api/v1, behind the same
// authentication and rate limit (keyed), and as the guide says answers every error in the
// plain shape {"error": "..."} (plainErrorRoute).
func (s *Server) postConversion(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	p := PrincipalFrom(r.Context())
	var body conversionBody
	if err := decodeJSON(r, &body); err != nil {
		s.failPlain(w, r, err)
		return
	}
	c, err := conversionFrom(p.OrgID, body)
	if err != nil {
		s.failPlain(w, r, err)
		return
	}
	res, err := s.store.RecordConversion(r.Context(), c, conversionDedupeWindow)
	if err != nil {
		s.failPlain(w, r, err)
		return
	}
	out := map[string]any{"ok": true, "event_type": c.EventType}
	if res.Deduped {
		out["deduped"] = true
	}
	writeJSON(w, http.StatusOK, out)
}

// conversionFrom validates the body and computes the duplicate key: a hash of event_type, the
// LinkedIn profile's key (or the trimmed value when it is not a readable profile), the trimmed
// name and the lower-cased email. meta is not part of it.
func conversionFrom(orgID string, b conversionBody) (storage.Conversion, error) {
	c := storage.Conversion{OrgID: orgID}
	if b.EventType == nil || strings.TrimSpace(*b.EventType) == "" {
		return c, invalid("event_type is required")
	}
	c.EventType = strings.TrimSpace(*b.EventType)
	for _, f := range []struct {
		name string
		val  *string
	}{{"event_type", &c.EventType}, {"linkedin_id", b.LinkedInID}, {"prospect_name", b.ProspectName}, {"prospect_email", b.ProspectEmail}} {
		if f.val != nil && utf8.RuneCountInString(*f.val) > maxConversionTextLen {
			return c, invalid("%s is longer than %d characters", f.name, maxConversionTextLen)
		}
	}
	linkedin := ""
	if v := trimmed(b.LinkedInID); v != nil {
		c.LinkedInID, linkedin = v, *v
		if p, err := outreach.NormalizeProfile(*v); err == nil {
			c.ProfileKey, linkedin = p.Key, p.Key
		}
	}
	c.ProspectName = trimmed(b.ProspectName)
	if v := trimmed(b.ProspectEmail); v != nil {
		low := strings.ToLower(*v)
		c.Email = &low
	}
	if m := bytes.TrimSpace(b.Meta); len(m) > 0 && !bytes.Equal(m, []byte("null")) {
		if len(m) > maxConversionMetaBytes {
			return c, invalid("meta is larger than %d bytes", maxConversionMetaBytes)
		}
		c.Meta = m
	}
	parts, _ := json.Marshal([]string{c.EventType, linkedin, deref(c.ProspectName), deref(c.Email)})
	h := sha256.Sum256(parts)
	c.DedupeKey = h[:]
	return c, nil
}

func trimmed(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	if t == "" {
		return nil
	}
	return &t
}
