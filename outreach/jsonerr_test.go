package outreach

import (
	"strings"
	"testing"
)

// Decoding errors reach clients worded in JSON terms, never with Go's type names.
func TestDescribeJSONErrorNamesNoGoTypes(t *testing.T) {
	_, _, seqErr := ParseSequence([]byte(`{"a":1}`), "outbound")
	_, stepErr := func() ([]SequenceStep, error) {
		s, _, err := ParseSequence([]byte(`[{"type":"message","delay_days":"x"}]`), "outbound")
		return s, err
	}()
	_, filterErr := ParseHardFilters([]byte(`5`))
	for name, c := range map[string]struct {
		err  error
		want string
	}{
		"sequence not an array": {seqErr, "sequence must be an array (JSON), got object"},
		"step field":            {stepErr, `must be an integer, got string`},
		"filters not an object": {filterErr, "meta.hard_filters must be an object (JSON), got number"},
	} {
		if c.err == nil {
			t.Fatalf("%s: no error", name)
		}
		msg := c.err.Error()
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "Go value") || strings.Contains(msg, "struct {") {
			t.Errorf("%s: %q, want it to contain %q and no Go type", name, msg, c.want)
		}
	}
}
