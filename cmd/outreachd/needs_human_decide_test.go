package main_test

import (
	"strings"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

// TestNeedsHumanDecisions drives the built binary: replies that need a person reach the queue
// through `admin simulate reply`, and POST /needs-human/{id}/approve and /dismiss decide them
// through the engine (approving sends on LinkedIn: the inbox shows the message as ours).
func TestNeedsHumanDecisions(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000", "SIMULATOR_SPEED=1")
	org := testenv.NewOrg(t, srv)
	testenv.Admin(t, srv.DBURL, "account", "connect", "--org", org.ID, "--name", "Sam Seller")
	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "Desk",
		"schedule": map[string]any{"timezone": "UTC", "workingDays": []int{1, 2, 3, 4, 5, 6, 7}, "startTime": "00:00", "endTime": "23:59"}})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	cid := r.JSON["item"].(map[string]any)["id"].(string)
	testenv.Admin(t, srv.DBURL, "campaign", "set-status", "--campaign", cid, "--status", "active")
	r = org.Write.Do(t, "POST", "/api/v1/campaigns/"+cid+"/leads", map[string]any{"leads": []map[string]any{
		{"linkedin_url": "https://www.linkedin.com/in/desk-ada", "name": "Ada Desk"},
		{"linkedin_url": "https://www.linkedin.com/in/desk-bob", "name": "Bob Desk"}}})
	if r.Status != 202 {
		t.Fatalf("push: %d %s", r.Status, r.Body)
	}
	var pids []string
	for _, a := range r.JSON["accepted"].([]any) {
		pids = append(pids, a.(map[string]any)["lead_id"].(string))
	}
	for _, pid := range pids {
		testenv.EventuallyTrue(t, 20*time.Second, "the invitation", func() bool {
			r := org.Read.Do(t, "GET", "/api/v1/prospects/"+pid, nil)
			return r.JSON["data"].(map[string]any)["status"] == "connection_sent"
		})
		testenv.Admin(t, srv.DBURL, "simulate", "accept", "--prospect", pid)
		testenv.Admin(t, srv.DBURL, "simulate", "reply", "--prospect", pid, "--text", "Could you send me an email with the details?")
	}
	r = org.Read.Do(t, "GET", "/api/v1/needs-human", nil)
	items, _ := r.JSON["data"].([]any)
	if len(items) != 2 {
		t.Fatalf("needs-human: %d %s", r.Status, r.Body)
	}
	first, second := items[0].(map[string]any), items[1].(map[string]any)
	id1, id2 := first["id"].(string), second["id"].(string)

	other := testenv.NewOrg(t, srv)
	refusals := []struct {
		name   string
		do     func() testenv.Response
		status int
		code   string
	}{
		{"read key", func() testenv.Response { return org.Read.Do(t, "POST", "/api/v1/needs-human/"+id1+"/approve", nil) }, 403, "insufficient_scope"},
		{"another organization", func() testenv.Response {
			return other.Write.Do(t, "POST", "/api/v1/needs-human/"+id1+"/approve", nil)
		}, 404, "not_found"},
		{"blank text", func() testenv.Response {
			return org.Write.Do(t, "POST", "/api/v1/needs-human/"+id1+"/approve", map[string]any{"text": "  "})
		}, 400, "invalid_request"},
		{"unknown field", func() testenv.Response {
			return org.Write.Do(t, "POST", "/api/v1/needs-human/"+id1+"/approve", map[string]any{"txt": "hi"})
		}, 400, "invalid_request"},
		{"text on dismiss", func() testenv.Response {
			return org.Write.Do(t, "POST", "/api/v1/needs-human/"+id1+"/dismiss", map[string]any{"text": "hi"})
		}, 400, "invalid_request"},
	}
	for _, c := range refusals {
		r := c.do()
		if e, _ := r.JSON["error"].(map[string]any); r.Status != c.status || e["code"] != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, r.Status, r.Body, c.status, c.code)
		}
	}

	mine := "Hi Ada, happy to. What address should I use?"
	r = org.Write.Do(t, "POST", "/api/v1/needs-human/"+id1+"/approve", map[string]any{"text": mine})
	d, _ := r.JSON["data"].(map[string]any)
	if r.Status != 200 || d["status"] != "sent" || d["text"] != mine || d["item_id"] != id1 || d["chat_id"] != first["chat_id"] {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	inbox := org.Read.Do(t, "GET", "/api/v1/inbox", nil)
	if !strings.Contains(string(inbox.Body), mine) {
		t.Fatalf("the approved reply is not in the live inbox: %s", inbox.Body)
	}
	if r := org.Write.Do(t, "POST", "/api/v1/needs-human/"+id1+"/approve", nil); r.Status != 409 {
		t.Fatalf("second approval: %d %s", r.Status, r.Body)
	}
	r = org.Write.Do(t, "POST", "/api/v1/needs-human/"+id2+"/dismiss", nil)
	if d, _ := r.JSON["data"].(map[string]any); r.Status != 200 || d["status"] != "dismissed" {
		t.Fatalf("dismiss: %d %s", r.Status, r.Body)
	}
	r = org.Read.Do(t, "GET", "/api/v1/needs-human", nil)
	if left, _ := r.JSON["data"].([]any); len(left) != 0 {
		t.Fatalf("queue after both decisions: %s", r.Body)
	}
}
