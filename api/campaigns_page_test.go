package api_test

import (
	"fmt"
	"testing"

	"outreachd/internal/testenv"
)

// TestListCampaignsPagination: GET /campaigns takes optional limit/offset and then answers a
// pagination block; without them it still returns every campaign and no pagination.
func TestListCampaignsPagination(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000")
	org := testenv.NewOrg(t, srv)
	var names []string
	for i := range 5 {
		n := fmt.Sprintf("Page %d", i)
		wantStatus(t, org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": n}), 200)
		names = append([]string{n}, names...) // newest first
	}
	all := org.Read.Do(t, "GET", "/api/v1/campaigns", nil)
	wantStatus(t, all, 200)
	if len(list(all.JSON["data"])) != 5 {
		t.Fatalf("without parameters: %s", all.Body)
	}
	if _, has := all.JSON["pagination"]; has {
		t.Fatalf("without parameters the answer carries pagination: %s", all.Body)
	}
	p := org.Read.Do(t, "GET", "/api/v1/campaigns?limit=2&offset=1", nil)
	wantStatus(t, p, 200)
	d := list(p.JSON["data"])
	if len(d) != 2 || d[0]["name"] != names[1] || d[1]["name"] != names[2] {
		t.Fatalf("limit=2&offset=1: %s", p.Body)
	}
	pg, _ := p.JSON["pagination"].(map[string]any)
	if pg["limit"] != 2.0 || pg["offset"] != 1.0 || pg["total"] != 5.0 {
		t.Fatalf("pagination = %v", pg)
	}
	o := org.Read.Do(t, "GET", "/api/v1/campaigns?offset=4", nil)
	wantStatus(t, o, 200)
	if d := list(o.JSON["data"]); len(d) != 1 || o.JSON["pagination"].(map[string]any)["limit"] != 50.0 {
		t.Fatalf("offset=4: %s", o.Body)
	}
	wantCode(t, org.Read.Do(t, "GET", "/api/v1/campaigns?limit=201", nil), 400, "invalid_request")
	wantCode(t, org.Read.Do(t, "GET", "/api/v1/campaigns?offset=-1", nil), 400, "invalid_request")
}
