package outreach

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestLeadInputFullName(t *testing.T) {
	tests := []struct {
		lead LeadInput
		want string
	}{
		{LeadInput{Name: "Jane Q. Doe", FirstName: "Jane", LastName: "Doe"}, "Jane Q. Doe"},
		{LeadInput{Name: "  ", FirstName: "Jane", LastName: "Doe"}, "Jane Doe"},
		{LeadInput{FirstName: " Jane ", LastName: " Doe "}, "Jane Doe"},
		{LeadInput{FirstName: "Jane"}, "Jane"},
		{LeadInput{LastName: "Doe"}, "Doe"},
		{LeadInput{}, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v", tt.lead), func(t *testing.T) {
			if got := tt.lead.FullName(); got != tt.want {
				t.Fatalf("FullName() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidateLeadData(t *testing.T) {
	full := map[string]any{}
	for i := range MaxLeadDataPairs {
		full[fmt.Sprintf("k%02d", i)] = i
	}
	tooMany := map[string]any{"extra": true}
	for k, v := range full {
		tooMany[k] = v
	}
	tests := []struct {
		name   string
		data   map[string]any
		errMsg string // "" means valid
	}{
		{"nil", nil, ""},
		{"empty", map[string]any{}, ""},
		{"scalars", map[string]any{
			"s": "x", "f": 1.5, "i": 3, "u": uint8(2), "b": false, "null": nil,
			"n": json.Number("12345678901234567890"), "f32": float32(2),
		}, ""},
		{"twenty pairs", full, ""},
		{"21 pairs", tooMany, "21 pairs"},
		{"key 100 chars", map[string]any{strings.Repeat("é", 100): 1}, ""},
		{"key 101 chars", map[string]any{strings.Repeat("k", 101): 1}, "1 to 100"},
		{"empty key", map[string]any{"": 1}, "1 to 100"},
		{"value 2000 chars", map[string]any{"v": strings.Repeat("é", 2000)}, ""},
		{"value 2001 chars", map[string]any{"v": strings.Repeat("v", 2001)}, `"v": string value is longer`},
		{"nested object", map[string]any{"ok": 1, "address": map[string]any{"city": "Berlin"}}, `"address": nested`},
		{"nested array", map[string]any{"tags": []any{"a"}}, `"tags": nested`},
		{"go slice", map[string]any{"tags": []string{"a"}}, `"tags": value must be`},
		{"struct", map[string]any{"t": struct{}{}}, `"t": value must be`},
		{"NaN", map[string]any{"x": math.NaN()}, "not finite"},
		{"Inf", map[string]any{"x": math.Inf(1)}, "not finite"},
		{"bad json.Number", map[string]any{"x": json.Number("12abc")}, "not a valid number"},
		{"json.Number text", map[string]any{"x": json.Number(`"1"`)}, "not a valid number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateLeadData(tt.data)
			if tt.errMsg == "" {
				if err != nil {
					t.Fatalf("ValidateLeadData: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.errMsg) {
				t.Fatalf("ValidateLeadData error = %v, want ErrInvalid mentioning %q", err, tt.errMsg)
			}
		})
	}
}

func TestErrorsAreDistinctSentinels(t *testing.T) {
	all := []error{ErrInvalid, ErrNotFound, ErrCampaignClosed, ErrConflict}
	for i, a := range all {
		for j, b := range all {
			if (i == j) != errors.Is(a, b) {
				t.Fatalf("errors.Is(%v, %v) = %v", a, b, errors.Is(a, b))
			}
		}
	}
	if ErrCampaignClosed.Error() != "campaign is completed or archived" || ErrInvalid.Error() != "invalid input" {
		t.Fatal("sentinel messages changed; api error mapping and clients rely on them")
	}
}
