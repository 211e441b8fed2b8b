package main_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

// TestConfiguredDrafter checks DRAFTER_URL end to end: a reply reported through the admin CLI is
// drafted by the configured OpenAI-compatible endpoint (a local fake here), and the draft goes
// through the guardrails like any other — this one admits to being an AI, so it lands in the
// needs-human queue with reason ai_admission and the fake's text as ai_draft.
func TestConfiguredDrafter(t *testing.T) {
	t.Parallel()
	const draft = "As an AI language model, I can tell you that our product automates outreach."
	var calls atomic.Int32
	var model atomic.Value
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, "unexpected request "+r.URL.Path, http.StatusBadRequest)
			return
		}
		var req struct {
			Model string `json:"model"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		model.Store(req.Model)
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"index": 0, "message": map[string]any{"role": "assistant", "content": draft}, "finish_reason": "stop"}}})
	}))
	defer fake.Close()

	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000", "SIMULATOR_SPEED=1",
		"DRAFTER_URL="+fake.URL, "DRAFTER_API_KEY=sk-test", "DRAFTER_MODEL=test-model")
	org := testenv.NewOrg(t, srv)
	testenv.Admin(t, srv.DBURL, "account", "connect", "--org", org.ID, "--name", "Sam Seller")
	r := org.Write.Do(t, "POST", "/api/v1/campaigns", map[string]any{"name": "Drafter wiring",
		"schedule": map[string]any{"timezone": "UTC", "workingDays": []int{1, 2, 3, 4, 5, 6, 7}, "startTime": "00:00", "endTime": "23:59"}})
	if r.Status != 200 {
		t.Fatalf("create campaign: %d %s", r.Status, r.Body)
	}
	cid := r.JSON["item"].(map[string]any)["id"].(string)
	testenv.Admin(t, srv.DBURL, "campaign", "set-status", "--campaign", cid, "--status", "active")
	r = org.Write.Do(t, "POST", "/api/v1/campaigns/"+cid+"/leads", map[string]any{"leads": []map[string]any{
		{"linkedin_url": "https://www.linkedin.com/in/drafter-wiring", "name": "Dee Raft", "company": "Raft Co"}}})
	if r.Status != 202 {
		t.Fatalf("push: %d %s", r.Status, r.Body)
	}
	pid := r.JSON["accepted"].([]any)[0].(map[string]any)["lead_id"].(string)
	testenv.EventuallyTrue(t, 20*time.Second, "the invitation", func() bool {
		r := org.Read.Do(t, "GET", "/api/v1/prospects/"+pid, nil)
		s, _ := r.JSON["data"].(map[string]any)["status"].(string)
		return s == "connection_sent"
	})
	testenv.Admin(t, srv.DBURL, "simulate", "accept", "--prospect", pid)
	testenv.Admin(t, srv.DBURL, "simulate", "reply", "--prospect", pid, "--text", "What does your product do exactly?")

	var item map[string]any
	testenv.EventuallyTrue(t, 20*time.Second, "the needs-human item", func() bool {
		r := org.Read.Do(t, "GET", "/api/v1/needs-human", nil)
		items, _ := r.JSON["data"].([]any)
		if len(items) == 1 {
			item = items[0].(map[string]any)
		}
		return item != nil
	})
	if calls.Load() == 0 || model.Load() != "test-model" {
		t.Fatalf("drafter endpoint called %d times with model %v", calls.Load(), model.Load())
	}
	if item["reason"] != "ai_admission" || item["ai_draft"] != draft {
		t.Fatalf("needs-human item = %v, want reason ai_admission with the endpoint's draft", item)
	}
}
