package api_test

import (
	"reflect"
	"strings"
	"testing"

	"outreachd/internal/testenv"
)

// TestOrgDefaultFiltersEndpoint: the organization's default filters are read and replaced
// through the API (read_write to change), validated like campaign filters, and stamped onto
// campaigns created afterwards.
func TestOrgDefaultFiltersEndpoint(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000")
	org := testenv.NewOrg(t, srv)
	const path = "/api/v1/settings/default-filters"
	g := org.Read.Do(t, "GET", path, nil)
	wantStatus(t, g, 200)
	if hf := g.JSON["data"].(map[string]any)["hard_filters"]; !reflect.DeepEqual(hf, map[string]any{}) {
		t.Fatalf("initial defaults = %s", g.Body)
	}
	before := cpCreate(t, org.Write, map[string]any{"name": "before"})

	defaults := map[string]any{"companies": map[string]any{"exclude": []any{"Competitor Inc"}}, "follower_count": map[string]any{"min": float64(10)}}
	wantCode(t, org.Read.Do(t, "PUT", path, map[string]any{"hard_filters": defaults}), 403, "insufficient_scope")
	p := org.Write.Do(t, "PUT", path, map[string]any{"hard_filters": defaults})
	wantStatus(t, p, 200)
	if hf := p.JSON["data"].(map[string]any)["hard_filters"]; !reflect.DeepEqual(hf, defaults) {
		t.Fatalf("PUT answer = %s", p.Body)
	}
	if hf := org.Read.Do(t, "GET", path, nil).JSON["data"].(map[string]any)["hard_filters"]; !reflect.DeepEqual(hf, defaults) {
		t.Fatalf("GET after PUT = %v", hf)
	}
	after := cpCreate(t, org.Write, map[string]any{"name": "after"})
	if got := after["meta"].(map[string]any)["hard_filters"]; !reflect.DeepEqual(got, defaults) {
		t.Fatalf("defaults not stamped on a new campaign: %v", got)
	}
	g = org.Read.Do(t, "GET", "/api/v1/campaigns/"+before["id"].(string), nil)
	if got := g.JSON["data"].(map[string]any)["meta"].(map[string]any)["hard_filters"]; !reflect.DeepEqual(got, map[string]any{}) {
		t.Fatalf("an existing campaign changed: %v", got)
	}

	bad := []struct {
		body   any
		status int
		code   string
		names  string
	}{
		{map[string]any{"hard_filters": map[string]any{"company_size": map[string]any{"min": 500, "max": 50}}}, 422, "invalid_filters", "company_size"},
		{map[string]any{"hard_filters": map[string]any{"planets": map[string]any{}}}, 422, "invalid_filters", "planets"},
		{map[string]any{}, 400, "invalid_request", "hard_filters"},
		{map[string]any{"hard_filters": defaults, "extra": 1}, 400, "invalid_request", "extra"},
	}
	for _, b := range bad {
		msg := wantCode(t, org.Write.Do(t, "PUT", path, b.body), b.status, b.code)
		if !strings.Contains(msg, b.names) {
			t.Errorf("message %q does not name %q", msg, b.names)
		}
	}
	other := testenv.NewOrg(t, srv)
	if hf := other.Read.Do(t, "GET", path, nil).JSON["data"].(map[string]any)["hard_filters"]; !reflect.DeepEqual(hf, map[string]any{}) {
		t.Fatalf("another organization sees %v", hf)
	}
	// null clears them.
	wantStatus(t, org.Write.Do(t, "PUT", path, map[string]any{"hard_filters": nil}), 200)
	if hf := org.Read.Do(t, "GET", path, nil).JSON["data"].(map[string]any)["hard_filters"]; !reflect.DeepEqual(hf, map[string]any{}) {
		t.Fatalf("after clearing: %v", hf)
	}
}
