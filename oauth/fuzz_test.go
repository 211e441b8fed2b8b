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

// FuzzPKCE: only the verifier whose S256 hash is the challenge matches it.
func FuzzPKCE(f *testing.F) {
	f.Add("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, verifier, challenge string) {
		if pkceMatches(verifier, challenge) && !pkceMatches(verifier, challenge+"x") && len(challenge) != 43 {
			t.Fatalf("%q matched a challenge of %d characters", verifier, len(challenge))
		}
	})
}
