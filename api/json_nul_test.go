package api

import (
	"encoding/json"
	"strings"
	"testing"
)

// holdsNUL decodes body and reports whether any string or key holds U+0000: what jsonEscapesNUL
// must tell from the raw text.
func holdsNUL(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.ContainsRune(x, 0)
	case []any:
		for _, e := range x {
			if holdsNUL(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if strings.ContainsRune(k, 0) || holdsNUL(e) {
				return true
			}
		}
	}
	return false
}

func TestJSONEscapesNUL(t *testing.T) {
	for body, want := range map[string]bool{
		`{"a":"x\u0000y"}`:     true,
		`{"a\u0000":1}`:        true,
		`["\u0000"]`:           true,
		`{"a":"\\u0000"}`:      false, // an escaped backslash, then text
		`{"a":"\\\u0000"}`:     true,
		`{"a":"\u00001"}`:      true,
		`{"a":"\u0001"}`:       false,
		`{"a":"u0000 \\"}`:     false,
		`{"a":"\"\u0000"}`:     true,
		`"trailing backslash\`: false,
	} {
		if got := jsonEscapesNUL([]byte(body)); got != want {
			t.Errorf("jsonEscapesNUL(%s) = %v, want %v", body, got, want)
		}
	}
}

// For every valid JSON text, the raw scan agrees with decoding.
func FuzzJSONEscapesNUL(f *testing.F) {
	for _, s := range []string{`{"a":"x\u0000y"}`, `{"a":"\\u0000"}`, `["\\\u0000", "\u0000\\"]`, `{"k\u0000":{"n":[1,"\\"]}}`, `"\\\\u0000"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var v any
		if json.Unmarshal(body, &v) != nil {
			return
		}
		if got, want := jsonEscapesNUL(body), holdsNUL(v); got != want {
			t.Fatalf("jsonEscapesNUL(%q) = %v, decoding says %v", body, got, want)
		}
	})
}
