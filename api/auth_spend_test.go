package api_test

import (
	"testing"

	"outreachd/internal/testenv"
)

// Authentication and the rate-limit spend are one statement: a refused key must spend nothing,
// and every accepted request — /api/v1 and the conversions webhook alike, read-only keys on a
// write endpoint too — must spend exactly one request of the organization's budget.
func TestAuthSpendsOncePerAcceptedRequest(t *testing.T) {
	t.Parallel()
	db := testenv.DatabaseURL(t)
	srv := testenv.StartServer(t, db)
	org := testenv.NewOrg(t, srv, "--rate-limit-per-minute", "4")
	revoked := testenv.Admin(t, db, "key", "create", "--org", org.ID)
	testenv.Admin(t, db, "key", "revoke", "--key-id", revoked["key_id"].(string))
	bad := testenv.Client{Base: srv.URL, Key: revoked["key"].(string)}
	unknown := testenv.Client{Base: srv.URL, Key: "odk_not_a_key"}

	steps := []struct {
		name      string
		client    testenv.Client
		method    string
		path      string
		body      any
		status    int    // 0: anything but 401/429/5xx
		remaining string // "" when no header is expected
	}{
		{"revoked key", bad, "GET", "/api/v1/me", nil, 401, ""},
		{"unknown key", unknown, "GET", "/api/v1/me", nil, 401, ""},
		{"revoked key on the webhook", bad, "POST", "/api/webhooks/conversions", map[string]any{}, 401, ""},
		{"first", org.Read, "GET", "/api/v1/me", nil, 200, "3"},
		{"read key on a write endpoint", org.Read, "POST", "/api/v1/campaigns", map[string]any{"name": "x"}, 403, "2"},
		{"webhook", org.Write, "POST", "/api/webhooks/conversions", map[string]any{}, 0, "1"},
		{"last in budget", org.Write, "GET", "/api/v1/me", nil, 200, "0"},
		{"over budget", org.Write, "GET", "/api/v1/me", nil, 429, "0"},
		{"over budget on the webhook", org.Write, "POST", "/api/webhooks/conversions", map[string]any{}, 429, "0"},
	}
	reset := ""
	for _, st := range steps {
		r := st.client.Do(t, st.method, st.path, st.body)
		if h := r.Header.Get("X-RateLimit-Reset"); h != "" {
			if reset != "" && h != reset {
				t.Skip("the requests straddled a minute boundary; the budget was reset midway")
			}
			reset = h
		}
		switch {
		case st.status != 0 && r.Status != st.status:
			t.Fatalf("%s: status %d, want %d: %s", st.name, r.Status, st.status, r.Body)
		case st.status == 0 && (r.Status == 401 || r.Status == 429 || r.Status >= 500):
			t.Fatalf("%s: status %d: %s", st.name, r.Status, r.Body)
		}
		if got := r.Header.Get("X-RateLimit-Remaining"); got != st.remaining {
			t.Fatalf("%s: X-RateLimit-Remaining %q, want %q", st.name, got, st.remaining)
		}
		if st.status == 429 && r.Header.Get("Retry-After") == "" {
			t.Fatalf("%s: 429 without Retry-After", st.name)
		}
	}
}
