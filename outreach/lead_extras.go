package outreach

import (
	"encoding/json"
	"errors"
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

// EachLeadField calls field with each key/value pair of the JSON object raw, in the order
// sent, the value as raw's own bytes; the error says raw is not a JSON object, and the pairs
// field was already given are then to be disregarded. A push reads up to 100 leads per call,
// so the pairs are handed over as they are found rather than collected first.
//
// It replaces a loop of json.Decoder.Token and Decode, which allocated for every token and was
// most of what decoding a pushed lead cost, and accepts exactly what that loop accepted: every
// key and value must be valid JSON, and the object ends where the next key could start and a
// '}', a ']' or the end of raw is found, whatever follows. Its callers have had the whole
// object validated by encoding/json already, so that leniency never shows; it is kept so that
// the two cannot differ on any input (FuzzEachLeadFieldMatchesReference).
func EachLeadField(raw []byte, field func(LeadField)) error {
	if len(raw) == 0 || raw[0] != '{' {
		return errNotAnObject
	}
	for i, n := 1, 0; ; n++ {
		i = skipJSONSpace(raw, i)
		if i == len(raw) || raw[i] == '}' || raw[i] == ']' {
			return nil
		}
		if n > 0 {
			if raw[i] != ',' {
				return errNotAnObject
			}
			i = skipJSONSpace(raw, i+1)
		}
		keyEnd := jsonStringEnd(raw, i)
		if keyEnd < 0 {
			return errNotAnObject
		}
		key, err := jsonStringText(raw[i:keyEnd])
		if err != nil {
			return errNotAnObject
		}
		if i = skipJSONSpace(raw, keyEnd); i == len(raw) || raw[i] != ':' {
			return errNotAnObject
		}
		i = skipJSONSpace(raw, i+1)
		end := jsonValueEnd(raw, i)
		if end < 0 {
			return errNotAnObject
		}
		field(LeadField{Key: key, Value: raw[i:end:end]}) // the cap keeps an append to the value out of raw
		i = end
	}
}

// errNotAnObject is EachLeadField's one error: its callers only tell an object from the rest.
var errNotAnObject = errors.New("not a JSON object")

// PlainJSONString returns the text of a JSON string literal that has nothing to decode — no
// escape, no control character, valid UTF-8 — and is therefore its own text: almost every key
// and text value of a lead. ok is false for anything else, which the caller decodes with
// encoding/json, so that escapes and invalid UTF-8 (replaced by U+FFFD) are its rules.
func PlainJSONString(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	text := raw[1 : len(raw)-1]
	for _, c := range text {
		if c < 0x20 || c == '"' || c == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(text) {
		return "", false
	}
	return string(text), true
}

// jsonStringText is the text of a valid JSON string literal.
func jsonStringText(lit []byte) (string, error) {
	if s, ok := PlainJSONString(lit); ok {
		return s, nil
	}
	var s string
	err := json.Unmarshal(lit, &s)
	return s, err
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonValueEnd returns where the JSON value starting at b[i] ends, or -1 when no valid value
// starts there. As in encoding/json's scanner, a scalar ends where its grammar does, whatever
// follows ("01" is the value 0, then junk); an object or array ends at its closing bracket and
// is validated by encoding/json itself, as nested values are rare in a lead.
func jsonValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return jsonStringEnd(b, i)
	case c == '-' || '0' <= c && c <= '9':
		return jsonNumberEnd(b, i)
	case c == '{' || c == '[':
		return jsonNestedEnd(b, i)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
			return i + len(lit)
		}
	}
	return -1
}

// jsonStringEnd returns the index after the closing quote of the valid JSON string starting at
// b[i], or -1.
func jsonStringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if i++; i == len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

// jsonNumberEnd returns where the JSON number starting at b[i] ends, or -1 where the grammar
// stops halfway ("-", "1.", "1e+").
func jsonNumberEnd(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && isDigit(b[i]):
		i = digitsEnd(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i++; i == len(b) || !isDigit(b[i]) {
			return -1
		}
		i = digitsEnd(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i == len(b) || !isDigit(b[i]) {
			return -1
		}
		i = digitsEnd(b, i)
	}
	return i
}

// jsonNestedEnd returns the index after the bracket that closes the object or array starting
// at b[i] when what lies between is valid JSON, or -1. Counting brackets outside strings finds
// the end of any valid value, and json.Valid then rejects whatever else the brackets enclose.
func jsonNestedEnd(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				if !json.Valid(b[i : j+1]) {
					return -1
				}
				return j + 1
			}
		case '"':
			end := jsonStringEnd(b, j)
			if end < 0 {
				return -1
			}
			j = end - 1
		}
	}
	return -1
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

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
