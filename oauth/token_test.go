package oauth

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"outreachd/outreach"
)

const cb = "https://claude.example/cb"

// The code exchange answers opaque, prefixed tokens with no-store, and the access token verifies
// to the organization, user, client and scope consented.
func TestExchangeCode(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", cb)
	v, c := pkce()
	r := e.exchange(id, e.code(id, cb, c), cb, v)
	if r.status != http.StatusOK || r.header.Get("Cache-Control") != "no-store" || r.header.Get("Pragma") != "no-cache" {
		t.Fatalf("%d %v %s", r.status, r.header, r.body)
	}
	m := r.json(t)
	at, _ := m["access_token"].(string)
	rt, _ := m["refresh_token"].(string)
	if !strings.HasPrefix(at, "oat_") || !strings.HasPrefix(rt, "ort_") || m["token_type"] != "Bearer" ||
		m["expires_in"] != float64(3600) || m["scope"] != "read_write" {
		t.Fatalf("token answer %s", r.body)
	}
	g, err := e.srv.VerifyAccessToken(context.Background(), at)
	if err != nil {
		t.Fatal(err)
	}
	want := outreach.AccessGrant{OrgID: e.orgID, UserID: e.user.ID, ClientID: id, Scope: "read_write", ExpiresAt: e.now().Add(time.Hour)}
	if !g.ExpiresAt.Equal(want.ExpiresAt) || g.OrgID != want.OrgID || g.UserID != want.UserID || g.ClientID != id || g.Scope != want.Scope {
		t.Fatalf("grant %+v, want %+v", g, want)
	}
	// Only hashes are stored: neither token appears in the database.
	var n int
	err = e.store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM oauth_tokens
		WHERE token_hash IN ($1, $2) OR encode(token_hash, 'escape') LIKE '%oat_%'`, []byte(at), []byte(rt)).Scan(&n)
	if err != nil || n != 0 {
		t.Fatalf("plain tokens stored: %d %v", n, err)
	}
	for _, bad := range []string{rt, "oat_nope", "", "key_" + at[4:]} {
		if _, err := e.srv.VerifyAccessToken(context.Background(), bad); !errors.Is(err, ErrInvalidToken) || !errors.Is(err, outreach.ErrNotFound) {
			t.Errorf("VerifyAccessToken(%q) = %v", bad, err)
		}
	}
}

// RFC 6749 / 7636 rules of the code exchange.
func TestExchangeCodeRules(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", cb, "https://claude.example/other")
	other := e.register("Other", cb)
	v, c := pkce()
	wrongV, _ := pkce()
	form := func(code string, edit func(url.Values)) url.Values {
		f := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {cb}, "client_id": {id}, "code_verifier": {v}}
		edit(f)
		return f
	}
	cases := []struct {
		name   string
		edit   func(url.Values)
		status int
		code   string
	}{
		{"PKCE mismatch", func(f url.Values) { f.Set("code_verifier", wrongV) }, 400, "invalid_grant"},
		{"verifier is the challenge", func(f url.Values) { f.Set("code_verifier", c) }, 400, "invalid_grant"},
		{"no verifier", func(f url.Values) { f.Del("code_verifier") }, 400, "invalid_request"},
		{"short verifier", func(f url.Values) { f.Set("code_verifier", "abc") }, 400, "invalid_request"},
		{"redirect_uri mismatch", func(f url.Values) { f.Set("redirect_uri", "https://claude.example/other") }, 400, "invalid_grant"},
		{"redirect_uri missing", func(f url.Values) { f.Del("redirect_uri") }, 400, "invalid_grant"},
		{"another client", func(f url.Values) { f.Set("client_id", other) }, 400, "invalid_grant"},
		{"unknown client", func(f url.Values) { f.Set("client_id", "occ_nope") }, 401, "invalid_client"},
		{"no client", func(f url.Values) { f.Del("client_id") }, 400, "invalid_request"},
		{"unknown code", func(f url.Values) { f.Set("code", "oac_nope") }, 400, "invalid_grant"},
		{"no code", func(f url.Values) { f.Del("code") }, 400, "invalid_request"},
		{"grant type", func(f url.Values) { f.Set("grant_type", "client_credentials") }, 400, "unsupported_grant_type"},
		{"no grant type", func(f url.Values) { f.Del("grant_type") }, 400, "invalid_request"},
		{"repeated parameter", func(f url.Values) { f["code_verifier"] = []string{v, v} }, 400, "invalid_request"},
		{"other resource", func(f url.Values) { f.Set("resource", "https://other.example/mcp") }, 400, "invalid_target"},
	}
	code := e.code(id, cb, c)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.postForm("/oauth/token", form(code, tc.edit))
			wantError(t, r, tc.status, tc.code)
			if r.header.Get("Cache-Control") != "no-store" {
				t.Error("error without Cache-Control: no-store")
			}
		})
	}
	t.Run("Basic client_id differs", func(t *testing.T) {
		wantError(t, e.do(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded", form(code, func(url.Values) {}).Encode(), "",
			"Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(other+":"))), 400, "invalid_request")
	})
	t.Run("JSON body", func(t *testing.T) {
		wantError(t, e.do(http.MethodPost, "/oauth/token", "application/json", `{"grant_type":"authorization_code"}`, ""), 400, "invalid_request")
	})
	// None of the refused attempts used the code up; the client may name itself with HTTP Basic.
	basic := base64.StdEncoding.EncodeToString([]byte(id + ":"))
	if r := e.do(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded",
		form(code, func(f url.Values) { f.Del("client_id") }).Encode(), "", "Authorization", "Basic "+basic); r.status != http.StatusOK {
		t.Fatalf("valid exchange after refusals: %d %s", r.status, r.body)
	}
}

// A code is single-use: the second exchange fails and revokes the tokens issued from the first.
func TestCodeReuseRevokesTokens(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", cb)
	v, c := pkce()
	code := e.code(id, cb, c)
	first := e.exchange(id, code, cb, v)
	if first.status != http.StatusOK {
		t.Fatalf("%d %s", first.status, first.body)
	}
	m := first.json(t)
	at, rt := m["access_token"].(string), m["refresh_token"].(string)
	if !e.verifies(at) {
		t.Fatal("fresh access token refused")
	}
	wantError(t, e.exchange(id, code, cb, v), 400, "invalid_grant")
	if e.verifies(at) {
		t.Fatal("access token from a reused code still works")
	}
	wantError(t, e.refresh(id, rt), 400, "invalid_grant")
}

// A code lives 60 seconds.
func TestCodeExpires(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", cb)
	v, c := pkce()
	code := e.code(id, cb, c)
	e.advance(61 * time.Second)
	r := e.exchange(id, code, cb, v)
	wantError(t, r, 400, "invalid_grant")
	if !strings.Contains(string(r.body), "expired") {
		t.Fatalf("%s", r.body)
	}
	code = e.code(id, cb, c)
	e.advance(59 * time.Second)
	if r := e.exchange(id, code, cb, v); r.status != http.StatusOK {
		t.Fatalf("code at 59 s: %d %s", r.status, r.body)
	}
}

// Refresh tokens rotate; using an old one again revokes the whole grant.
func TestRefreshRotationAndReuse(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", cb)
	other := e.register("Other", cb)
	at1, rt1 := e.tokens(id, cb)
	wantError(t, e.refresh(other, rt1), 400, "invalid_grant")
	wantError(t, e.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt1}, "client_id": {id}, "scope": {"read"}}), 400, "invalid_scope")
	r := e.refresh(id, rt1)
	if r.status != http.StatusOK {
		t.Fatalf("refresh: %d %s", r.status, r.body)
	}
	m := r.json(t)
	at2, rt2 := m["access_token"].(string), m["refresh_token"].(string)
	if rt2 == rt1 || at2 == at1 || !strings.HasPrefix(rt2, "ort_") || m["scope"] != "read_write" {
		t.Fatalf("no rotation: %s", r.body)
	}
	if !e.verifies(at2) {
		t.Fatal("rotated access token refused")
	}
	r = e.refresh(id, rt1) // reuse of the rotated-away token: theft assumed
	wantError(t, r, 400, "invalid_grant")
	if e.verifies(at2) || e.verifies(at1) {
		t.Fatal("grant not revoked after refresh token reuse")
	}
	wantError(t, e.refresh(id, rt2), 400, "invalid_grant")
}

// Access tokens live an hour, refresh tokens 30 days.
func TestTokenExpiry(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", cb)
	at, rt := e.tokens(id, cb)
	e.advance(59 * time.Minute)
	if !e.verifies(at) {
		t.Fatal("access token refused before its hour")
	}
	e.advance(2 * time.Minute)
	if e.verifies(at) {
		t.Fatal("access token accepted after its hour")
	}
	e.advance(30 * 24 * time.Hour)
	r := e.refresh(id, rt)
	wantError(t, r, 400, "invalid_grant")
	if !strings.Contains(string(r.body), "expired") {
		t.Fatalf("%s", r.body)
	}
}

// RFC 7009: revoking an access token stops it; revoking a refresh token stops the grant; unknown
// tokens are answered 200; another client's token is refused.
func TestRevoke(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", cb)
	other := e.register("Other", cb)
	at, rt := e.tokens(id, cb)
	wantError(t, e.postForm("/oauth/revoke", url.Values{"token": {at}, "client_id": {other}}), 401, "invalid_client")
	if !e.verifies(at) {
		t.Fatal("another client revoked the token")
	}
	if r := e.postForm("/oauth/revoke", url.Values{"token": {at}, "token_type_hint": {"access_token"}, "client_id": {id}}); r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if e.verifies(at) {
		t.Fatal("revoked access token works")
	}
	r := e.refresh(id, rt)
	if r.status != http.StatusOK {
		t.Fatalf("refresh after access revocation: %d %s", r.status, r.body)
	}
	at2, rt2 := r.json(t)["access_token"].(string), r.json(t)["refresh_token"].(string)
	if r := e.postForm("/oauth/revoke", url.Values{"token": {rt2}}); r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if e.verifies(at2) {
		t.Fatal("access token works after its refresh token was revoked")
	}
	wantError(t, e.refresh(id, rt2), 400, "invalid_grant")
	if r := e.postForm("/oauth/revoke", url.Values{"token": {"ort_unknown"}}); r.status != http.StatusOK {
		t.Fatalf("unknown token: %d", r.status)
	}
	wantError(t, e.postForm("/oauth/revoke", url.Values{}), 400, "invalid_request")
}

// A deleted user's tokens stop working.
func TestVerifyUserGone(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.register("Claude", cb)
	at, _ := e.tokens(id, cb)
	if _, err := e.store.Pool().Exec(context.Background(), `DELETE FROM app_users WHERE id = $1`, e.user.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.VerifyAccessToken(context.Background(), at); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("deleted user's token: %v", err)
	}
}

// Pruning removes what can no longer be used and clients nobody allowed within a week, and keeps
// the rest working.
func TestPrune(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	used := e.register("Used", cb)
	abandoned := e.register("Abandoned", cb)
	_, rt := e.tokens(used, cb)
	count := func(table string) int {
		var n int
		if err := e.store.Pool().QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	e.advance(2 * time.Hour) // the access token and the code are past their life, not yet a day
	if err := e.srv.db.prune(ctx, e.now()); err != nil {
		t.Fatal(err)
	}
	if count("oauth_codes") != 1 || count("oauth_tokens") != 2 {
		t.Fatalf("pruned too early: %d codes, %d tokens", count("oauth_codes"), count("oauth_tokens"))
	}
	e.advance(8 * 24 * time.Hour)
	if err := e.srv.db.prune(ctx, e.now()); err != nil {
		t.Fatal(err)
	}
	if count("oauth_codes") != 0 || count("oauth_tokens") != 1 || count("oauth_clients") != 1 {
		t.Fatalf("after a week: %d codes, %d tokens, %d clients", count("oauth_codes"), count("oauth_tokens"), count("oauth_clients"))
	}
	if r := e.refresh(used, rt); r.status != http.StatusOK {
		t.Fatalf("the live refresh token stopped working: %d %s", r.status, r.body)
	}
	_, c := pkce()
	r := e.do(http.MethodGet, "/oauth/authorize?"+authzQuery(abandoned, cb, c).Encode(), "", "", e.cookie)
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "not registered") {
		t.Fatalf("abandoned client still known: %d", r.status)
	}
}
