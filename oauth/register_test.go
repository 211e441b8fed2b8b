package oauth

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// RFC 8414: the metadata names every endpoint under the issuer and what is supported.
func TestMetadata(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.do(http.MethodGet, "/.well-known/oauth-authorization-server", "", "", "")
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", r.status, r.header.Get("Content-Type"))
	}
	m := r.json(t)
	base := e.http.URL
	want := map[string]any{
		"issuer":                                         base,
		"authorization_endpoint":                         base + "/oauth/authorize",
		"token_endpoint":                                 base + "/oauth/token",
		"registration_endpoint":                          base + "/oauth/register",
		"revocation_endpoint":                            base + "/oauth/revoke",
		"response_types_supported":                       []any{"code"},
		"grant_types_supported":                          []any{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []any{"S256"},
		"token_endpoint_auth_methods_supported":          []any{"none"},
		"scopes_supported":                               []any{"read", "read_write"},
		"authorization_response_iss_parameter_supported": true,
	}
	for k, v := range want {
		if !reflect.DeepEqual(m[k], v) {
			t.Errorf("%s = %#v, want %#v", k, m[k], v)
		}
	}
	if r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Error("metadata must be readable from browser-based clients (CORS)")
	}
	pre := e.do(http.MethodOptions, "/oauth/token", "", "", "", "Origin", "https://inspector.example", "Access-Control-Request-Method", "POST")
	if pre.status != http.StatusNoContent || pre.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight: %d %v", pre.status, pre.header)
	}
}

// RFC 7591: public clients register with redirect URIs; bad metadata is refused with the RFC's codes.
func TestRegister(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.do(http.MethodPost, "/oauth/register", "application/json",
		`{"client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback","http://127.0.0.1:33418/cb"],"grant_types":["authorization_code","refresh_token"],"token_endpoint_auth_method":"none","unknown_member":1}`, "")
	if r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
	m := r.json(t)
	if id, _ := m["client_id"].(string); id == "" || m["client_id_issued_at"] == nil {
		t.Fatalf("no client_id or issued_at: %s", r.body)
	}
	if m["token_endpoint_auth_method"] != "none" || m["client_name"] != "Claude" ||
		!reflect.DeepEqual(m["redirect_uris"], []any{"https://claude.ai/api/mcp/auth_callback", "http://127.0.0.1:33418/cb"}) ||
		!reflect.DeepEqual(m["grant_types"], []any{"authorization_code", "refresh_token"}) ||
		!reflect.DeepEqual(m["response_types"], []any{"code"}) {
		t.Errorf("registration answer: %s", r.body)
	}
	if _, ok := m["client_secret"]; ok {
		t.Error("a public client must get no secret")
	}

	bad := []struct{ name, body, code string }{
		{"no redirect_uris", `{"client_name":"x"}`, "invalid_redirect_uri"},
		{"empty redirect_uris", `{"redirect_uris":[]}`, "invalid_redirect_uri"},
		{"http on a public host", `{"redirect_uris":["http://evil.example/cb"]}`, "invalid_redirect_uri"},
		{"relative", `{"redirect_uris":["/cb"]}`, "invalid_redirect_uri"},
		{"fragment", `{"redirect_uris":["https://a.example/cb#x"]}`, "invalid_redirect_uri"},
		{"custom scheme", `{"redirect_uris":["javascript://x/%0aalert(1)"]}`, "invalid_redirect_uri"},
		{"private key JWT", `{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}`, "invalid_client_metadata"},
		{"client_credentials", `{"redirect_uris":["https://a.example/cb"],"grant_types":["client_credentials"]}`, "invalid_client_metadata"},
		{"implicit", `{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}`, "invalid_client_metadata"},
		{"unknown scope", `{"redirect_uris":["https://a.example/cb"],"scope":"admin"}`, "invalid_client_metadata"},
		{"not JSON", `{"redirect_uris":`, "invalid_client_metadata"},
		{"wrong type", `{"redirect_uris":"https://a.example/cb"}`, "invalid_client_metadata"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, e.do(http.MethodPost, "/oauth/register", "application/json", tc.body, ""), http.StatusBadRequest, tc.code)
		})
	}
	// A client asking for a secret is registered as a public one: "none" answered, no secret.
	r = e.do(http.MethodPost, "/oauth/register", "application/json",
		`{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_post"}`, "")
	if m := r.json(t); r.status != http.StatusCreated || m["token_endpoint_auth_method"] != "none" || m["client_secret"] != nil {
		t.Errorf("secret-based registration: %d %s", r.status, r.body)
	}
	for _, ok := range []string{"http://localhost:8976/callback", "http://[::1]/cb"} {
		b, _ := json.Marshal(map[string]any{"redirect_uris": []string{ok}})
		if r := e.do(http.MethodPost, "/oauth/register", "application/json", string(b), ""); r.status != http.StatusCreated {
			t.Errorf("loopback %s refused: %d %s", ok, r.status, r.body)
		}
	}
}

// The open registration endpoint is bounded: past the per-address budget of the hour it answers 429.
func TestRegisterBounded(t *testing.T) {
	e := newEnv(t, Config{RegistrationsPerAddress: 2})
	for range 2 {
		e.register("c", "https://a.example/cb")
	}
	r := e.do(http.MethodPost, "/oauth/register", "application/json", `{"redirect_uris":["https://a.example/cb"]}`, "")
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Fatalf("third registration: %d %s", r.status, r.body)
	}
	e.advance(61 * 60e9)
	e.register("later", "https://a.example/cb")
}
