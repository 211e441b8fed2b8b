package api_test

import (
	"testing"
	"time"

	"outreachd/internal/testenv"
)

// TestConversationReply: POST /conversations/{id}/reply sends the client's own text on LinkedIn
// (GET /inbox, read live, shows it last, from the seat), recorded as the key's; a stopped person
// gets nothing; another organization's conversation is not found.
func TestConversationReply(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000", "SIMULATOR_SPEED=1")
	org := testenv.NewOrg(t, srv)
	testenv.Admin(t, srv.DBURL, "account", "connect", "--org", org.ID, "--name", "Reply Seller")
	cid := cpCreate(t, org.Write, map[string]any{"name": "Replies",
		"schedule": map[string]any{"timezone": "UTC", "startTime": "00:00", "endTime": "23:59"}})["id"].(string)
	testenv.Admin(t, srv.DBURL, "campaign", "set-status", "--campaign", cid, "--status", "active")
	r := org.Write.Do(t, "POST", "/api/v1/campaigns/"+cid+"/leads", map[string]any{"leads": []any{lead("reply-rae", "name", "Rae Reply")}})
	wantStatus(t, r, 202)
	pid := list(r.JSON["accepted"])[0]["lead_id"].(string)
	testenv.EventuallyTrue(t, 15*time.Second, "the invitation", func() bool {
		return org.Read.Do(t, "GET", "/api/v1/prospects/"+pid, nil).JSON["data"].(map[string]any)["status"] == "connection_sent"
	})
	testenv.Admin(t, srv.DBURL, "simulate", "accept", "--prospect", pid)
	chat := testenv.Admin(t, srv.DBURL, "simulate", "reply", "--prospect", pid, "--text", "Could you send me an email with the details?")["chat_id"].(string)

	text := "Sent it just now, Rae. Speak soon!"
	r = org.Write.Do(t, "POST", "/api/v1/conversations/"+chat+"/reply", map[string]any{"text": "  " + text})
	wantStatus(t, r, 200)
	if d := r.JSON["data"].(map[string]any); d["status"] != "sent" || d["text"] != text || d["chat_id"] != chat {
		t.Fatalf("reply: %s", r.Body)
	}
	inbox := org.Read.Do(t, "GET", "/api/v1/inbox", nil)
	last := list(inbox.JSON["data"])[0]["last_message"].(map[string]any)
	if last["text"] != text || last["from_me"] != true {
		t.Fatalf("LinkedIn's last message is %v, want the reply", last)
	}
	if n := cpInt(t, srv.DBURL, `SELECT count(*)::int FROM reply_drafts WHERE chat_id = $1 AND status = 'sent' AND author LIKE 'key:%'`, chat); n != 1 {
		t.Fatalf("%v replies recorded as the key's", n)
	}

	other := testenv.NewOrg(t, srv)
	wantStatus(t, other.Write.Do(t, "POST", "/api/v1/conversations/"+chat+"/reply", map[string]any{"text": "hi"}), 404)
	wantStatus(t, org.Read.Do(t, "POST", "/api/v1/conversations/"+chat+"/reply", map[string]any{"text": "hi"}), 403)
	wantStatus(t, org.Write.Do(t, "POST", "/api/v1/conversations/"+chat+"/reply", map[string]any{}), 400)
	wantStatus(t, org.Write.Do(t, "POST", "/api/v1/inbox/stop", map[string]any{"linkedin_url": "reply-rae"}), 200)
	r = org.Write.Do(t, "POST", "/api/v1/conversations/"+chat+"/reply", map[string]any{"text": "One more thing"})
	if wantStatus(t, r, 200); r.JSON["data"].(map[string]any)["status"] != "dismissed" {
		t.Fatalf("a reply to a stopped person: %s", r.Body)
	}
}
