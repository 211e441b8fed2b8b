package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
)

// codeBlock returns the first fenced block of the given language in docs/api.md that contains
// marker.
func codeBlock(t *testing.T, lang, marker string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(string(raw), "```"+lang+"\n")[1:] {
		block, _, _ := strings.Cut(part, "```")
		if strings.Contains(block, marker) {
			return block
		}
	}
	t.Fatalf("docs/api.md has no %s block with %q", lang, marker)
	return ""
}

// The Go verifier printed in docs/api.md is this package's verify.go, function for function,
// so the tested code is the code readers copy.
func TestDocsGoVerifierIsTheTestedOne(t *testing.T) {
	t.Parallel()
	block := codeBlock(t, "go", "func verifyStandardWebhook")
	src, err := os.ReadFile("verify.go")
	if err != nil {
		t.Fatal(err)
	}
	funcs := strings.Split(block, "\nfunc ")
	if len(funcs) != 3 {
		t.Fatalf("the docs' Go block has %d functions, want 3", len(funcs))
	}
	for i, f := range funcs {
		if i > 0 {
			f = "func " + f
		}
		if f = strings.TrimSpace(f); !strings.Contains(string(src), f) {
			t.Errorf("docs/api.md shows a function that differs from verify.go:\n%s", f)
		}
	}
}

// The Python verifier printed in docs/api.md accepts what outreachd signs, for a plain and a
// whsec_ secret, and refuses a changed body.
func TestDocsPythonVerifier(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	block := codeBlock(t, "python", "def verify(")
	body := `{"event":"invite_sent","timestamp":"2026-11-22T06:31:44.123Z","org_id":"org_1","data":{}}`
	type pyCase struct {
		Secret  string            `json:"secret"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
		Want    bool              `json:"want"`
	}
	var cases []pyCase
	for _, secret := range []string{"my-local-secret", delivery.GenerateSecret()} {
		h := delivery.SignatureHeaders(secret, "dlv_01", time.Now(), []byte(body))
		all := map[string]string{}
		for _, k := range []string{"X-Service-Signature", "webhook-id", "webhook-timestamp", "webhook-signature"} {
			all[k] = h.Get(k)
		}
		standard := map[string]string{"webhook-id": all["webhook-id"], "webhook-timestamp": all["webhook-timestamp"], "webhook-signature": all["webhook-signature"]}
		cases = append(cases,
			pyCase{secret, all, body, true},
			pyCase{secret, standard, body, true},
			pyCase{secret, all, body + " ", false},
			pyCase{secret + "x", all, body, false})
	}
	in, _ := json.Marshal(cases)
	script := block + "\nimport json, sys\nfor c in json.loads(sys.stdin.read()):\n    print(verify(c['secret'], c['headers'], c['body'].encode()))\n"
	cmd := exec.Command("python3", "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	got := strings.Fields(string(out))
	if len(got) != len(cases) {
		t.Fatalf("python3 printed %q for %d cases", out, len(cases))
	}
	for i, c := range cases {
		if want := map[bool]string{true: "True", false: "False"}[c.Want]; got[i] != want {
			t.Errorf("case %d (secret %s, headers %v, body %q): the docs' Python verifier says %s, want %s", i, c.Secret, c.Headers, c.Body, got[i], want)
		}
	}
}
