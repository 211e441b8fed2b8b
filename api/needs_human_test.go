package api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

func TestNeedsHuman(t *testing.T) {
	t.Parallel()
	e := repStart(t)
	c1, c2 := e.repCampaign(t, e.org.ID), e.repCampaign(t, e.org.ID)
	p1 := e.repProspect(t, e.org.ID, c1, "nora")
	now := time.Now().UTC()
	item := func(id, campaign string, prospect any, reason string, intent any, waiting time.Time, resolved any) {
		e.exec(t, `INSERT INTO needs_human (id, org_id, campaign_id, prospect_id, chat_id, name, message, ai_draft, intent, reason, waiting_since, resolved_at)
			VALUES ($1, $2, $3, $4, 'cht_'||$1, 'Name '||$1, 'Can you email me?', 'Sure, what is your address?', $5, $6, $7, $8)`,
			id, e.org.ID, campaign, prospect, intent, reason, waiting, resolved)
	}
	item("nh_old", c1, p1, "wants_email", "email", now.Add(-5*time.Hour-30*time.Minute), nil)
	item("nh_new", c2, nil, "ai_callout", nil, now.Add(-10*time.Minute), nil)
	item("nh_mid", c2, nil, "bump_recheck_failed", nil, now.Add(-49*time.Hour), nil)
	item("nh_done", c1, p1, "needs_human", nil, now.Add(-time.Hour), now)
	other := testenv.NewOrg(t, e.srv)
	e.exec(t, `INSERT INTO needs_human (id, org_id, chat_id, message, reason, waiting_since) VALUES ('nh_other', $1, 'c', 'm', 'apology', now())`, other.ID)

	type nh map[string]any
	get := func(t *testing.T, q string) ([]nh, map[string]any) {
		t.Helper()
		r := e.org.Read.Do(t, "GET", "/api/v1/needs-human"+q, nil)
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		var a struct {
			Data       []nh           `json:"data"`
			Pagination map[string]any `json:"pagination"`
		}
		if err := json.Unmarshal(r.Body, &a); err != nil {
			t.Fatal(err)
		}
		return a.Data, a.Pagination
	}
	ids := func(items []nh) string {
		var s []string
		for _, it := range items {
			s = append(s, it["id"].(string))
		}
		return strings.Join(s, ",")
	}

	t.Run("open items newest first with every field", func(t *testing.T) {
		items, page := get(t, "")
		if ids(items) != "nh_new,nh_old,nh_mid" {
			t.Fatalf("order %s", ids(items))
		}
		if page["total"] != float64(3) || page["limit"] != float64(50) || page["offset"] != float64(0) {
			t.Fatalf("pagination %v", page)
		}
		old := items[1]
		want := map[string]any{"campaign_id": c1, "chat_id": "cht_nh_old", "name": "Name nh_old",
			"message": "Can you email me?", "ai_draft": "Sure, what is your address?", "intent": "email",
			"reason": "wants_email", "reason_label": "They asked to be emailed instead", "hours_waiting": float64(5)}
		for k, v := range want {
			if old[k] != v {
				t.Fatalf("%s = %v, want %v (item %v)", k, old[k], v, old)
			}
		}
		if ws, err := time.Parse("2006-01-02T15:04:05.000Z", old["waiting_since"].(string)); err != nil || now.Sub(ws) < 5*time.Hour {
			t.Fatalf("waiting_since %v", old["waiting_since"])
		}
		repCheckPerson(t, old, false)
		repCheckPerson(t, items[0], true)
		if items[0]["intent"] != nil || items[0]["reason_label"] != "They asked whether they are talking to a bot" {
			t.Fatalf("new item %v", items[0])
		}
		if items[2]["hours_waiting"] != float64(49) {
			t.Fatalf("hours_waiting %v", items[2]["hours_waiting"])
		}
	})
	t.Run("campaign filter and pagination", func(t *testing.T) {
		items, page := get(t, "?campaign_id="+c2+"&limit=1&offset=1")
		if ids(items) != "nh_mid" || page["total"] != float64(2) || page["limit"] != float64(1) {
			t.Fatalf("%s %v", ids(items), page)
		}
		if items, _ := get(t, "?offset=3"); len(items) != 0 {
			t.Fatalf("past the end: %v", items)
		}
	})
	for _, q := range []string{"limit=201", "limit=0", "offset=-1", "limit=abc"} {
		t.Run("400 "+q, func(t *testing.T) {
			r := e.org.Read.Do(t, "GET", "/api/v1/needs-human?"+q, nil)
			errObj, _ := r.JSON["error"].(map[string]any)
			if r.Status != 400 || errObj["code"] != "invalid_request" || !strings.Contains(errObj["message"].(string), strings.Split(q, "=")[0]) {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}
}
