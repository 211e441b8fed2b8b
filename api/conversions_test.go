package api_test

import (
	"strings"
	"sync"
	"testing"

	"outreachd/internal/testenv"
)

func TestConversionsWebhook(t *testing.T) {
	t.Parallel()
	e := newLeadEnv(t)
	camp := e.campaign(t, nil)
	wantStatus(t, e.push(t, camp, []map[string]any{lead("converted-carl", "email", "Carl@Example.com")}), 202)
	post := func(t *testing.T, c testenv.Client, body any) testenv.Response {
		t.Helper()
		return c.Do(t, "POST", "/api/webhooks/conversions", body)
	}

	r := post(t, e.org.Write, map[string]any{"event_type": "signup", "linkedin_id": "https://www.linkedin.com/in/converted-carl", "meta": map[string]any{"plan": "pro"}})
	wantStatus(t, r, 200)
	if r.JSON["ok"] != true || r.JSON["event_type"] != "signup" || r.JSON["deduped"] != nil {
		t.Fatalf("first = %s", r.Body)
	}
	// Same event, other meta and another spelling of the profile: a duplicate.
	r = post(t, e.org.Write, map[string]any{"event_type": "signup", "linkedin_id": "CONVERTED-CARL", "meta": map[string]any{"plan": "free"}})
	if r.Status != 200 || r.JSON["deduped"] != true {
		t.Fatalf("repeat = %d %s", r.Status, r.Body)
	}
	// Another event type, and the email matched case-insensitively: recorded.
	r = post(t, e.org.Write, map[string]any{"event_type": "purchase", "prospect_email": "carl@EXAMPLE.com"})
	if r.Status != 200 || r.JSON["deduped"] != nil {
		t.Fatalf("purchase = %d %s", r.Status, r.Body)
	}
	if n := e.count(t, `SELECT count(*) FROM conversions WHERE org_id = $1 AND prospect_id IS NOT NULL`, e.org.ID); n != 2 {
		t.Fatalf("%d matched conversions, want 2", n)
	}
	if n := e.count(t, `SELECT count(*) FROM activities WHERE org_id = $1 AND kind = 'conversion' AND campaign_id = $2`, e.org.ID, camp); n != 2 {
		t.Fatalf("%d conversion activities, want 2", n)
	}

	// Concurrent identical events: exactly one is recorded.
	var wg sync.WaitGroup
	deduped := make([]bool, 6)
	for i := range deduped {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := post(t, e.org.Write, map[string]any{"event_type": "race", "prospect_name": "Rita"})
			deduped[i] = r.JSON["deduped"] == true
		}()
	}
	wg.Wait()
	if n := e.count(t, `SELECT count(*) FROM conversions WHERE org_id = $1 AND event_type = 'race'`, e.org.ID); n != 1 {
		t.Fatalf("%d race conversions recorded, want 1 (%v)", n, deduped)
	}

	plain := func(t *testing.T, r testenv.Response, status int) {
		t.Helper()
		wantStatus(t, r, status)
		if msg, ok := r.JSON["error"].(string); !ok || msg == "" {
			t.Fatalf("error is not the plain shape: %s", r.Body)
		}
	}
	cases := []struct {
		name   string
		client testenv.Client
		body   any
		status int
		want   string
	}{
		{"read key", e.org.Read, map[string]any{"event_type": "x"}, 403, "read_write"},
		{"no key", testenv.Client{Base: e.srv.URL}, map[string]any{"event_type": "x"}, 401, "key"},
		{"bad key", testenv.Client{Base: e.srv.URL, Key: "odk_nope"}, map[string]any{"event_type": "x"}, 401, "key"},
		{"missing event_type", e.org.Write, map[string]any{"linkedin_id": "someone"}, 400, "event_type"},
		{"blank event_type", e.org.Write, map[string]any{"event_type": "  "}, 400, "event_type"},
		{"wrong type", e.org.Write, `{"event_type": 5}`, 400, "event_type"},
		{"unknown field", e.org.Write, `{"event_type": "x", "amount": 5}`, 400, "amount"},
		{"malformed", e.org.Write, `{"event_type": `, 400, "JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := post(t, tc.client, tc.body)
			plain(t, r, tc.status)
			if !strings.Contains(r.JSON["error"].(string), tc.want) {
				t.Fatalf("message %q does not name %q", r.JSON["error"], tc.want)
			}
		})
	}
}
