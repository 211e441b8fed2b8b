package api_test

import (
	"strings"
	"testing"
)

func TestBlacklistAPI(t *testing.T) {
	t.Parallel()
	e := newLeadEnv(t)
	post := func(t *testing.T, entries ...map[string]any) map[string]any {
		t.Helper()
		r := e.org.Write.Do(t, "POST", "/api/v1/blacklist", map[string]any{"entries": entries})
		wantStatus(t, r, 200)
		return r.JSON
	}
	entry := func(value, typ string) map[string]any { return map[string]any{"value": value, "type": typ} }

	first := post(t, entry("https://www.linkedin.com/in/no-contact", "account"), entry("Acme Inc.", "company"),
		entry("linkedin.com/company/globex", "company"), entry("ACME", "company"), // same key as Acme Inc.
		entry("https://example.com/in/x", "account"), entry("Widgets", "person"), map[string]any{"type": "company"})
	c := first["counts"].(map[string]any)
	if first["added"] != 3.0 || first["already_present"] != 1.0 || c["received"] != 7.0 || c["accepted"] != 4.0 || c["rejected"] != 3.0 {
		t.Fatalf("first POST = %v", first)
	}
	rej := list(first["rejected"])
	if len(rej) != 3 || rej[0]["value"] != "https://example.com/in/x" || rej[0]["type"] != "account" || rej[1]["type"] != "person" ||
		!strings.Contains(rej[2]["reason"].(string), "value") {
		t.Fatalf("rejected = %v", rej)
	}
	for _, r := range rej {
		if r["reason"] == "" {
			t.Fatalf("rejected entry without reason: %v", r)
		}
	}

	again := post(t, entry("NO-CONTACT", "account"), entry("acme", "company"))
	if again["added"] != 0.0 || again["already_present"] != 2.0 {
		t.Fatalf("re-send = %v", again)
	}
	if n := e.count(t, `SELECT count(*) FROM blacklist WHERE org_id = $1`, e.org.ID); n != 3 {
		t.Fatalf("%d entries stored, want 3", n)
	}

	cases := []struct {
		query string
		n     int
	}{{"", 3}, {"?type=account", 1}, {"?type=company", 2}, {"?type=company&limit=1", 1}, {"?limit=1&offset=2", 1}}
	for _, tc := range cases {
		t.Run("GET"+tc.query, func(t *testing.T) {
			r := e.org.Read.Do(t, "GET", "/api/v1/blacklist"+tc.query, nil)
			wantStatus(t, r, 200)
			d := list(r.JSON["data"])
			if len(d) != tc.n {
				t.Fatalf("%d entries: %s", len(d), r.Body)
			}
			for _, x := range d {
				for _, k := range []string{"value", "type", "reason", "created_at"} {
					if _, ok := x[k]; !ok {
						t.Fatalf("entry lacks %s: %v", k, x)
					}
				}
			}
		})
	}
	wantCode(t, e.org.Read.Do(t, "GET", "/api/v1/blacklist?type=person", nil), 400, "invalid_request")
	wantCode(t, e.org.Read.Do(t, "GET", "/api/v1/blacklist?limit=500", nil), 400, "invalid_request")

	bad := []struct{ name, body string }{
		{"empty", `{"entries": []}`}, {"missing", `{}`}, {"unknown field", `{"entries": [{"value": "a", "type": "company", "why": "x"}]}`},
		{"wrong type", `{"entries": [{"value": 1, "type": "company"}]}`}, {"malformed", `{"entries": [`},
		{"too many", `{"entries": [` + strings.TrimSuffix(strings.Repeat(`{"value":"Acme","type":"company"},`, 501), ",") + `]}`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, e.org.Write.Do(t, "POST", "/api/v1/blacklist", tc.body), 400, "invalid_request")
		})
	}
	wantCode(t, e.org.Read.Do(t, "POST", "/api/v1/blacklist", map[string]any{"entries": []any{entry("x-y-z", "account")}}), 403, "insufficient_scope")
	if n := e.count(t, `SELECT count(*) FROM blacklist WHERE org_id = $1`, e.org.ID); n != 3 {
		t.Fatalf("bad requests wrote entries: %d", n)
	}
}
