package api

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"outreachd/docs"
)

// ResponseSchema is the JSON Schema docs/openapi.yaml gives the success answer (the first 2xx
// response) of the endpoint method path, path as the document keys it under /api/v1
// ("/campaigns/{id}"). Every $ref is inlined, so the answer stands alone; it is a fresh copy of
// generic JSON values (maps, slices, strings, numbers, booleans) the caller may change. The
// assistant server derives its tools' output schemas from it: a tool that answers an
// endpoint's JSON is described by that endpoint's documented shape, never by a second copy.
func ResponseSchema(method, path string) (map[string]any, error) {
	doc, err := openAPIDocument()
	if err != nil {
		return nil, err
	}
	item, _ := dig(doc, "paths", path).(map[string]any)
	op, _ := item[strings.ToLower(method)].(map[string]any)
	if op == nil {
		return nil, fmt.Errorf("docs/openapi.yaml has no %s %s", method, path)
	}
	responses, _ := op["responses"].(map[string]any)
	var codes []string
	for code := range responses {
		if strings.HasPrefix(code, "2") {
			codes = append(codes, code)
		}
	}
	if len(codes) == 0 {
		return nil, fmt.Errorf("docs/openapi.yaml: %s %s has no success response", method, path)
	}
	sort.Strings(codes)
	resp, err := inlineRefs(doc, responses[codes[0]], nil)
	if err != nil {
		return nil, fmt.Errorf("docs/openapi.yaml: %s %s: %w", method, path, err)
	}
	schema, _ := dig(resp, "content", "application/json", "schema").(map[string]any)
	if schema == nil {
		return nil, fmt.Errorf("docs/openapi.yaml: %s %s answers %s without a JSON schema", method, path, codes[0])
	}
	return schema, nil
}

// openAPIDocument is the embedded document as generic values, parsed once.
var openAPIDocument = sync.OnceValues(func() (map[string]any, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(docs.OpenAPI, &doc); err != nil {
		return nil, fmt.Errorf("parse docs/openapi.yaml: %w", err)
	}
	return doc, nil
})

// dig follows keys through nested maps; nil when one is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// inlineRefs copies v with every {"$ref": "#/…"} replaced by what it names (siblings of the $ref
// are kept beside it). stack holds the references being inlined, so a cycle is an error rather
// than an endless copy.
func inlineRefs(doc map[string]any, v any, stack []string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		if ref, ok := x["$ref"].(string); ok {
			for _, seen := range stack {
				if seen == ref {
					return nil, fmt.Errorf("%s refers to itself", ref)
				}
			}
			target := dig(doc, strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
			if !strings.HasPrefix(ref, "#/") || target == nil {
				return nil, fmt.Errorf("unknown reference %s", ref)
			}
			resolved, err := inlineRefs(doc, target, append(stack, ref))
			if err != nil {
				return nil, err
			}
			if m, isMap := resolved.(map[string]any); isMap {
				out = m
			}
		}
		for k, e := range x {
			if k == "$ref" {
				continue
			}
			c, err := inlineRefs(doc, e, stack)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := inlineRefs(doc, e, stack)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	default:
		return v, nil
	}
}
