package api_test

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"outreachd/api"
	"outreachd/docs"
	"outreachd/internal/testenv"
)

// TestReferenceEndpoints: GET /openapi.yaml answers docs/openapi.yaml byte for byte, without a
// key; GET /docs is an HTML page without scripts or outside resources that shows every path,
// every operation, every named schema and the server's own address.
func TestReferenceEndpoints(t *testing.T) {
	t.Parallel()
	file, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, docs.OpenAPI) {
		t.Fatal("the embedded OpenAPI document differs from docs/openapi.yaml")
	}
	srv, err := api.NewServer(nil, api.Deps{}, api.Config{PublicURL: "https://outreach.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	get := func(t *testing.T, path string) (*http.Response, []byte) {
		t.Helper()
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}

	t.Run("openapi.yaml", func(t *testing.T) {
		resp, body := get(t, "/openapi.yaml")
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/yaml") {
			t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if !bytes.Equal(body, file) {
			t.Fatalf("GET /openapi.yaml is not docs/openapi.yaml (%d bytes, want %d)", len(body), len(file))
		}
	})

	t.Run("docs page", func(t *testing.T) {
		resp, body := get(t, "/docs")
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("Content-Security-Policy %q does not forbid outside resources", csp)
		}
		page := string(body)
		for _, banned := range []string{"<script", "src=", "<link", "@import"} {
			if strings.Contains(page, banned) {
				t.Errorf("the page contains %q: it must load nothing from elsewhere", banned)
			}
		}
		if !strings.Contains(page, "https://outreach.example.com/api/v1") {
			t.Error("the page does not show the server's own base URL")
		}
		var doc struct {
			Paths      map[string]map[string]any `yaml:"paths"`
			Webhooks   map[string]any            `yaml:"webhooks"`
			Components struct {
				Schemas map[string]any `yaml:"schemas"`
			} `yaml:"components"`
		}
		if err := yaml.Unmarshal(file, &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Paths) < 20 || len(doc.Components.Schemas) < 20 {
			t.Fatalf("read only %d paths and %d schemas: the test's reading is broken", len(doc.Paths), len(doc.Components.Schemas))
		}
		for path, item := range doc.Paths {
			if !strings.Contains(page, "<code>"+html.EscapeString(path)+"</code>") {
				t.Errorf("path %s is not on the page", path)
			}
			for method, op := range item {
				m, ok := op.(map[string]any)
				if !ok || method == "parameters" || method == "servers" {
					continue
				}
				if id, _ := m["operationId"].(string); !strings.Contains(page, `id="op-`+id+`"`) {
					t.Errorf("%s %s (operationId %q) has no section", method, path, id)
				}
			}
		}
		for name := range doc.Components.Schemas {
			if !strings.Contains(page, `id="schema-`+name+`"`) {
				t.Errorf("schema %s is not on the page", name)
			}
		}
		for name := range doc.Webhooks {
			if !strings.Contains(page, html.EscapeString(name)) {
				t.Errorf("webhook %s is not on the page", name)
			}
		}
		if os.Getenv("REFERENCE_PAGE_OUT") != "" {
			_ = os.WriteFile(os.Getenv("REFERENCE_PAGE_OUT"), body, 0o644)
		}
	})
}

// TestOpenAPIExamplesValid: every request example in the document (shown on GET /docs) is a
// valid request by the document's own schema, so a reader copying one gets no 400 for its shape.
func TestOpenAPIExamplesValid(t *testing.T) {
	t.Parallel()
	spec := testenv.LoadOpenAPI(t)
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(docs.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths {
		for method, op := range item {
			m, _ := op.(map[string]any)
			body, _ := m["requestBody"].(map[string]any)
			content, _ := body["content"].(map[string]any)
			media, _ := content["application/json"].(map[string]any)
			ex, ok := media["example"]
			if !ok {
				continue
			}
			n++
			raw, err := json.Marshal(ex)
			if err != nil {
				t.Fatal(err)
			}
			ptr := "#/paths/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(path) + "/" + method + "/requestBody/content/application~1json/schema"
			if err := spec.ValidateJSON(ptr, raw); err != nil {
				t.Errorf("%s %s: the example is not a valid request: %v", method, path, err)
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d request examples found", n)
	}
}
