package outreach

import (
	"reflect"
	"testing"
)

// TestFilterCatalogueOpenParts: below an open part of a schema (a block with free-form data, as
// typeSchema describes a map[string]any; an object without additionalProperties; a value
// without a type) any path and any literal are accepted, while a typed map still types its
// members and a closed object still refuses unknown names.
func TestFilterCatalogueOpenParts(t *testing.T) {
	type freeBlock struct {
		ID     string            `json:"id"`
		Data   map[string]any    `json:"data,omitempty"`
		Counts map[string]int    `json:"counts"`
		Tags   []string          `json:"tags"`
		Any    any               `json:"any"`
		Nested map[string][]bool `json:"nested"`
	}
	block := typeSchema(reflect.TypeOf(freeBlock{}))
	block["properties"].(map[string]any)["loose"] = map[string]any{"type": "object"}
	cat := &filterCatalogue{kinds: []EventKind{"lead_free"}, schemas: []map[string]any{{
		"type": "object", "additionalProperties": false,
		"properties": map[string]any{"data": map[string]any{"type": "object", "additionalProperties": false,
			"properties": map[string]any{"lead": block}}},
	}}}
	tests := []struct {
		raw, refused string
	}{
		{`{"data.lead.data.plan":"pro"}`, ""},
		{`{"data.lead.data.seats":{"$gte":5}}`, ""},
		{`{"data.lead.data.a.b.c":null}`, ""},
		{`{"data.lead.data":null}`, ""},
		{`{"data.lead.any.x":true}`, ""},
		{`{"data.lead.loose.anything":1}`, ""},
		{`{"data.lead.counts.won":3}`, ""},
		{`{"data.lead.tags":"vip"}`, ""},
		{`{"data.lead.nested.x":true}`, ""},
		{`{"data.lead.counts.won":"3"}`, `filter.data.lead.counts.won: the string "3" is compared with data.lead.counts.won, which is an integer`},
		{`{"data.lead.tags":{"$gt":1}}`, "filter.data.lead.tags: $gt compares the number 1 with data.lead.tags, which is an array of strings or null"},
		{`{"data.lead.nested.x":1}`, "filter.data.lead.nested.x: the number 1 is compared with data.lead.nested.x, which is an array of booleans or null"},
		{`{"data.lead.idx":"x"}`, "filter.data.lead.idx: data.lead.idx is not a field of lead_free events (GET /event-types lists the fields of each)"},
		{`{"data.lead.id.x":"x"}`, "filter.data.lead.id.x: data.lead.id.x is not a field of lead_free events (GET /event-types lists the fields of each)"},
	}
	for _, tc := range tests {
		_, err := compileFilter([]byte(tc.raw), cat)
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%s refused: %v", tc.raw, err)
		case tc.refused != "" && (err == nil || err.Error() != tc.refused):
			t.Errorf("%s: got %v, want %s", tc.raw, err, tc.refused)
		}
	}
}
