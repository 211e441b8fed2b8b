package outreach

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// holdsNUL decodes body and reports whether any string or key holds U+0000: what JSONEscapesNUL
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
		if got := JSONEscapesNUL([]byte(body)); got != want {
			t.Errorf("JSONEscapesNUL(%s) = %v, want %v", body, got, want)
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
		if got, want := JSONEscapesNUL(body), holdsNUL(v); got != want {
			t.Fatalf("JSONEscapesNUL(%q) = %v, decoding says %v", body, got, want)
		}
	})
}

func TestCheckText(t *testing.T) {
	for _, tc := range []struct {
		value string
		max   int
		want  string // "" accepts
	}{
		{"jane@example.com", 254, ""},
		{"", 10, ""},
		{"ünïcödé", 7, ""}, // characters, not bytes
		{"a\x00b", 10, "email: contains a NUL character (\\u0000), which is not allowed"},
		{"\xff\xfe", 10, "email: holds bytes that are not UTF-8"},
		{strings.Repeat("x", 2700), 254, "email: is longer than 254 characters"},
		{strings.Repeat("x", 2700), 0, ""}, // no bound
	} {
		err := CheckText("email", tc.value, tc.max)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckText(%q) = %v, want accepted", clipForTest(tc.value), err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || !errors.Is(err, ErrInvalid)):
			t.Errorf("CheckText(%q) = %v, want %q", clipForTest(tc.value), err, tc.want)
		}
	}
}

func TestCheckFields(t *testing.T) {
	for _, tc := range []struct {
		form map[string][]string
		want string
	}{
		{map[string][]string{"name": {"ok"}, "url": {"https://x"}}, ""},
		{map[string][]string{"b": {"x\x00"}, "a": {"\xff"}}, "a: holds bytes that are not UTF-8"}, // first in name order
		{map[string][]string{"name": {"ok", strings.Repeat("y", 11)}}, "name: is longer than 10 characters"},
		{map[string][]string{"na\x00me": {"ok"}}, "a field name holds a NUL character, bytes that are not UTF-8, or more than 100 characters"},
	} {
		err := CheckFields(tc.form, 10)
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("CheckFields(%q) = %v, want %q", tc.form, err, tc.want)
		}
	}
}

func clipForTest(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}
