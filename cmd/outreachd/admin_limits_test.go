package main_test

import (
	"strings"
	"testing"

	"outreachd/internal/testenv"
)

// TestAdminAccountLimits drives `admin account limits`: a seat starts with the default caps and
// nothing used; the caps given change and the others stay; a bad value changes nothing.
func TestAdminAccountLimits(t *testing.T) {
	t.Parallel()
	db := testenv.DatabaseURL(t)
	org := testenv.Admin(t, db, "org", "create", "--name", "Limits")["org_id"].(string)
	acc := testenv.Admin(t, db, "account", "connect", "--org", org, "--name", "Sam Seller")["account_id"].(string)
	limits := func(out map[string]any) map[string]any {
		l, _ := out["limits"].(map[string]any)
		return l
	}
	out := testenv.Admin(t, db, "account", "limits", "--account", acc)
	want := map[string]float64{"invites_per_day": 25, "invites_per_week": 100, "messages_per_day": 100,
		"profile_views_per_day": 80, "max_pending": 500}
	for k, v := range want {
		if limits(out)[k] != v {
			t.Fatalf("default %s = %v, want %v (%v)", k, limits(out)[k], v, out)
		}
	}
	used, _ := out["used"].(map[string]any)
	if out["account_id"] != acc || out["day_zone"] != "UTC" || used["invites_today"] != float64(0) || used["pending_invites"] != float64(0) {
		t.Fatalf("limits printed %v", out)
	}
	out = testenv.Admin(t, db, "account", "limits", "--account", acc, "--invites-per-day", "10", "--max-pending", "0")
	want["invites_per_day"], want["max_pending"] = 10, 0
	for k, v := range want {
		if limits(out)[k] != v {
			t.Fatalf("after the change %s = %v, want %v", k, limits(out)[k], v)
		}
	}
	for _, bad := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--account", acc, "--invites-per-day", "-1"}, 2, "invites per day"},
		{[]string{"--account", acc, "--messages-per-day", "many"}, 2, "messages-per-day"},
		{[]string{"--account", acc, "--profile-views-per-day", "1000001"}, 2, "profile views per day"},
		{[]string{"--invites-per-day", "3"}, 2, "--account"},
		{[]string{"--account", "acc_nobody"}, 1, "acc_nobody"},
	} {
		_, errOut, code := testenv.AdminRaw(t, db, append([]string{"account", "limits"}, bad.args...)...)
		if code != bad.code || !strings.Contains(errOut, bad.says) {
			t.Errorf("%v: exit %d %s, want %d naming %q", bad.args, code, errOut, bad.code, bad.says)
		}
	}
	if l := limits(testenv.Admin(t, db, "account", "limits", "--account", acc)); l["invites_per_day"] != float64(10) {
		t.Fatalf("a refused change changed the limits: %v", l)
	}
}
