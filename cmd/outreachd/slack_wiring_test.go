package main_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

// slackPost is one chat.postMessage call the fake Slack Web API received.
type slackPost struct{ token, channel, text, blocks, userAgent string }

// TestSlackBotDestination checks SLACK_API_URL end to end: a bot-token destination posts real
// events and Test sends to the configured Web API (a local fake here), with its token, channel
// and Block Kit blocks, and an "ok": false answer is recorded as a failed attempt with Slack's
// error.
func TestSlackBotDestination(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var posts []slackPost
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat.postMessage" || r.ParseForm() != nil {
			http.Error(w, "unexpected request "+r.URL.Path, http.StatusBadRequest)
			return
		}
		p := slackPost{token: r.PostForm.Get("token"), channel: r.PostForm.Get("channel"), text: r.PostForm.Get("text"),
			blocks: r.PostForm.Get("blocks"), userAgent: r.Header.Get("User-Agent")}
		if p.token == "" { // slack-go may send the token as a bearer header instead
			p.token = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}
		mu.Lock()
		posts = append(posts, p)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if p.channel == "C404" {
			_, _ = w.Write([]byte(`{"ok":false,"error":"channel_not_found"}`))
			return
		}
		_, _ = w.Write([]byte(`{"ok":true,"channel":"` + p.channel + `","ts":"1795329104.000100"}`))
	}))
	defer fake.Close()
	env := []string{"SLACK_API_URL=" + fake.URL + "/api/"}

	srv := testenv.StartServer(t, testenv.DatabaseURL(t), append(env, "RATE_LIMIT_PER_MINUTE=100000")...)
	org := testenv.NewOrg(t, srv)
	admin := func(args ...string) map[string]any {
		t.Helper()
		out, errOut, code := testenv.AdminRawEnv(t, srv.DBURL, env, args...)
		var m map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &m) != nil {
			t.Fatalf("admin %v: exit %d: %s %s", args, code, out, errOut)
		}
		return m
	}
	good := admin("destination", "create", "--org", org.ID, "--kind", "slack", "--slack-token", "xoxb-good",
		"--slack-channel", "C123", "--events", "prospect_added")["destination_id"].(string)
	bad := admin("destination", "create", "--org", org.ID, "--kind", "slack", "--slack-token", "xoxb-bad",
		"--slack-channel", "C404", "--events", "prospect_added")["destination_id"].(string)

	if res := admin("destination", "test", "--destination", good); res["status_code"] != float64(200) || res["error"] != nil || res["ok"] != true {
		t.Fatalf("test send to the bot destination: %v", res)
	}
	res := admin("destination", "test", "--destination", bad)
	if res["status_code"] != float64(200) || !strings.Contains(res["error"].(string), "channel_not_found") {
		t.Fatalf("test send refused by Slack: %v, want status 200 and Slack's error", res)
	}

	// A real event, sent by the serving process.
	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "Slack wiring"})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	cid := r.JSON["item"].(map[string]any)["id"].(string)
	if r := org.Write.Do(t, "POST", "/api/v1/campaigns/"+cid+"/leads", map[string]any{"leads": []map[string]any{
		{"linkedin_url": "https://www.linkedin.com/in/slack-wiring", "name": "Sal Lack"}}}); r.Status != 202 {
		t.Fatalf("push: %d %s", r.Status, r.Body)
	}
	var real slackPost
	testenv.EventuallyTrue(t, 20*time.Second, "the prospect_added post", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range posts {
			if p.channel == "C123" && !strings.Contains(p.text, "[TEST]") && strings.Contains(p.blocks, "Sal Lack") {
				real = p
				return true
			}
		}
		return false
	})
	var blocks []map[string]any
	if err := json.Unmarshal([]byte(real.blocks), &blocks); err != nil || len(blocks) == 0 {
		t.Fatalf("blocks are not Block Kit JSON: %v %q", err, real.blocks)
	}
	if real.token != "xoxb-good" || real.userAgent != "outreachd-webhooks/1" {
		t.Fatalf("post token %q user agent %q", real.token, real.userAgent)
	}
	// The refused destination's real send is recorded as a failure with Slack's error.
	testenv.EventuallyTrue(t, 20*time.Second, "the refused destination's failed attempt", func() bool {
		list := admin("destination", "list", "--org", org.ID)["data"].([]any)
		for _, d := range list {
			d := d.(map[string]any)
			if la, ok := d["last_attempt"].(map[string]any); ok && d["id"] == bad && la["event"] == "prospect_added" {
				return strings.Contains(la["error"].(string), "channel_not_found")
			}
		}
		return false
	})
}
