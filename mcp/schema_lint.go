package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"outreachd/api"
)

// lintSchema lists where a tool schema leaves the profile above ("" when it keeps to it).
func lintSchema(s any) []string {
	var problems []string
	root, ok := s.(map[string]any)
	if !ok || root["type"] != "object" {
		problems = append(problems, `the root is not {"type": "object"}`)
	}
	lintNode(s, "", &problems)
	return problems
}

func lintNode(v any, at string, problems *[]string) {
	add := func(format string, args ...any) {
		where := at
		if where == "" {
			where = "(root)"
		}
		*problems = append(*problems, where+": "+fmt.Sprintf(format, args...))
	}
	s, ok := v.(map[string]any)
	if !ok {
		add("a bare %v where a schema object is expected", v)
		return
	}
	keys := slices.Sorted(maps.Keys(s))
	for _, k := range keys {
		if !portableKeywords[k] {
			add("keyword %q is outside the portable subset", k)
		}
	}
	if f, ok := s["format"].(string); ok && !portableFormats[f] {
		add("format %q is not one every client knows", f)
	}
	if branches, ok := s["anyOf"]; ok {
		if _, typed := s["type"]; typed {
			add("both a type and anyOf")
		}
		for i, b := range list(branches) {
			bm, _ := b.(map[string]any)
			if _, nested := bm["anyOf"]; nested {
				add("anyOf branch %d is an anyOf itself", i)
			}
			lintNode(b, fmt.Sprintf("%s.anyOf[%d]", at, i), problems)
		}
		return
	}
	t, ok := s["type"].(string)
	if !ok {
		add("no single type (%v)", s["type"])
		return
	}
	switch t {
	case "object":
		props, ok := s["properties"].(map[string]any)
		if !ok {
			add("an object without properties")
		}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			lintNode(props[name], join(at, name), problems)
		}
		switch ap := s["additionalProperties"].(type) {
		case nil:
		case bool:
			if ap {
				add("additionalProperties: true")
			}
		default:
			lintNode(ap, at+"{*}", problems)
		}
	case "array":
		items, ok := s["items"]
		if !ok {
			add("an array without items")
		} else {
			lintNode(items, at+"[]", problems)
		}
	case "string", "number", "integer", "boolean", "null":
	default:
		add("unknown type %q", t)
	}
	for _, e := range list(s["enum"]) {
		if jt := jsonType(e); jt != t && !(t == "number" && jt == "integer") {
			add("enum value %v is not of type %s", e, t)
		}
	}
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// toolSchema turns a portable schema into the SDK's type. A schema that leaves the profile is a
// programming error: it panics, so any test that builds the catalog catches it.
func toolSchema(tool, which string, s map[string]any) *jsonschema.Schema {
	if problems := lintSchema(s); len(problems) > 0 {
		sort.Strings(problems)
		panic(fmt.Sprintf("mcp: %s schema of %s is not portable: %s", which, tool, strings.Join(problems, "; ")))
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcp: %s schema of %s: %v", which, tool, err))
	}
	var out jsonschema.Schema
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(fmt.Sprintf("mcp: %s schema of %s: %v", which, tool, err))
	}
	return &out
}

// inputSchema is In's schema (descriptions from its `jsonschema` tags) refined by shape (enums,
// bounds), in the portable profile.
func inputSchema[In any](tool string, shape func(*jsonschema.Schema)) *jsonschema.Schema {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %s: %v", tool, err))
	}
	if shape != nil {
		shape(schema)
	}
	return toolSchema(tool, "input", mustPortable(tool, schema, true))
}

// goOutput is the portable schema of Out, a Go type a tool answers.
func goOutput[Out any](tool string) map[string]any {
	schema, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %s: %v", tool, err))
	}
	return mustPortable(tool, schema, false)
}

// mustPortable rewrites a schema value (a *jsonschema.Schema or generic values) into the profile.
func mustPortable(tool string, schema any, forInput bool) map[string]any {
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %s: %v", tool, err))
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		panic(fmt.Sprintf("mcp: schema of %s: %v", tool, err))
	}
	out, err := portable(generic, forInput)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %s: %v", tool, err))
	}
	return out
}

// endpoint names the REST endpoint whose answer a tool returns, as docs/openapi.yaml keys it.
type endpoint struct{ method, path string }

// restOutput is the portable schema of an endpoint's documented answer.
func restOutput(tool string, e endpoint) map[string]any {
	raw, err := api.ResponseSchema(e.method, e.path)
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %s: %v", tool, err))
	}
	return mustPortable(tool, raw, false)
}

// unionOfObjects is one object schema that every one of objects validates against: each
// property any of them has, as the anyOf of its schemas where they differ, none required.
func unionOfObjects(description string, objects []map[string]any) map[string]any {
	props := map[string][]any{}
	for _, o := range objects {
		for name, p := range o["properties"].(map[string]any) {
			for _, alt := range flatten(p.(map[string]any)) {
				if !slices.ContainsFunc(props[name], func(have any) bool { return sameJSON(have, alt) }) {
					props[name] = append(props[name], alt)
				}
			}
		}
	}
	out := map[string]any{}
	for name, alts := range props {
		if len(alts) == 1 {
			out[name] = alts[0]
		} else {
			out[name] = map[string]any{"anyOf": alts}
		}
	}
	return map[string]any{"type": "object", "description": description, "properties": out}
}

func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
