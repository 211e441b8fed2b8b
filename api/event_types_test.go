package api_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// TestEventTypesEndpoint: GET /event-types lists every kind of the catalogue with a one-line
// description, a sample payload and the JSON Schema of its data; each sample validates against
// its own schema and against the documented webhook envelope.
func TestEventTypesEndpoint(t *testing.T) {
	t.Parallel()
	spec := testenv.LoadOpenAPI(t)
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	wantCode(t, testenv.Client{Base: srv.URL}.Do(t, "GET", "/api/v1/event-types", nil), 401, "invalid_api_key")
	r := org.Read.Do(t, "GET", "/api/v1/event-types", nil)
	wantStatus(t, r, 200)
	types := list(r.JSON["data"])
	kinds := outreach.AllEventKinds()
	if len(types) != len(kinds) {
		t.Fatalf("%d event types, want %d", len(types), len(kinds))
	}
	for i, et := range types {
		if et["kind"] != string(kinds[i]) || et["description"] == "" || et["group"] == "" {
			t.Fatalf("type %d = %v", i, et)
		}
		name := et["kind"].(string) + ".json"
		s := compileSchema(t, name, et["data_schema"])
		sample, _ := json.Marshal(et["sample"])
		// The envelope's schema names every field a filter may: the sample validates against it.
		whole, _ := jsonschema.UnmarshalJSON(bytes.NewReader(sample))
		if err := compileSchema(t, "envelope-"+name, et["envelope_schema"]).Validate(whole); err != nil {
			t.Errorf("%s: sample does not match its envelope schema: %v", name, err)
		}
		var env struct {
			Event string          `json:"event"`
			OrgID string          `json:"org_id"`
			Data  json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(sample, &env)
		if env.Event != et["kind"] || env.OrgID != org.ID {
			t.Errorf("%s: sample envelope = %s", name, sample)
		}
		data, _ := jsonschema.UnmarshalJSON(bytes.NewReader(env.Data))
		if err := s.Validate(data); err != nil {
			t.Errorf("%s: sample does not match its schema: %v", name, err)
		}
		if err := spec.ValidateJSON("#/webhooks/event/post/requestBody/content/application~1json/schema", sample); err != nil {
			t.Errorf("%s: sample does not match the webhook schema: %v", name, err)
		}
	}
}

// compileSchema compiles a JSON Schema document an answer carried, under name.
func compileSchema(t *testing.T, name string, schema any) *jsonschema.Schema {
	t.Helper()
	raw, _ := json.Marshal(schema)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatalf("%s: schema does not compile: %v", name, err)
	}
	return s
}
