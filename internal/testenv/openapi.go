package testenv

// Checking real answers against docs/openapi.yaml.
//
// Libraries: OpenAPI 3.1 schemas are JSON Schema 2020-12, so the document's schemas are checked
// by github.com/santhosh-tekuri/jsonschema/v6, a complete, maintained 2020-12 implementation
// (unevaluatedProperties, if/then/else, $ref with siblings, format assertion) that passes the
// official JSON-Schema-Test-Suite. kin-openapi was not used: its validator targets OpenAPI 3.0
// schemas (nullable, no type arrays, no unevaluatedProperties), and 3.1 support is still partial.
// The YAML is read by go.yaml.in/yaml/v3, the YAML organisation's maintained continuation of
// gopkg.in/yaml.v3 (already in this module's graph through prometheus).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

const openAPIResource = "file:///openapi.json"

// OpenAPI is docs/openapi.yaml, loaded for checking answers against it.
type OpenAPI struct {
	doc      map[string]any
	ops      []Operation
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

// Operation is one method of one path of the document, with the full path template the
// server answers it on (server prefix + path key).
type Operation struct {
	Method   string // upper case
	Template string // e.g. /api/v1/campaigns/{id}
	Key      string // the key under paths, e.g. /campaigns/{id}
	Status   string // x-outreachd-status, "" when served
	re       *regexp.Regexp
	params   int
	item     map[string]any
	op       map[string]any
}

// LoadOpenAPI reads docs/openapi.yaml and compiles every response schema and the webhook
// schema, so a broken $ref or an invalid schema fails here rather than in the first check.
//
// Response objects are closed before compiling: every object schema that declares its
// properties, and every allOf composition, gets unevaluatedProperties: false unless it says
// otherwise, is an allOf member, or is marked x-outreachd-mixin. The published document stays
// open (clients must ignore new fields, docs/api.md, "Versioning"); the tests hold the server to exactly the
// documented fields.
func LoadOpenAPI(t testing.TB) *OpenAPI {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := ParseOpenAPI(raw)
	if err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	return o
}

// ParseOpenAPI is LoadOpenAPI on a document's bytes.
func ParseOpenAPI(raw []byte) (*OpenAPI, error) {
	var y any
	if err := yaml.Unmarshal(raw, &y); err != nil {
		return nil, fmt.Errorf("yaml: %w", err)
	}
	// Through JSON, so numbers and maps have the types the schema library expects.
	j, err := json.Marshal(y)
	if err != nil {
		return nil, fmt.Errorf("to json: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		return nil, err
	}
	root, ok := doc.(map[string]any)
	if !ok || root["openapi"] != "3.1.0" {
		return nil, fmt.Errorf("not an OpenAPI 3.1.0 document")
	}
	closeObjects(root, false)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(openAPIResource, root); err != nil {
		return nil, err
	}
	o := &OpenAPI{doc: root, compiler: c, schemas: map[string]*jsonschema.Schema{}}
	if err := o.index(); err != nil {
		return nil, err
	}
	return o, nil
}

// closeObjects adds unevaluatedProperties: false as LoadOpenAPI describes.
func closeObjects(v any, allOfMember bool) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			closeObjects(e, false)
		}
	case map[string]any:
		_, hasProps := x["properties"]
		_, hasAllOf := x["allOf"]
		_, hasAP := x["additionalProperties"]
		_, hasUP := x["unevaluatedProperties"]
		mixin, _ := x["x-outreachd-mixin"].(bool)
		if !allOfMember && !mixin && !hasAP && !hasUP && ((hasProps && typeHasObject(x["type"])) || hasAllOf) {
			x["unevaluatedProperties"] = false
		}
		for k, e := range x {
			if k == "allOf" {
				if list, ok := e.([]any); ok {
					for _, m := range list {
						closeObjects(m, true)
					}
					continue
				}
			}
			closeObjects(e, false)
		}
	}
}

func typeHasObject(t any) bool {
	switch x := t.(type) {
	case string:
		return x == "object"
	case []any:
		for _, e := range x {
			if e == "object" {
				return true
			}
		}
	}
	return false
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func (o *OpenAPI) index() error {
	paths, _ := o.doc["paths"].(map[string]any)
	ids := map[string]string{}
	for key, v := range paths {
		item, _ := v.(map[string]any)
		prefix, err := o.serverPrefix(item)
		if err != nil {
			return fmt.Errorf("paths %s: %w", key, err)
		}
		tpl := prefix + key
		re, n := templateRegexp(tpl)
		for _, m := range methods {
			op, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			where := strings.ToUpper(m) + " " + tpl
			id, _ := op["operationId"].(string)
			if id == "" {
				return fmt.Errorf("%s: no operationId", where)
			}
			if prev, dup := ids[id]; dup {
				return fmt.Errorf("%s: operationId %s already used by %s", where, id, prev)
			}
			ids[id] = where
			status, _ := op["x-outreachd-status"].(string)
			resps, _ := op["responses"].(map[string]any)
			if len(resps) == 0 {
				return fmt.Errorf("%s: no responses", where)
			}
			for code := range resps {
				if _, err := o.responseSchemas(key, m, code); err != nil {
					return fmt.Errorf("%s %s: %w", where, code, err)
				}
			}
			o.ops = append(o.ops, Operation{Method: strings.ToUpper(m), Template: tpl, Key: key, Status: status,
				re: re, params: n, item: item, op: op})
		}
	}
	sort.Slice(o.ops, func(i, j int) bool {
		if o.ops[i].Template != o.ops[j].Template {
			return o.ops[i].Template < o.ops[j].Template
		}
		return o.ops[i].Method < o.ops[j].Method
	})
	if _, err := o.Schema("#/components/schemas/Event"); err != nil {
		return err
	}
	return nil
}

// serverPrefix is the path part of the path item's (else the document's) first server URL,
// with the {public_url} origin variable removed: "/api/v1" or "".
func (o *OpenAPI) serverPrefix(item map[string]any) (string, error) {
	servers, _ := item["servers"].([]any)
	if len(servers) == 0 {
		servers, _ = o.doc["servers"].([]any)
	}
	if len(servers) == 0 {
		return "", fmt.Errorf("no servers")
	}
	s, _ := servers[0].(map[string]any)
	u, _ := s["url"].(string)
	rest, ok := strings.CutPrefix(u, "{public_url}")
	if !ok {
		return "", fmt.Errorf("server url %q does not start with {public_url}", u)
	}
	return rest, nil
}

func templateRegexp(tpl string) (*regexp.Regexp, int) {
	var b strings.Builder
	b.WriteString("^")
	n := 0
	for _, seg := range strings.Split(tpl, "/")[1:] {
		b.WriteString("/")
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			b.WriteString("[^/]+")
			n++
			continue
		}
		b.WriteString(regexp.QuoteMeta(seg))
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String()), n
}

// Operations lists every operation of the document, sorted by template and method.
func (o *OpenAPI) Operations() []Operation { return append([]Operation(nil), o.ops...) }

// Find returns the operation for a request; path may carry a query. When several templates
// match, the one with the fewest parameters wins (/deliveries/recover before /deliveries/{id}).
func (o *OpenAPI) Find(method, path string) (Operation, bool) {
	path, _, _ = strings.Cut(path, "?")
	best, found := Operation{}, false
	for _, op := range o.ops {
		if op.Method == strings.ToUpper(method) && op.re.MatchString(path) && (!found || op.params < best.params) {
			best, found = op, true
		}
	}
	return best, found
}

// resolve follows a local $ref; it returns the object and its JSON pointer.
func (o *OpenAPI) resolve(v any, ptr string) (map[string]any, string, error) {
	for range 10 {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, "", fmt.Errorf("%s is not an object", ptr)
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, ptr, nil
		}
		if !strings.HasPrefix(ref, "#/") {
			return nil, "", fmt.Errorf("%s: only local $ref is supported, got %s", ptr, ref)
		}
		ptr = ref
		v = o.doc
		for _, tok := range strings.Split(ref[2:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			next, ok := v.(map[string]any)[tok]
			if !ok {
				return nil, "", fmt.Errorf("$ref %s does not resolve", ref)
			}
			v = next
		}
	}
	return nil, "", fmt.Errorf("%s: $ref chain too long", ptr)
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

type responseSpec struct {
	headers map[string]headerSpec // name -> header object (resolved)
	content map[string]string     // media type -> schema pointer
}

type headerSpec struct {
	ptr string
	obj map[string]any
}

func (o *OpenAPI) responseSchemas(key, method, code string) (responseSpec, error) {
	ptr := "#/paths/" + escapePointer(key) + "/" + method + "/responses/" + code
	item := o.doc["paths"].(map[string]any)[key].(map[string]any)
	resp, ptr, err := o.resolve(item[method].(map[string]any)["responses"].(map[string]any)[code], ptr)
	if err != nil {
		return responseSpec{}, err
	}
	spec := responseSpec{headers: map[string]headerSpec{}, content: map[string]string{}}
	hs, _ := resp["headers"].(map[string]any)
	for name, h := range hs {
		hh, hptr, err := o.resolve(h, ptr+"/headers/"+escapePointer(name))
		if err != nil {
			return spec, err
		}
		if _, err := o.Schema(hptr + "/schema"); err != nil {
			return spec, fmt.Errorf("header %s: %w", name, err)
		}
		spec.headers[name] = headerSpec{ptr: hptr, obj: hh}
	}
	content, _ := resp["content"].(map[string]any)
	for mt, c := range content {
		cm, _ := c.(map[string]any)
		if _, ok := cm["schema"]; !ok {
			return spec, fmt.Errorf("content %s has no schema", mt)
		}
		sp := ptr + "/content/" + escapePointer(mt) + "/schema"
		if _, err := o.Schema(sp); err != nil {
			return spec, err
		}
		spec.content[mt] = sp
	}
	return spec, nil
}

// Schema compiles the schema at a JSON pointer of the document ("#/components/schemas/Event").
func (o *OpenAPI) Schema(ptr string) (*jsonschema.Schema, error) {
	if s, ok := o.schemas[ptr]; ok {
		return s, nil
	}
	s, err := o.compiler.Compile(openAPIResource + ptr)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", ptr, err)
	}
	o.schemas[ptr] = s
	return s, nil
}

// ValidateJSON checks a JSON document against the schema at ptr.
func (o *OpenAPI) ValidateJSON(ptr string, body []byte) error {
	s, err := o.Schema(ptr)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %w: %.200q", err, body)
	}
	return s.Validate(v)
}

// CheckResponse checks one real answer: the operation is documented, the status is among its
// responses, required headers are present and every documented header that is present matches
// its schema, the content type is documented and the body matches its schema.
func (o *OpenAPI) CheckResponse(method, path string, status int, header http.Header, body []byte) error {
	op, ok := o.Find(method, path)
	if !ok {
		return fmt.Errorf("%s %s: no operation in docs/openapi.yaml", method, path)
	}
	where := fmt.Sprintf("%s %s (%s) answered %d", method, path, op.Template, status)
	code := strconv.Itoa(status)
	resps := op.op["responses"].(map[string]any)
	if _, ok := resps[code]; !ok {
		alt := code[:1] + "XX"
		if _, ok := resps[alt]; !ok {
			return fmt.Errorf("%s: status %d is not documented; body %.300s", where, status, body)
		}
		code = alt
	}
	spec, err := o.responseSchemas(op.Key, strings.ToLower(method), code)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	names := make([]string, 0, len(spec.headers))
	for name := range spec.headers {
		names = append(names, name)
	}
	sort.Strings(names) // the first problem reported is the same on every run
	for _, name := range names {
		h := spec.headers[name]
		val := header.Get(name)
		if val == "" {
			if req, _ := h.obj["required"].(bool); req {
				return fmt.Errorf("%s: required header %s is missing", where, name)
			}
			continue
		}
		if err := o.checkHeader(h.ptr, h.obj, val); err != nil {
			return fmt.Errorf("%s: header %s=%q: %v", where, name, val, err)
		}
	}
	if len(spec.content) == 0 {
		if len(bytes.TrimSpace(body)) > 0 {
			return fmt.Errorf("%s: a body was sent but none is documented: %.300s", where, body)
		}
		return nil
	}
	mt, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil {
		return fmt.Errorf("%s: Content-Type %q: %v", where, header.Get("Content-Type"), err)
	}
	ptr, ok := spec.content[mt]
	if !ok {
		return fmt.Errorf("%s: content type %s is not documented", where, mt)
	}
	if mt != "application/json" {
		s, _ := o.Schema(ptr)
		if err := s.Validate(string(body)); err != nil {
			return fmt.Errorf("%s: %v", where, err)
		}
		return nil
	}
	if err := o.ValidateJSON(ptr, body); err != nil {
		return fmt.Errorf("%s: body does not match %s:\n%v\nbody: %.2000s", where, ptr, err, body)
	}
	return nil
}

// checkHeader validates a header value against the schema of the header object at ptr: as an
// integer when the schema's type is integer, else as a string.
func (o *OpenAPI) checkHeader(ptr string, h map[string]any, val string) error {
	s, err := o.Schema(ptr + "/schema")
	if err != nil {
		return err
	}
	sm, _ := h["schema"].(map[string]any)
	var v any = val
	if sm["type"] == "integer" {
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return fmt.Errorf("not an integer")
		}
		v = json.Number(strconv.FormatInt(n, 10))
	}
	return s.Validate(v)
}

// Check is CheckResponse on a Response, failing the test (without stopping it) on a mismatch.
func (o *OpenAPI) Check(t testing.TB, method, path string, r Response) {
	t.Helper()
	if err := o.CheckResponse(method, path, r.Status, r.Header, r.Body); err != nil {
		t.Error(err)
	}
}

// CheckWebhookHeaders checks the headers of a delivery against the header parameters of the
// webhook `name`: required ones are present and every one present matches its schema.
func (o *OpenAPI) CheckWebhookHeaders(name string, h http.Header) error {
	hooks, _ := o.doc["webhooks"].(map[string]any)
	item, _ := hooks[name].(map[string]any)
	op, _ := item["post"].(map[string]any)
	params, _ := op["parameters"].([]any)
	if len(params) == 0 {
		return fmt.Errorf("webhook %s has no header parameters", name)
	}
	for i, p := range params {
		pm, pptr, err := o.resolve(p, fmt.Sprintf("#/webhooks/%s/post/parameters/%d", name, i))
		if err != nil {
			return err
		}
		if pm["in"] != "header" {
			continue
		}
		hn, _ := pm["name"].(string)
		val := h.Get(hn)
		if val == "" {
			if req, _ := pm["required"].(bool); req {
				return fmt.Errorf("required header %s is missing", hn)
			}
			continue
		}
		if err := o.checkHeader(pptr, pm, val); err != nil {
			return fmt.Errorf("header %s=%q: %v", hn, val, err)
		}
	}
	return nil
}
