package docs

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestGuideCoversEveryEndpoint: every API operation of openapi.yaml is explained in the guide
// (api.md names it as "METHOD /path"), and neither the guides nor the OpenAPI document send
// readers to a file outside the repository (public standards such as RFCs may be cited).
func TestGuideCoversEveryEndpoint(t *testing.T) {
	guide, err := os.ReadFile("api.md")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	var missing []string
	n := 0
	for path, item := range doc.Paths {
		for method, op := range item {
			m, ok := op.(map[string]any)
			if !ok || method == "parameters" || method == "servers" {
				continue
			}
			if status, _ := m["x-outreachd-status"].(string); status == "planned" {
				continue
			}
			tags, _ := m["tags"].([]any)
			if len(tags) > 0 && tags[0] == "operations" {
				continue // /healthz, /metrics, /docs …: listed under "Addresses"
			}
			n++
			if name := strings.ToUpper(method) + " " + path; !strings.Contains(string(guide), name) {
				missing = append(missing, name)
			}
		}
	}
	sort.Strings(missing)
	if n < 30 {
		t.Fatalf("only %d operations read from openapi.yaml", n)
	}
	if len(missing) > 0 {
		t.Errorf("docs/api.md does not explain these endpoints of docs/openapi.yaml:\n  %s", strings.Join(missing, "\n  "))
	}
	outside := regexp.MustCompile(`api-v1|decisions\.md|decisions §|§|/work/|spec/`)
	standard := regexp.MustCompile(`RFC [0-9]+|OAuth 2\.1|BCP`) // public standards may be cited by section
	for _, f := range []string{"api.md", "architecture.md", "operations.md", "mcp.md", "app.md", "openapi.yaml", "../README.md"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(raw), "\n") {
			if outside.MatchString(line) && !standard.MatchString(line) {
				t.Errorf("%s:%d points outside the repository: %s", f, i+1, line)
			}
		}
	}
}
