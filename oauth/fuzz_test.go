package oauth

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzRedirectURIs holds the registration rule for any input: an accepted redirect URI parses as
// an absolute https URL, or http on a loopback host, without fragment or user information.
func FuzzRedirectURIs(f *testing.F) {
	for _, s := range []string{"https://claude.ai/api/mcp/auth_callback", "http://127.0.0.1:33418/cb", "http://localhost/cb",
		"http://[::1]:8080/x", "http://evil.example/cb", "https://a.example/cb#frag", "javascript://x/%0a", "https://user@a.example/",
		"http://localhost.evil.example/", "http://127.0.0.1.nip.io/", "HTTPS://A.EXAMPLE/", "https:///path", "//a.example/cb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out, code, _ := checkRedirectURIs([]string{raw})
		if code != "" {
			return
		}
		if len(out) != 1 || out[0] != raw {
			t.Fatalf("accepted %q as %q", raw, out)
		}
		u, err := url.Parse(raw)
		if err != nil || u.Fragment != "" || strings.Contains(raw, "#") || u.User != nil || u.Host == "" {
			t.Fatalf("accepted %q", raw)
		}
		if u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())) {
			t.Fatalf("accepted %q (scheme %q, host %q)", raw, u.Scheme, u.Hostname())
		}
	})
}

// TestPKCEVector is the example of RFC 7636 appendix B.
func TestPKCEVector(t *testing.T) {
	const verifier, challenge = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
	if !pkceMatches(verifier, challenge) || !validVerifier(verifier) || !validChallenge(challenge) {
		t.Fatal("the RFC's example does not verify")
	}
	if pkceMatches(verifier, verifier) || pkceMatches(verifier[1:], challenge) || pkceMatches(verifier, challenge[:42]) {
		t.Fatal("plain or altered values verify")
	}
}
