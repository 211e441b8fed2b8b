package outreach

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Pushed leads come from CRM exports that always carry more columns than the contract names.
// An unknown field must never fail a push: its value is kept in the lead's data when it can
// be, and otherwise reported, so nothing is lost silently.

// LeadField is one key/value pair of a pushed lead object, in the order it was sent.
type LeadField struct {
	Key   string
	Value json.RawMessage
}

// LeadObjectFields splits a JSON object into its pairs in input order; ok is false when raw
// is not a JSON object.
func LeadObjectFields(raw json.RawMessage) (fields []LeadField, ok bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	pairs, err := objectPairs(raw)
	if err != nil {
		return nil, false
	}
	out := make([]LeadField, len(pairs))
	for i, p := range pairs {
		out[i] = LeadField{Key: p.key, Value: p.val}
	}
	return out, true
}

// AddExtraFields adds a lead's unknown fields to its data and returns the data and one
// warning per field it could not keep as sent. Fields are taken in input order: a key the data
// already holds, a nested value (object or array), a key that is empty or over
// MaxLeadDataKeyLen characters, and every field once data holds MaxLeadDataPairs pairs are
// dropped with a warning; a string over MaxLeadDataValueLen characters is cut, with a warning.
// null and blank strings carry nothing and are skipped silently. data itself is not modified.
func AddExtraFields(data map[string]any, extras []LeadField) (map[string]any, []string) {
	warnings := []string{}
	if len(extras) == 0 {
		return data, warnings
	}
	out := make(map[string]any, len(data)+len(extras))
	for k, v := range data {
		out[k] = v
	}
	for _, f := range extras {
		key := strings.TrimSpace(f.Key)
		name := strconv.Quote(clipRunes(f.Key, 100))
		switch {
		case key == "" || utf8.RuneCountInString(key) > MaxLeadDataKeyLen:
			warnings = append(warnings, "field "+name+" dropped: a data key must be 1 to 100 characters")
			continue
		case len(f.Value) > 0 && (f.Value[0] == '{' || f.Value[0] == '['):
			warnings = append(warnings, "field "+name+" dropped: only text, numbers and booleans are kept, not nested objects or arrays")
			continue
		}
		if _, dup := out[key]; dup {
			warnings = append(warnings, "field "+name+" dropped: data already holds the key "+strconv.Quote(key))
			continue
		}
		v := decodeScalar(f.Value)
		if v == nil {
			continue
		}
		if s, isText := v.(string); isText {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			if utf8.RuneCountInString(s) > MaxLeadDataValueLen {
				s = clipRunes(s, MaxLeadDataValueLen)
				warnings = append(warnings, "field "+name+" cut to 2000 characters")
			}
			v = s
		}
		if len(out) >= MaxLeadDataPairs {
			warnings = append(warnings, "field "+name+" dropped: data already holds 20 pairs, the most a lead keeps")
			continue
		}
		out[key] = v
	}
	if len(out) == 0 {
		return data, warnings
	}
	return out, warnings
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
