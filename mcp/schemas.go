package mcp

import (
	"fmt"
	"maps"
	"slices"
)

// Tool schemas in the subset of JSON Schema every MCP client accepts. Clients translate tool
// schemas into their model provider's dialect (some into an OpenAPI 3.0 subset with one type
// per schema), and a schema they cannot translate makes them drop the tool or refuse the whole
// server. So every input and output schema a tool lists keeps to this profile, and lintSchema
// holds it:
//   - the root is {"type": "object", "properties": {…}};
//   - every schema is an object (no bare true or false in place of a schema) with exactly one
//     "type", a string; a value that may be null or of several types is an "anyOf" of typed
//     schemas, and nothing else;
//   - an object lists its "properties" (an empty list when it has none); its
//     "additionalProperties" is absent, false or a typed schema, never true;
//   - an array has "items";
//   - only these keywords appear: type, properties, required, additionalProperties, items,
//     anyOf, enum, description, title, minimum, maximum, minLength, maxLength, minItems,
//     maxItems, and format with date-time, date, email or uuid. No $ref or $defs (everything
//     inlined), no const (an enum of one), no oneOf or allOf (rewritten), no if/then/else or not,
//     no pattern, no default (the SDK would write defaults into answers), no examples.
// An input is read by the tool's own code, which refuses what the schema no longer says
// (a nullable input becomes a plain optional one); an output loses only constraints (a
// conditional, a pattern), so every answer the REST API documents still validates.

var portableKeywords = map[string]bool{"type": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "anyOf": true, "enum": true, "description": true,
	"title": true, "minimum": true, "maximum": true, "minLength": true, "maxLength": true,
	"minItems": true, "maxItems": true, "format": true}

var portableFormats = map[string]bool{"date-time": true, "date": true, "email": true, "uuid": true}

// Keywords that apply to one type only, for splitting a schema of several types.
var typeKeywords = map[string][]string{
	"object":  {"properties", "required", "additionalProperties"},
	"array":   {"items", "minItems", "maxItems"},
	"string":  {"minLength", "maxLength", "format"},
	"number":  {"minimum", "maximum"},
	"integer": {"minimum", "maximum"},
}

// portable rewrites a JSON Schema (generic values) into the profile above. forInput drops the
// null of a nullable value of one type (leaving the field out is how a tool's input says
// "none") instead of keeping it as an anyOf branch.
func portable(v any, forInput bool) (map[string]any, error) {
	s, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a schema is %T, not an object", v)
	}
	out := map[string]any{}
	if d, ok := s["description"].(string); ok {
		out["description"] = d
	}
	if t, ok := s["title"].(string); ok {
		out["title"] = t
	}
	for _, member := range list(s["allOf"]) {
		m, err := portable(member, forInput)
		if err != nil {
			return nil, err
		}
		mergeSchema(out, m)
	}
	own, err := portableOwn(s, forInput)
	if err != nil {
		return nil, err
	}
	mergeSchema(out, own)
	var branches []any
	for _, b := range append(list(s["oneOf"]), list(s["anyOf"])...) {
		pb, err := portable(b, forInput)
		if err != nil {
			return nil, err
		}
		if forInput && pb["type"] == "null" {
			continue
		}
		branches = append(branches, flatten(pb)...)
	}
	if len(branches) == 0 {
		return out, nil
	}
	if _, typed := out["type"]; typed {
		return nil, fmt.Errorf("a schema has both a type and alternatives (oneOf or anyOf)")
	}
	if len(branches) == 1 {
		mergeSchema(out, branches[0].(map[string]any))
		return out, nil
	}
	out["anyOf"] = branches
	return out, nil
}

// portableOwn rewrites the schema's own keywords (not its allOf, oneOf or anyOf).
func portableOwn(s map[string]any, forInput bool) (map[string]any, error) {
	out := map[string]any{}
	for _, k := range []string{"minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"} {
		if v, ok := s[k]; ok {
			out[k] = v
		}
	}
	if f, ok := s["format"].(string); ok && portableFormats[f] {
		out["format"] = f
	}
	if req := list(s["required"]); len(req) > 0 {
		out["required"] = req
	}
	if c, ok := s["const"]; ok {
		out["enum"] = []any{c}
	} else if e, ok := s["enum"]; ok {
		out["enum"] = list(e)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		pp := map[string]any{}
		for name, p := range props {
			conv, err := portable(p, forInput)
			if err != nil {
				return nil, fmt.Errorf("property %s: %w", name, err)
			}
			pp[name] = conv
		}
		out["properties"] = pp
	}
	if items, ok := s["items"]; ok {
		conv, err := portable(items, forInput)
		if err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
		out["items"] = conv
	}
	switch ap := s["additionalProperties"].(type) {
	case bool:
		if !ap {
			out["additionalProperties"] = false
		}
	case map[string]any:
		conv, err := portable(ap, forInput)
		if err != nil {
			return nil, fmt.Errorf("additionalProperties: %w", err)
		}
		out["additionalProperties"] = conv
	}
	return typed(out, typesOf(s, out), forInput), nil
}

// typesOf is the schema's types: its "type" (a string or a list), else what its enum, properties
// or items imply.
func typesOf(s, out map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var ts []string
		for _, e := range t {
			ts = append(ts, fmt.Sprint(e))
		}
		return ts
	}
	switch {
	case out["properties"] != nil || out["additionalProperties"] != nil:
		return []string{"object"}
	case out["items"] != nil:
		return []string{"array"}
	}
	seen := map[string]bool{}
	var ts []string
	for _, v := range list(out["enum"]) {
		t := jsonType(v)
		if !seen[t] {
			seen[t] = true
			ts = append(ts, t)
		}
	}
	return ts
}

// typed gives s one type, or splits it into an anyOf of one schema per type, each with the
// keywords (and enum values) that apply to it.
func typed(s map[string]any, types []string, forInput bool) map[string]any {
	if forInput && len(types) == 2 && slices.Contains(types, "null") { // nullable: an optional input
		types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
	}
	branch := func(t string) map[string]any {
		b := map[string]any{"type": t}
		for _, k := range typeKeywords[t] {
			if v, ok := s[k]; ok {
				b[k] = v
			}
		}
		if t == "object" && b["properties"] == nil {
			b["properties"] = map[string]any{}
		}
		var vals []any
		for _, v := range list(s["enum"]) {
			if jsonType(v) == t || (t == "number" && jsonType(v) == "integer") {
				vals = append(vals, v)
			}
		}
		if len(vals) > 0 && t != "null" {
			b["enum"] = vals
		}
		return b
	}
	switch len(types) {
	case 0:
		return s // typeless: lintSchema names it
	case 1:
		b := branch(types[0])
		for _, k := range []string{"description", "title"} {
			if v, ok := s[k]; ok {
				b[k] = v
			}
		}
		return b
	}
	out := map[string]any{}
	for _, k := range []string{"description", "title"} {
		if v, ok := s[k]; ok {
			out[k] = v
		}
	}
	var branches []any
	for _, t := range types {
		branches = append(branches, branch(t))
	}
	out["anyOf"] = branches
	return out
}

// mergeSchema adds src's keywords to dst (an allOf member or a schema's own keywords): properties
// and required lists are united, a later property replacing an earlier one of the same name.
func mergeSchema(dst, src map[string]any) {
	for k, v := range src {
		switch k {
		case "properties":
			props, _ := dst[k].(map[string]any)
			if props == nil {
				props = map[string]any{}
			}
			maps.Copy(props, v.(map[string]any))
			dst[k] = props
		case "required":
			have := list(dst[k])
			for _, r := range list(v) {
				if !slices.Contains(have, r) {
					have = append(have, r)
				}
			}
			dst[k] = have
		case "description", "title":
			if _, ok := dst[k]; !ok {
				dst[k] = v
			}
		default:
			dst[k] = v
		}
	}
}

// flatten lists the alternatives of a schema: its anyOf branches, or the schema itself.
func flatten(s map[string]any) []any {
	if b := list(s["anyOf"]); len(b) > 0 {
		return b
	}
	return []any{s}
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case int, int64, uint64:
		return "integer"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}
