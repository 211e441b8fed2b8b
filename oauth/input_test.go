package oauth

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

const nulProblem = "contains a NUL character (\\u0000), which is not allowed"

// Registration refuses a body that writes a NUL anywhere (PostgreSQL could not store it) and
// answers 413, naming the limit, for a body past 64 KiB instead of reading half of it.
func TestRegisterHostileBody(t *testing.T) {
	e := newEnv(t, Config{})
	for name, body := range map[string]string{
		"in client_name":     `{"redirect_uris":["https://a.example/cb"],"client_name":"a\u0000b"}`,
		"in a redirect URI":  `{"redirect_uris":["https://a.example/cb\u0000"]}`,
		"in an ignored name": `{"redirect_uris":["https://a.example/cb"],"logo_uri":"\u0000"}`,
		"in a key":           `{"redirect_uris":["https://a.example/cb"],"x\u0000":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := e.do(http.MethodPost, "/oauth/register", "application/json", body, "")
			wantError(t, r, http.StatusBadRequest, "invalid_client_metadata")
			if d := r.json(t)["error_description"].(string); !strings.Contains(d, nulProblem) {
				t.Fatalf("description %q does not name the NUL", d)
			}
		})
	}
	big := `{"redirect_uris":["https://a.example/cb"],"client_name":"` + strings.Repeat("x", 70_000) + `"}`
	r := e.do(http.MethodPost, "/oauth/register", "application/json", big, "")
	wantError(t, r, http.StatusRequestEntityTooLarge, "invalid_client_metadata")
	if d := r.json(t)["error_description"].(string); !strings.Contains(d, "exceeds 65536 bytes") {
		t.Fatalf("description %q does not name the limit", d)
	}
	// Ten redirect URIs of 2,000 characters, the most a client may register, fit.
	var uris []string
	for i := range 10 {
		uris = append(uris, "https://a.example/"+strings.Repeat(string(rune('a'+i)), 1980))
	}
	e.register("long", uris...)
}

// The token and revocation endpoints answer invalid_request, naming the parameter, for a NUL,
// bytes that are not UTF-8 or a parameter past 2,000 characters: none reaches the database.
func TestTokenHostileParams(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("c", "https://a.example/cb")
	v, _ := pkce()
	cases := []struct {
		name, path string
		form       url.Values
		want       string
	}{
		{"client_id with NUL", "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {"occ_\x00"}, "code": {"x"}, "code_verifier": {v}}, "client_id: " + nulProblem},
		{"code with NUL", "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {id}, "code": {"oac_\x00"}, "code_verifier": {v}}, "code: " + nulProblem},
		{"refresh token not UTF-8", "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {"\xff"}}, "refresh_token: holds bytes that are not UTF-8"},
		{"client_id of 2,001 characters", "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {strings.Repeat("c", 2001)}, "code": {"x"}, "code_verifier": {v}}, "client_id: is longer than 2000 characters"},
		{"revocation with NUL", "/oauth/revoke", url.Values{"token": {"ort_x"}, "client_id": {id + "\x00"}}, "client_id: " + nulProblem},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.postForm(tc.path, tc.form)
			wantError(t, r, http.StatusBadRequest, "invalid_request")
			if d := r.json(t)["error_description"].(string); d != tc.want {
				t.Fatalf("description %q, want %q", d, tc.want)
			}
		})
	}
}

// The authorization request and the consent form refuse a parameter with a NUL on the page (the
// client cannot be trusted with a redirect), and Connected assistants treats an id of another
// form as unknown.
func TestAuthorizeHostileParams(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", "https://claude.example/cb")
	_, c := pkce()
	for name, q := range map[string]url.Values{
		"client_id": authzQuery(id+"\x00", "https://claude.example/cb", c),
		"state":     authzQuery(id, "https://claude.example/cb", c),
	} {
		if name == "state" {
			q.Set("state", "s\x00")
		}
		t.Run(name, func(t *testing.T) {
			want := html.EscapeString(name + ": " + nulProblem)
			r := e.do(http.MethodGet, "/oauth/authorize?"+q.Encode(), "", "", e.cookie)
			if r.status != http.StatusBadRequest || r.header.Get("Location") != "" || !strings.Contains(string(r.body), want) {
				t.Fatalf("GET: %d Location=%q, want a page naming %q: %s", r.status, r.header.Get("Location"), want, r.body)
			}
			r, _ = e.decideAs(q, "allow", e.cookie)
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), want) {
				t.Fatalf("POST: %d, want a page naming %q: %s", r.status, want, r.body)
			}
		})
	}
	r := e.do(http.MethodPost, "/app/assistants/ogr_%00/revoke", "", "", e.cookie)
	if r.status != http.StatusNotFound {
		t.Fatalf("revoke an id with NUL: %d %s", r.status, r.body)
	}
}
