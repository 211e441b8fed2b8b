package main_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

// TestAdminEngineCommands drives the built binary: a seat is connected with `admin account
// connect`, a campaign runs in the serving process, and `admin simulate accept/reply` report
// LinkedIn activity that the API then shows (statuses, needs-human).
func TestAdminEngineCommands(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000", "SIMULATOR_SPEED=1")
	org := testenv.NewOrg(t, srv)

	acc := testenv.Admin(t, srv.DBURL, "account", "connect", "--org", org.ID, "--name", "Sam Seller")
	accID, _ := acc["account_id"].(string)
	if !strings.HasPrefix(accID, "acc_") || len(acc) != 1 {
		t.Fatalf("account connect printed %v", acc)
	}
	again := testenv.Admin(t, srv.DBURL, "account", "connect", "--org", org.ID, "--name", "Sam Seller")
	if again["account_id"] != accID {
		t.Fatalf("connecting the same seat again gave %v, want %s", again, accID)
	}

	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "Engine black box",
		"schedule": map[string]any{"timezone": "UTC", "workingDays": []int{1, 2, 3, 4, 5, 6, 7}, "startTime": "00:00", "endTime": "23:59"},
		"sequence": []map[string]any{{"type": "message", "delay_days": 3, "text": "Thanks for connecting!"}}})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	cid := r.JSON["item"].(map[string]any)["id"].(string)
	testenv.Admin(t, srv.DBURL, "campaign", "set-status", "--campaign", cid, "--status", "active")
	r = org.Write.Do(t, "POST", "/api/v1/campaigns/"+cid+"/leads", map[string]any{"leads": []map[string]any{
		{"linkedin_url": "https://www.linkedin.com/in/blackbox-ada", "name": "Ada Box", "company": "Box Inc"}}})
	if r.Status != 202 {
		t.Fatalf("push: %d %s", r.Status, r.Body)
	}
	pid := r.JSON["accepted"].([]any)[0].(map[string]any)["lead_id"].(string)
	status := func() string {
		r := org.Read.Do(t, "GET", "/api/v1/prospects/"+pid, nil)
		s, _ := r.JSON["data"].(map[string]any)["status"].(string)
		return s
	}
	// Enrichment accepts the lead, the engine admits it and sends the invitation.
	testenv.EventuallyTrue(t, 20*time.Second, "the invitation", func() bool { return status() == "connection_sent" })

	out := testenv.Admin(t, srv.DBURL, "simulate", "accept", "--prospect", pid)
	if len(out) != 1 || out["ok"] != true {
		t.Fatalf("simulate accept printed %v", out)
	}
	if s := status(); s != "connected" {
		t.Fatalf("status right after simulate accept: %s", s)
	}
	out = testenv.Admin(t, srv.DBURL, "simulate", "reply", "--prospect", pid, "--text", "Could you send me an email with the details?")
	chat, _ := out["chat_id"].(string)
	if out["ok"] != true || chat == "" || len(out) != 2 {
		t.Fatalf("simulate reply printed %v", out)
	}
	if s := status(); s != "replied" {
		t.Fatalf("status after the reply: %s", s)
	}
	r = org.Read.Do(t, "GET", "/api/v1/needs-human", nil)
	items, _ := r.JSON["data"].([]any)
	if r.Status != 200 || len(items) != 1 {
		t.Fatalf("needs-human: %d %s", r.Status, r.Body)
	}
	item := items[0].(map[string]any)
	if item["reason"] != "wants_email" || item["chat_id"] != chat || item["campaign_id"] != cid ||
		item["message"] != "Could you send me an email with the details?" {
		b, _ := json.Marshal(item)
		t.Fatalf("needs-human item: %s", b)
	}
	// The conversation is in the live inbox, read from the same simulator.
	r = org.Read.Do(t, "GET", "/api/v1/inbox", nil)
	if r.Status != 200 || !strings.Contains(string(r.Body), chat) {
		t.Fatalf("inbox: %d %s", r.Status, r.Body)
	}

	// Seat alerts through the CLI.
	for _, args := range [][]string{
		{"simulate", "rate-limit", "--account", accID, "--cooldown", "2h"},
		{"simulate", "disconnect", "--account", accID},
		{"simulate", "reconnect", "--account", accID},
		{"simulate", "sales-nav-lapse", "--account", accID},
		{"simulate", "sales-nav-restore", "--account", accID},
	} {
		if out := testenv.Admin(t, srv.DBURL, args...); out["ok"] != true {
			t.Fatalf("%v printed %v", args, out)
		}
	}

	// Bad arguments: {"error"} on stderr, non-zero exit, nothing on stdout.
	bad := [][]string{
		{"simulate", "accept", "--prospect", "prs_00000000000000000000000000"},
		{"simulate", "accept"},
		{"simulate", "reply", "--prospect", pid},
		{"simulate", "reply", "--prospect", pid, "--text", "   "},
		{"simulate", "disconnect", "--account", "acc_unknown"},
		{"simulate", "rate-limit", "--account", accID, "--cooldown", "-1h"},
		{"account", "connect", "--org", org.ID},
		{"account", "connect", "--org", "org_unknown", "--name", "X"},
	}
	for _, args := range bad {
		stdout, stderr, code := testenv.AdminRaw(t, srv.DBURL, args...)
		var e map[string]any
		if code == 0 || stdout != "" || json.Unmarshal([]byte(stderr), &e) != nil || e["error"] == "" {
			t.Errorf("%v: exit %d stdout %q stderr %q", args, code, stdout, stderr)
		}
	}
}
