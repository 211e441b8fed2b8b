package outreach

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on the free-form data a client may attach to a lead. They keep
// the column small enough to store inline and to echo in events without surprising anyone.
const (
	MaxLeadDataPairs    = 20
	MaxLeadDataKeyLen   = 100
	MaxLeadDataValueLen = 2000
)

// Limits of the text fields of one lead. A name or title longer than this is not a name or
// title, and every byte of it would be copied into every event about the lead.
const (
	MaxLeadTextLen   = 500
	MaxLeadSourceLen = 100
	MaxLeadEmailLen  = 320
)

// LeadInput is one person as a client hands it to us, before any key or filter is applied.
// Both the keyed push (POST /campaigns/{id}/leads) and the intake URL produce this shape, so
// everything after parsing — keying, blacklist, filters, storage — has a single code path.
type LeadInput struct {
	LinkedInURL string // profile URL, bare slug or member id; NormalizeProfile decides
	FirstName   string
	LastName    string
	Name        string
	Company     string
	Title       string
	Email       string
	Location    string
	Headline    string
	Source      string         // client's label; empty means the caller picks the default
	Data        map[string]any // up to MaxLeadDataPairs JSON scalars, see ValidateLeadData
}

// FullName is the name shown for the lead. A client that sends a full name knows better than
// our concatenation (order, particles, non-western names), so Name wins when present.
func (l LeadInput) FullName() string {
	if n := strings.TrimSpace(l.Name); n != "" {
		return n
	}
	return strings.TrimSpace(strings.TrimSpace(l.FirstName) + " " + strings.TrimSpace(l.LastName))
}

// Check enforces the limits of one lead, the same for a push, an intake URL, an assistant's
// proposal and a file: the error names the field (the caller says where the lead is) and wraps
// ErrInvalid.
func (l LeadInput) Check() error {
	fields := []struct {
		name, val string
		max       int
	}{
		{"first_name", l.FirstName, MaxLeadTextLen}, {"last_name", l.LastName, MaxLeadTextLen}, {"name", l.Name, MaxLeadTextLen},
		{"company", l.Company, MaxLeadTextLen}, {"title", l.Title, MaxLeadTextLen}, {"location", l.Location, MaxLeadTextLen},
		{"headline", l.Headline, MaxLeadTextLen * 4}, {"email", l.Email, MaxLeadEmailLen}, {"source", l.Source, MaxLeadSourceLen},
	}
	for _, f := range fields {
		if !utf8.ValidString(f.val) {
			return invalidf("%s is not valid UTF-8", f.name)
		}
		if n := utf8.RuneCountInString(f.val); n > f.max {
			return invalidf("%s is %d characters long, at most %d are allowed", f.name, n, f.max)
		}
	}
	return ValidateLeadData(l.Data)
}

// ValidateLeadData enforces the data limits at the edge so that storage and webhook consumers
// only ever see a flat object of JSON scalars. Nested values are refused rather than
// flattened: any flattening we chose would be a guess the client cannot see. Keys are checked
// in sorted order so the same bad map always yields the same message.
func ValidateLeadData(data map[string]any) error {
	if len(data) > MaxLeadDataPairs {
		return invalidf("data has %d pairs, at most %d are allowed", len(data), MaxLeadDataPairs)
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if n := utf8.RuneCountInString(k); n < 1 || n > MaxLeadDataKeyLen {
			return invalidf("data key %s must be 1 to %d characters", quoteKey(k), MaxLeadDataKeyLen)
		}
		if err := validateDataValue(data[k]); err != nil {
			return invalidf("data %s: %s", quoteKey(k), err)
		}
	}
	return nil
}

type dataValueError string

func (e dataValueError) Error() string { return string(e) }

// validateDataValue accepts exactly what encoding/json can produce for a scalar, plus Go's
// integer types so callers building data in code need no conversions.
func validateDataValue(v any) error {
	switch v := v.(type) {
	case nil, bool,
		int, int8, int16, int32, int64,
		uint, uint8, uint16, uint32, uint64:
		return nil
	case string:
		if utf8.RuneCountInString(v) > MaxLeadDataValueLen {
			return dataValueError("string value is longer than 2000 characters")
		}
		return nil
	case float64:
		return finite(v)
	case float32:
		return finite(float64(v))
	case json.Number:
		// A json.Number is stored and re-encoded as written, so it only has to be a JSON
		// number literal; values beyond float64 range are kept rather than rounded.
		if v == "" || !json.Valid([]byte(v)) || !strings.ContainsAny(string(v[:1]), "-0123456789") {
			return dataValueError("not a valid number")
		}
		return nil
	case map[string]any, []any:
		return dataValueError("nested objects and arrays are not allowed; values must be strings, numbers, booleans or null")
	default:
		return dataValueError("value must be a string, number, boolean or null")
	}
}

func finite(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dataValueError("number is not finite")
	}
	return nil
}

// quoteKey names a key in an error without echoing an arbitrarily long client string.
func quoteKey(k string) string {
	const max = 60
	if utf8.RuneCountInString(k) > max {
		return strconv.Quote(string([]rune(k)[:max])) + "…"
	}
	return strconv.Quote(k)
}
