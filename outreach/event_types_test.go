package outreach_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"outreachd/outreach"
)

func compileSchema(t *testing.T, name string, schema map[string]any) *jsonschema.Schema {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func jsonValue(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEventTypeCatalogue: every kind has a one-line description, a sample and a JSON Schema of
// its data, all from the catalogue the hub uses; each sample validates against its schema, and
// the schema refuses a data object without a required block or with a foreign one.
func TestEventTypeCatalogue(t *testing.T) {
	types := outreach.EventTypes(time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC))
	if len(types) != len(outreach.AllEventKinds()) {
		t.Fatalf("%d event types, %d kinds", len(types), len(outreach.AllEventKinds()))
	}
	for i, et := range types {
		if et.Kind != outreach.AllEventKinds()[i] {
			t.Fatalf("type %d is %s, want %s", i, et.Kind, outreach.AllEventKinds()[i])
		}
		t.Run(string(et.Kind), func(t *testing.T) {
			if et.Description == "" || strings.Contains(et.Description, "\n") || len(et.Description) > 200 {
				t.Errorf("description %q is not one line", et.Description)
			}
			if et.Sample.Kind != et.Kind || et.Sample.Validate() != nil {
				t.Fatalf("sample is not a valid %s event: %v", et.Kind, et.Sample.Validate())
			}
			s := compileSchema(t, string(et.Kind)+".json", et.DataSchema)
			if err := s.Validate(jsonValue(t, et.Sample.Data)); err != nil {
				t.Fatalf("sample does not match its schema: %v", err)
			}
			req := et.Kind.Blocks()
			if len(req) > 0 {
				m := jsonValue(t, et.Sample.Data).(map[string]any)
				delete(m, req[0])
				if s.Validate(m) == nil {
					t.Errorf("schema accepts data without the required block %s", req[0])
				}
			}
			m := jsonValue(t, et.Sample.Data).(map[string]any)
			m["surprise"] = map[string]any{}
			if s.Validate(m) == nil {
				t.Error("schema accepts an unknown block")
			}
		})
	}
}
