package outreach

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// TestInvalidInputError: the typed invalid-input error is its sentinel for errors.Is, is found
// through wrapping by errors.As, carries no sentinel's words (so context wrapped around it reads
// as the client sees it), and keeps a field's name apart from its problem.
func TestInvalidInputError(t *testing.T) {
	var bad struct {
		Name string `json:"name"`
	}
	jsonErr := json.Unmarshal([]byte(`{"name": 3}`), &bad)
	tests := []struct {
		name           string
		err            error
		is, isNot      error
		text           string
		field, problem string
	}{
		{"message", Invalidf("name is longer than %d characters", 200), ErrInvalid, ErrInvalidFilters,
			"name is longer than 200 characters", "", ""},
		{"field", InvalidField("events", "unknown event kind %q", "x"), ErrInvalid, ErrNotFound,
			`events: unknown event kind "x"`, "events", `unknown event kind "x"`},
		{"filters", invalidFilters("roles has more than %d terms", 50), ErrInvalidFilters, ErrInvalid,
			"roles has more than 50 terms", "", ""},
		{"wrapped", fmt.Errorf("leads[3]%w", Invalidf(".linkedin_url is required")), ErrInvalid, ErrNotFound,
			"leads[3].linkedin_url is required", "", ""},
		{"json field", JSONInputError(jsonErr, "request body"), ErrInvalid, ErrInvalidFilters,
			`field "name" must be a string, got number`, "name", "must be a string, got number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.is) || errors.Is(tc.err, tc.isNot) {
				t.Errorf("errors.Is(%v): want %v and not %v", tc.err, tc.is, tc.isNot)
			}
			ie, ok := errors.AsType[*InvalidInputError](tc.err)
			if !ok {
				t.Fatalf("errors.As found no InvalidInputError in %v", tc.err)
			}
			if tc.err.Error() != tc.text {
				t.Errorf("text %q; want %q", tc.err.Error(), tc.text)
			}
			if ie.Field != tc.field || ie.Problem != tc.problem {
				t.Errorf("field %q problem %q; want %q %q", ie.Field, ie.Problem, tc.field, tc.problem)
			}
		})
	}
	var typ *json.UnmarshalTypeError
	if !errors.As(JSONInputError(jsonErr, "request body"), &typ) {
		t.Error("the JSON decoding error is not kept as the cause")
	}
}

// TestConflictError: a conflict reads as the sentence it was given, with context wrapped around
// it, and is ErrConflict for errors.Is (never ErrInvalid).
func TestConflictError(t *testing.T) {
	err := fmt.Errorf("approve: %w", Conflictf("needs-human item %s was already approved or dismissed", "nhu_1"))
	if got, want := err.Error(), "approve: needs-human item nhu_1 was already approved or dismissed"; got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
	if !errors.Is(err, ErrConflict) || errors.Is(err, ErrInvalid) {
		t.Fatalf("errors.Is: conflict %v, invalid %v", errors.Is(err, ErrConflict), errors.Is(err, ErrInvalid))
	}
}
