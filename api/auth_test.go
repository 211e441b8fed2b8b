package api_test

import (
	"strconv"
	"strings"
	"testing"

	"outreachd/internal/testenv"
)

func TestMeAndAuth(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)

	r := org.Read.Do(t, "GET", "/api/v1/me", nil)
	if r.Status != 200 {
		t.Fatalf("GET /me with read key: %d %s", r.Status, r.Body)
	}
	data := r.JSON["data"].(map[string]any)
	if data["org_id"] != org.ID || data["scope"] != "read" || data["api_version"] != "v1" {
		t.Fatalf("GET /me data = %v", data)
	}
	if w := org.Write.Do(t, "GET", "/api/v1/me", nil); w.JSON["data"].(map[string]any)["scope"] != "read_write" {
		t.Fatalf("write key scope: %s", w.Body)
	}

	expired := testenv.Admin(t, srv.DBURL, "key", "create", "--org", org.ID, "--expires-in", "1ms")["key"].(string)
	revoked := testenv.Admin(t, srv.DBURL, "key", "create", "--org", org.ID)
	testenv.Admin(t, srv.DBURL, "key", "revoke", "--key-id", revoked["key_id"].(string))

	cases := []struct {
		name   string
		header []string
	}{
		{"missing", nil},
		{"not bearer", []string{"Authorization", "Basic " + org.ReadKey}},
		{"empty bearer", []string{"Authorization", "Bearer "}},
		{"unknown", []string{"Authorization", "Bearer odk_nope"}},
		{"expired", []string{"Authorization", "Bearer " + expired}},
		{"revoked", []string{"Authorization", "Bearer " + revoked["key"].(string)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := testenv.Client{Base: srv.URL}
			r := c.Do(t, "GET", "/api/v1/me", nil, tc.header...)
			if r.Status != 401 {
				t.Fatalf("status %d, want 401: %s", r.Status, r.Body)
			}
			e, _ := r.JSON["error"].(map[string]any)
			if e["code"] != "invalid_api_key" || e["message"] == "" {
				t.Fatalf("error body %s", r.Body)
			}
			// GET /analytics/daily answers every error, this one too, in the plain shape.
			r = c.Do(t, "GET", "/api/v1/analytics/daily", nil, tc.header...)
			if msg, plain := r.JSON["error"].(string); r.Status != 401 || !plain || msg == "" {
				t.Fatalf("GET /analytics/daily: status %d body %s, want 401 {\"error\": \"...\"}", r.Status, r.Body)
			}
		})
	}

	if r := org.Read.Do(t, "GET", "/api/v1/nope", nil); r.Status != 404 {
		t.Fatalf("unknown path: %d", r.Status)
	}
	// A path with an empty segment (a missing id) or a dot segment is a 404 that says so, not a
	// redirect to the cleaned path: a client following it would send its POST as a GET elsewhere.
	for _, tc := range []struct{ method, path, hint string }{
		{"POST", "/api/v1/campaigns//leads", "empty segment"},
		{"GET", "/api/v1/prospects//", "empty segment"},
		{"GET", "/api/v1/campaigns/../me", "dot segments"},
	} {
		r := org.Write.Do(t, tc.method, tc.path, nil)
		e, _ := r.JSON["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if r.Status != 404 || e["code"] != "not_found" || !strings.Contains(msg, tc.path) || !strings.Contains(msg, tc.hint) {
			t.Errorf("%s %s: %d %s, want 404 not_found naming the path and %q", tc.method, tc.path, r.Status, r.Body, tc.hint)
		}
	}
	// A known path with another method is 405 naming the methods it takes, wherever the route
	// sits among the router's routes.
	for _, tc := range []struct{ method, path, allow string }{
		{"POST", "/api/v1/me", "GET"},
		{"POST", "/api/v1/analytics/daily", "GET"},
		{"PATCH", "/api/v1/blacklist", "GET, POST, DELETE"},
		{"PUT", "/api/v1/campaigns", "GET, POST"},
		{"GET", "/api/v1/inbox/stop", "POST"},
		{"GET", "/api/webhooks/conversions", "POST"},
	} {
		r := org.Write.Do(t, tc.method, tc.path, nil)
		e, _ := r.JSON["error"].(map[string]any)
		if r.Status != 405 || e["code"] != "invalid_request" || r.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d Allow %q %s, want 405 invalid_request Allow %q", tc.method, tc.path, r.Status, r.Header.Get("Allow"), r.Body, tc.allow)
		}
	}
}

// Two serve processes on one database must enforce one budget per organization.
func TestRateLimitSharedAcrossKeysAndInstances(t *testing.T) {
	t.Parallel()
	db := testenv.DatabaseURL(t)
	a := testenv.StartServer(t, db)
	b := testenv.StartServer(t, db)
	org := testenv.NewOrg(t, a, "--rate-limit-per-minute", "10")
	other := testenv.NewOrg(t, a)
	clients := []testenv.Client{
		{Base: a.URL, Key: org.ReadKey}, {Base: b.URL, Key: org.WriteKey},
	}
	var last testenv.Response
	ok := 0
	for i := 0; i < 14; i++ {
		last = clients[i%2].Do(t, "GET", "/api/v1/me", nil)
		if last.Status == 200 {
			ok++
			if got := last.Header.Get("X-RateLimit-Limit"); got != "10" {
				t.Fatalf("X-RateLimit-Limit = %q", got)
			}
			if last.Header.Get("X-RateLimit-Reset") == "" || last.Header.Get("X-RateLimit-Remaining") == "" {
				t.Fatalf("missing rate-limit headers: %v", last.Header)
			}
		}
	}
	// The budget is per minute; if the test straddled a minute boundary a few more may pass.
	if ok < 10 || ok > 13 {
		t.Fatalf("%d of 14 requests passed a budget of 10 shared by two instances", ok)
	}
	if last.Status != 429 {
		// the last ones are over budget unless a minute boundary reset it
		t.Logf("last status %d (minute boundary?)", last.Status)
	} else {
		if ra, err := strconv.Atoi(last.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
			t.Fatalf("Retry-After = %q", last.Header.Get("Retry-After"))
		}
		if _, isString := last.JSON["error"].(string); !isString {
			t.Fatalf("429 must use the plain error shape: %s", last.Body)
		}
		if last.Header.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("remaining on 429 = %q", last.Header.Get("X-RateLimit-Remaining"))
		}
	}
	// Another organization is not affected.
	if r := other.Read.Do(t, "GET", "/api/v1/me", nil); r.Status != 200 {
		t.Fatalf("other org limited: %d", r.Status)
	}
}
