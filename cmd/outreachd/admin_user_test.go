package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"outreachd/internal/testenv"
)

// TestAdminUserCreate: `admin user create` prints {"user_id"}; bad input is a JSON error on
// stderr naming the problem, with a non-zero exit.
func TestAdminUserCreate(t *testing.T) {
	t.Parallel()
	db := testenv.DatabaseURL(t)
	org := testenv.Admin(t, db, "org", "create", "--name", "Acme")["org_id"].(string)
	out := testenv.Admin(t, db, "user", "create", "--org", org, "--email", "ops@acme.test", "--password", "a long enough password", "--role", "owner")
	if id, _ := out["user_id"].(string); !strings.HasPrefix(id, "usr_") || len(out) != 1 {
		t.Fatalf("user create printed %v", out)
	}
	refusals := []struct {
		args []string
		want string
	}{
		{[]string{"--org", org, "--email", "OPS@acme.test", "--password", "a long enough password"}, "already exists"},
		{[]string{"--org", org, "--email", "two@acme.test", "--password", "short"}, "at least 10 characters"},
		{[]string{"--org", org, "--email", "two@acme.test", "--password", "a long enough password", "--role", "admin"}, "owner or member"},
		{[]string{"--org", org, "--email", "not an email", "--password", "a long enough password"}, "not an email address"},
		{[]string{"--org", "org_00000000000000000000000000", "--email", "x@acme.test", "--password", "a long enough password"}, "not found"},
		{[]string{"--org", org, "--email", "x@acme.test"}, "--password is required; usage: outreachd admin user create --email"},
		{[]string{"--help"}, "usage: outreachd admin user create --email (the person's email, their sign-in name) --org (organization id) --password"},
	}
	for _, r := range refusals {
		stdout, stderr, code := testenv.AdminRaw(t, db, append([]string{"user", "create"}, r.args...)...)
		var e map[string]string
		if code == 0 || stdout != "" || json.Unmarshal([]byte(stderr), &e) != nil || !strings.Contains(e["error"], r.want) {
			t.Errorf("user create %v: exit %d, stdout %q, stderr %q; want an error naming %q", r.args, code, stdout, stderr, r.want)
		}
	}
}
