package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Every tool's input and output schema, as clients receive it, keeps to the portable profile.
// Building the catalog already panics on one that does not; this reads them back as JSON.
func TestToolSchemasArePortable(t *testing.T) {
	srv := &Server{cfg: Config{ProposalTTL: time.Minute}}
	tools := srv.catalog()
	if len(tools) < 26 {
		t.Fatalf("%d tools", len(tools))
	}
	for _, def := range tools {
		for which, schema := range map[string]any{"input": def.tool.InputSchema, "output": def.tool.OutputSchema} {
			if problems := lintSchema(decode(t, schema)); len(problems) > 0 {
				t.Errorf("%s %s schema: %v", def.tool.Name, which, problems)
			}
		}
	}
}

func decode(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPortable(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		forInput bool
		want     string
	}{
		{"nullable output: anyOf with null", `{"type":["string","null"],"description":"d","maxLength":3}`, false,
			`{"anyOf":[{"maxLength":3,"type":"string"},{"type":"null"}],"description":"d"}`},
		{"nullable input: a plain optional value", `{"type":["null","integer"],"minimum":1}`, true,
			`{"minimum":1,"type":"integer"}`},
		{"several types stay alternatives on input", `{"type":["string","number","null"]}`, true,
			`{"anyOf":[{"type":"string"},{"type":"number"},{"type":"null"}]}`},
		{"const: an enum of one, typed", `{"const":"v1"}`, false, `{"enum":["v1"],"type":"string"}`},
		{"nullable enum: null in its own branch", `{"type":["string","null"],"enum":["a","b",null]}`, false,
			`{"anyOf":[{"enum":["a","b"],"type":"string"},{"type":"null"}]}`},
		{"oneOf with null: anyOf", `{"oneOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"type":"null"}]}`, false,
			`{"anyOf":[{"properties":{"a":{"type":"integer"}},"required":["a"],"type":"object"},{"type":"null"}]}`},
		{"allOf merged into one object", `{"description":"x","allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"const":true}},"required":["b"]}]}`, false,
			`{"description":"x","properties":{"a":{"type":"string"},"b":{"enum":[true],"type":"boolean"}},"required":["a","b"],"type":"object"}`},
		{"unportable keywords dropped", `{"type":"string","pattern":"^x","format":"uri","examples":["x"],"default":"x","x-note":1}`, false,
			`{"type":"string"}`},
		{"portable format kept", `{"type":"string","format":"date-time"}`, false, `{"format":"date-time","type":"string"}`},
		{"conditionals dropped", `{"type":"object","properties":{},"if":{"required":["a"]},"then":{"required":["b"]},"else":{"not":{"required":["c"]}}}`, false,
			`{"properties":{},"type":"object"}`},
		{"an open object lists no properties and stays open", `{"type":"object","additionalProperties":true}`, false,
			`{"properties":{},"type":"object"}`},
		{"a map keeps its typed values", `{"type":"object","additionalProperties":{"type":["string","boolean"]}}`, false,
			`{"additionalProperties":{"anyOf":[{"type":"string"},{"type":"boolean"}]},"properties":{},"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in any
			if err := json.Unmarshal([]byte(tt.in), &in); err != nil {
				t.Fatal(err)
			}
			out, err := portable(in, tt.forInput)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(out)
			if string(got) != tt.want {
				t.Fatalf("portable(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			if problems := lintSchema(map[string]any{"type": "object", "properties": map[string]any{"v": out}}); len(problems) > 0 {
				t.Fatalf("the rewrite is not portable: %v", problems)
			}
		})
	}
}

// lintSchema names each way a schema leaves the profile, what the stock MCP inspector warns on
// among them (a type array, an untyped or bare-boolean schema) included.
func TestLintSchema(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":"object","properties":{}}`, ""},
		{`{"type":"array","items":{"type":"string"}}`, `the root is not {"type": "object"}`},
		{`{"type":"object"}`, "(root): an object without properties"},
		{`{"type":"object","properties":{"limit":{"type":["null","integer"]}}}`, "limit: no single type"},
		{`{"type":"object","properties":{"x":{"description":"anything"}}}`, "x: no single type"},
		{`{"type":"object","properties":{"x":true}}`, "x: a bare true where a schema object is expected"},
		{`{"type":"object","properties":{},"additionalProperties":true}`, "(root): additionalProperties: true"},
		{`{"type":"object","properties":{"x":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`, `keyword "$defs" is outside the portable subset`},
		{`{"type":"object","properties":{"x":{"type":"string","const":"a"}}}`, `x: keyword "const" is outside the portable subset`},
		{`{"type":"object","properties":{"x":{"type":"string","format":"uri"}}}`, `x: format "uri" is not one every client knows`},
		{`{"type":"object","properties":{"x":{"type":"array"}}}`, "x: an array without items"},
		{`{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"anyOf":[{"type":"null"}]}]}}}`, "x: anyOf branch 1 is an anyOf itself"},
		{`{"type":"object","properties":{"x":{"type":"integer","enum":["a"]}}}`, "x: enum value a is not of type integer"},
	}
	for _, tt := range tests {
		var s any
		if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(lintSchema(s), "; ")
		if (tt.want == "" && got != "") || !strings.Contains(got, tt.want) {
			t.Errorf("lintSchema(%s) = %q, want it to say %q", tt.schema, got, tt.want)
		}
	}
}
