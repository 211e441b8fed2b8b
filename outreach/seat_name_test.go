package outreach_test

import (
	"errors"
	"strings"
	"testing"

	"outreachd/outreach"
)

func TestSeatName(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"  Sam Seller ", "Sam Seller", true},
		{"Zoë <Sales>", "Zoë <Sales>", true},
		{strings.Repeat("é", 200), strings.Repeat("é", 200), true},
		{"", "", false},
		{"   ", "", false},
		{strings.Repeat("a", 201), "", false},
		{"Sam\nSeller", "", false},
		{"Sam\u0007", "", false},
	} {
		got, err := outreach.SeatName(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("SeatName(%q) = %q, %v", tc.in, got, err)
		}
		if err != nil && !errors.Is(err, outreach.ErrInvalid) {
			t.Errorf("SeatName(%q): %v is not an invalid-input error", tc.in, err)
		}
	}
}
