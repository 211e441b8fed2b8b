package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"outreachd/adapters/linkedin"
	"outreachd/api"
	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// stopBlockSeed is one person the engine knows: a prospect in two campaigns, one chat, open
// and closed follow-ups, a pending and a sent draft and an open needs-human item.
type stopBlockSeed struct {
	prospects []string
	chat      string
}

func (e repEnv) seedPerson(t *testing.T, handle, memberID string, campaigns ...string) stopBlockSeed {
	t.Helper()
	var s stopBlockSeed
	acc := outreach.NewID("acc")
	e.exec(t, `INSERT INTO linkedin_accounts (id, org_id, name, provider_account_id) VALUES ($1, $2, 'Seat', $1)`, acc, e.org.ID)
	for i, c := range campaigns {
		p := e.repProspect(t, e.org.ID, c, handle)
		e.exec(t, `UPDATE prospects SET current_step = 2, next_step_at = $2 WHERE id = $1`, p,
			time.Date(2030, 1, 1+i, 9, 0, 0, 0, time.UTC))
		s.prospects = append(s.prospects, p)
	}
	s.chat = outreach.NewID("cht")
	var leadKey any = "in:" + handle
	if memberID != "" {
		leadKey = nil // the engine knows this chat only by its attendee's member id
	}
	e.exec(t, `INSERT INTO chats (id, org_id, account_id, provider_chat_id, lead_key, prospect_id, attendee_name, attendee_provider_id)
		VALUES ($1, $2, $3, $1, $4, $5, $6, $7)`, s.chat, e.org.ID, acc, leadKey, s.prospects[0], handle, memberID)
	for i, closed := range []any{nil, nil, time.Now()} {
		e.exec(t, `INSERT INTO followups (id, org_id, prospect_id, chat_id, due_at, step, closed_at) VALUES ($1, $2, $3, $4, now() + interval '1 day', $5, $6)`,
			outreach.NewID("fup"), e.org.ID, s.prospects[i%len(s.prospects)], s.chat, i+3, closed)
	}
	for _, st := range []string{"pending", "sent"} {
		e.exec(t, `INSERT INTO reply_drafts (id, org_id, prospect_id, chat_id, text, status) VALUES ($1, $2, $3, $4, 'Hi there, happy to help!', $5)`,
			outreach.NewID("drf"), e.org.ID, s.prospects[0], s.chat, st)
	}
	e.exec(t, `INSERT INTO needs_human (id, org_id, campaign_id, prospect_id, chat_id, message, reason, waiting_since)
		VALUES ($1, $2, $3, $4, $5, 'hm?', 'needs_human', now())`, outreach.NewID("nhu"), e.org.ID, campaigns[0], s.prospects[0], s.chat)
	return s
}

func (e repEnv) count(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	return e.scalar(t, sql, args...).(int64)
}

func TestInboxStop(t *testing.T) {
	t.Parallel()
	e := repStart(t)
	c1, c2 := e.repCampaign(t, e.org.ID), e.repCampaign(t, e.org.ID)
	pat := e.seedPerson(t, "pat", "", c1, c2)

	body := map[string]any{"linkedin_urls": []any{
		"https://www.linkedin.com/in/pat/", "not a profile!!", 42, "https://linkedin.com/in/nobody-here", "PAT",
	}}
	r := e.org.Write.Do(t, "POST", "/api/v1/inbox/stop", body)
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	var a struct {
		Data      []map[string]any `json:"data"`
		Requested int              `json:"requested"`
		Applied   int              `json:"applied"`
	}
	if err := json.Unmarshal(r.Body, &a); err != nil {
		t.Fatal(err)
	}
	if a.Requested != 5 || a.Applied != 2 || len(a.Data) != 5 {
		t.Fatalf("answer %s", r.Body)
	}
	entry := func(i int) string {
		d := a.Data[i]
		return fmt.Sprintf("%v %v %v %v %v %v err=%v", d["input"], d["matched_conversations"], d["replies_stopped"],
			d["followups_closed"], d["campaigns_paused"], d["not_found"], d["error"] != nil)
	}
	want := []string{
		"https://www.linkedin.com/in/pat/ 1 true 2 2 false err=false",
		"not a profile!! 0 false 0 0 true err=true",
		"42 0 false 0 0 true err=true",
		"https://linkedin.com/in/nobody-here 0 false 0 0 true err=false",
		"PAT 1 true 0 0 false err=false", // the same person again: already stopped
	}
	for i, w := range want {
		if got := entry(i); got != w {
			t.Fatalf("entry %d: %s\nwant %s", i, got, w)
		}
	}

	check := func(t *testing.T) {
		t.Helper()
		if n := e.count(t, `SELECT count(*) FROM prospects WHERE id = ANY($1) AND paused_at IS NOT NULL
			AND next_step_at IS NULL AND paused_next_step_at >= '2030-01-01' AND current_step = 2 AND status = 'messaged'`, pat.prospects); n != 2 {
			t.Fatalf("paused prospects keeping position: %d", n)
		}
		if n := e.count(t, `SELECT count(*) FROM chats WHERE id = $1 AND replies_stopped_at IS NOT NULL`, pat.chat); n != 1 {
			t.Fatal("replies not stopped")
		}
		if n := e.count(t, `SELECT count(*) FROM followups WHERE closed_at IS NULL`); n != 0 {
			t.Fatalf("%d follow-ups still open", n)
		}
		if n := e.count(t, `SELECT count(*) FROM reply_drafts WHERE status = 'pending'`); n != 1 {
			t.Fatalf("stop must keep the pending draft for an undo, %d pending", n)
		}
		if n := e.count(t, `SELECT count(*) FROM blacklist`); n != 0 {
			t.Fatal("stop must not block")
		}
	}
	check(t)
	paused := e.scalar(t, `SELECT paused_at FROM prospects WHERE id = $1`, pat.prospects[0])

	t.Run("idempotent", func(t *testing.T) {
		r := e.org.Write.Do(t, "POST", "/api/v1/inbox/stop", map[string]any{"linkedin_url": "linkedin.com/in/pat"})
		if r.Status != 200 || !strings.Contains(string(r.Body), `"matched_conversations":1,"replies_stopped":true,"followups_closed":0,"campaigns_paused":0,"not_found":false`) ||
			!strings.Contains(string(r.Body), `"requested":1`) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		check(t)
		if again := e.scalar(t, `SELECT paused_at FROM prospects WHERE id = $1`, pat.prospects[0]); fmt.Sprint(again) != fmt.Sprint(paused) {
			t.Fatalf("paused_at moved: %v -> %v", paused, again)
		}
	})
	t.Run("read key is refused", func(t *testing.T) {
		r := e.org.Read.Do(t, "POST", "/api/v1/inbox/stop", map[string]any{"linkedin_url": "pat"})
		if r.Status != 403 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("another organization sees nothing of pat", func(t *testing.T) {
		other := testenv.NewOrg(t, e.srv)
		r := other.Write.Do(t, "POST", "/api/v1/inbox/stop", map[string]any{"linkedin_url": "pat"})
		if !strings.Contains(string(r.Body), `"not_found":true`) || !strings.Contains(string(r.Body), `"applied":0`) {
			t.Fatalf("%s", r.Body)
		}
	})
	stopBlockBadBodies(t, e, "/api/v1/inbox/stop")
	t.Run("reason is not a stop field", func(t *testing.T) {
		r := e.org.Write.Do(t, "POST", "/api/v1/inbox/stop", map[string]any{"linkedin_url": "pat", "reason": "x"})
		if r.Status != 400 || !strings.Contains(string(r.Body), "reason") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}

// stopBlockBadBodies checks the requests that fail as a whole: 400 naming the problem.
func stopBlockBadBodies(t *testing.T, e repEnv, path string) {
	many := make([]string, 201)
	for i := range many {
		many[i] = fmt.Sprintf("person-%03d", i)
	}
	cases := []struct {
		name    string
		body    any
		mention string
	}{
		{"both fields", map[string]any{"linkedin_urls": []string{"a-person"}, "linkedin_url": "b-person"}, "not both"},
		{"neither", map[string]any{}, "required"},
		{"empty list", map[string]any{"linkedin_urls": []string{}}, "1 to 200"},
		{"201 entries", map[string]any{"linkedin_urls": many}, "1 to 200"},
		{"not a list", map[string]any{"linkedin_urls": "pat"}, "linkedin_urls"},
		{"unknown field", map[string]any{"linkedin_url": "pat", "urls": []string{}}, "urls"},
		{"malformed JSON", `{"linkedin_url": `, "JSON"},
		{"empty body", "", "empty"},
	}
	for _, tc := range cases {
		t.Run("400 "+tc.name, func(t *testing.T) {
			r := e.org.Write.Do(t, "POST", path, tc.body)
			errObj, _ := r.JSON["error"].(map[string]any)
			if r.Status != 400 || errObj["code"] != "invalid_request" || !strings.Contains(fmt.Sprint(errObj["message"]), tc.mention) {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}
}

func TestInboxBlock(t *testing.T) {
	t.Parallel()
	e := repStart(t)
	c1, c2 := e.repCampaign(t, e.org.ID), e.repCampaign(t, e.org.ID)
	const member = "ACoAABcdefghijklmnopqrstuvwxyz0123456"
	ben := e.seedPerson(t, "ben", member, c1)
	kim := e.seedPerson(t, "kim", "", c1, c2)

	t.Run("too long a reason writes nothing", func(t *testing.T) {
		r := e.org.Write.Do(t, "POST", "/api/v1/inbox/block", map[string]any{"linkedin_url": "kim", "reason": strings.Repeat("x", 501)})
		if r.Status != 400 || !strings.Contains(string(r.Body), "reason") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if n := e.count(t, `SELECT count(*) FROM blacklist`); n != 0 {
			t.Fatal("a refused request wrote block-list entries")
		}
	})

	r := e.org.Write.Do(t, "POST", "/api/v1/inbox/block", map[string]any{
		"linkedin_urls": []any{member, "https://www.linkedin.com/in/kim?trk=x", "bad url with spaces", "https://www.linkedin.com/in/unknown-person"},
		"reason":        "asked us to stop",
	})
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	var a struct {
		Data      []map[string]any `json:"data"`
		Requested int              `json:"requested"`
		Blocked   int              `json:"blocked"`
	}
	if err := json.Unmarshal(r.Body, &a); err != nil {
		t.Fatal(err)
	}
	if a.Requested != 4 || a.Blocked != 3 {
		t.Fatalf("answer %s", r.Body)
	}
	want := []string{
		member + " true 1 2 1 false",
		"https://www.linkedin.com/in/kim?trk=x true 1 2 1 false",
		"bad url with spaces false 0 0 0 true",
		"https://www.linkedin.com/in/unknown-person true 0 0 0 false", // blocked before we ever meet them
	}
	for i, w := range want {
		d := a.Data[i]
		got := fmt.Sprintf("%v %v %v %v %v %v", d["input"], d["blocked"], d["matched_conversations"], d["followups_closed"],
			d["drafts_dismissed"], d["error"] != nil)
		if got != w {
			t.Fatalf("entry %d: %s\nwant %s", i, got, w)
		}
	}

	checks := []struct {
		name string
		sql  string
		want int64
	}{
		{"block-list entries with the reason", `SELECT count(*) FROM blacklist WHERE type = 'account' AND reason = 'asked us to stop'
			AND key IN ('id:` + member + `', 'in:kim', 'in:unknown-person')`, 3},
		{"removed from campaigns", `SELECT count(*) FROM prospects WHERE status = 'opted_out' AND next_step_at IS NULL AND sequence_ended_at IS NOT NULL`, 3},
		{"replies stopped", `SELECT count(*) FROM chats WHERE replies_stopped_at IS NOT NULL`, 2},
		{"follow-ups closed", `SELECT count(*) FROM followups WHERE closed_at IS NULL`, 0},
		{"drafts dismissed, sent ones kept", `SELECT count(*) FROM reply_drafts WHERE status = 'dismissed'`, 2},
		{"sent drafts untouched", `SELECT count(*) FROM reply_drafts WHERE status = 'sent'`, 2},
		{"needs-human resolved", `SELECT count(*) FROM needs_human WHERE resolved_at IS NULL`, 0},
	}
	for _, c := range checks {
		if n := e.count(t, c.sql); n != c.want {
			t.Fatalf("%s: %d, want %d", c.name, n, c.want)
		}
	}
	_ = ben
	_ = kim

	t.Run("blocking again changes nothing and keeps the first reason", func(t *testing.T) {
		r := e.org.Write.Do(t, "POST", "/api/v1/inbox/block", map[string]any{"linkedin_url": "kim", "reason": "other"})
		if r.Status != 200 || !strings.Contains(string(r.Body), `"blocked":true,"matched_conversations":1,"followups_closed":0,"drafts_dismissed":0`) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if n := e.count(t, `SELECT count(*) FROM blacklist WHERE key = 'in:kim' AND reason = 'asked us to stop'`); n != 1 {
			t.Fatal("reason replaced")
		}
	})
	t.Run("read key is refused", func(t *testing.T) {
		if r := e.org.Read.Do(t, "POST", "/api/v1/inbox/block", map[string]any{"linkedin_url": "kim"}); r.Status != 403 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	stopBlockBadBodies(t, e, "/api/v1/inbox/block")
}

// GET /inbox parameters are checked before LinkedIn is read, on the running binary.
func TestInboxParameters(t *testing.T) {
	t.Parallel()
	e := repStart(t)
	// Budgets are per calendar minute: start well inside one so that the count below holds.
	if now := time.Now(); now.Second() >= 50 {
		time.Sleep(now.Truncate(time.Minute).Add(time.Minute + 100*time.Millisecond).Sub(now))
	}
	for _, q := range []string{"scope=everything", "limit=101", "limit=0"} {
		t.Run(q, func(t *testing.T) {
			r := e.org.Read.Do(t, "GET", "/api/v1/inbox?"+q, nil)
			errObj, _ := r.JSON["error"].(map[string]any)
			if r.Status != 400 || !strings.Contains(fmt.Sprint(errObj["message"]), strings.Split(q, "=")[0]) {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}
	// The binary wires the provider: an organization without LinkedIn seats has an empty inbox.
	r := e.org.Read.Do(t, "GET", "/api/v1/inbox", nil)
	if r.Status != 200 || string(r.Body) != `{"data":[],"scope":"campaign"}`+"\n" {
		t.Fatalf("empty inbox: %d %q", r.Status, r.Body)
	}
	if r.Header.Get("X-RateLimit-Limit") != "30" {
		t.Fatalf("GET /inbox budget: %q", r.Header.Get("X-RateLimit-Limit"))
	}
	// Its own budget of 30 a minute (4 spent above), apart from the organization's 120.
	for i := 5; i <= 31; i++ {
		r = e.org.Read.Do(t, "GET", "/api/v1/inbox", nil)
		if (i <= 30) != (r.Status == 200) {
			t.Fatalf("inbox request %d: %d %s", i, r.Status, r.Body)
		}
	}
	if _, plain := r.JSON["error"].(string); !plain || r.Header.Get("Retry-After") == "" {
		t.Fatalf("429 shape: %s", r.Body)
	}
	if me := e.org.Read.Do(t, "GET", "/api/v1/me", nil); me.Status != 200 {
		t.Fatalf("the default budget is separate: %d", me.Status)
	}
}

// GET /inbox reads LinkedIn live (the simulator stands in for it) from the first five connected
// accounts, against the real database, in process: the provider lives in the server's memory.
func TestInboxLive(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org, err := st.CreateOrg(ctx, "inbox", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := st.CreateAPIKey(ctx, org.ID, "read", nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := outreach.NewVirtualClock(time.Date(2026, 7, 10, 9, 0, 0, 0, time.UTC), 0)
	sim, err := linkedin.NewSimulator(clock, linkedin.SimConfig{DisconnectPerDay: -1, AcceptRate: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := api.NewServer(st, api.Deps{Inbox: sim}, api.Config{PublicURL: "https://outreach.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	c := testenv.Client{Base: hs.URL, Key: key}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}

	// Seven seats: #3 is disconnected, so the first five connected are #1 #2 #4 #5 #6 and #7 is not read.
	var ours []string
	for i := 1; i <= 7; i++ {
		acc, err := sim.ConnectAccount(ctx, org.ID, fmt.Sprintf("seat %d", i))
		if err != nil {
			t.Fatal(err)
		}
		status := "connected"
		if i == 3 {
			status = "disconnected"
		}
		id := fmt.Sprintf("acc_%d_%s", i, org.ID)
		exec(`INSERT INTO linkedin_accounts (id, org_id, name, provider_account_id, status, created_at)
			VALUES ($1, $2, $3, $4, $5, now() + $6 * interval '1 second')`, id, org.ID, acc.Name, acc.ID, status, i)
		ours = append(ours, id)
	}
	cmp := outreach.NewID("cmp")
	exec(`INSERT INTO campaigns (id, org_id, name, schedule) VALUES ($1, $2, 'c', '{}')`, cmp, org.ID)
	const member = "ACoAAQrstuvwxyzabcdefghijklmnop012345"
	for _, p := range []struct{ key, handle string }{{"in:carla", "carla"}, {"id:" + member, member}} {
		exec(`INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, source, role, follower_count, linkedin_url)
			VALUES ($1, $2, $3, $4, $5, 'api', 'CTO', 42, 'https://www.linkedin.com/in/x')`, outreach.NewID("prs"), org.ID, cmp, p.key, p.handle)
	}
	accID := func(i int) string {
		accs, _ := sim.Accounts(ctx)
		return accs[i-1].ID
	}
	talk := func(seat int, ref outreach.ProfileRef, text string) {
		t.Helper()
		if _, err := sim.SendInvite(ctx, accID(seat), ref, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := sim.InjectReply(ref.ProfileKey+ref.ProviderID, text); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
	}
	talk(1, outreach.ProfileRef{ProfileKey: "in:carla", Name: "Carla"}, "hello from carla")
	talk(7, outreach.ProfileRef{ProfileKey: "in:frank", Name: "Frank"}, "seat seven is not read")
	talk(2, outreach.ProfileRef{ProviderID: member, Name: "Mo"}, "known by member id")
	talk(6, outreach.ProfileRef{ProfileKey: "in:stranger", Name: "Stranger"}, "who are you")

	type item map[string]any
	get := func(t *testing.T, q string) []item {
		t.Helper()
		r := c.Do(t, "GET", "/api/v1/inbox"+q, nil)
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		var a struct {
			Data  []item `json:"data"`
			Scope string `json:"scope"`
		}
		if err := json.Unmarshal(r.Body, &a); err != nil {
			t.Fatal(err)
		}
		if _, ok := r.JSON["pagination"]; ok {
			t.Fatal("GET /inbox has no pagination")
		}
		want := "campaign"
		if strings.Contains(q, "scope=all") {
			want = "all"
		}
		if a.Scope != want {
			t.Fatalf("scope %q", a.Scope)
		}
		return a.Data
	}
	names := func(items []item) string {
		var s []string
		for _, it := range items {
			s = append(s, it["attendee_name"].(string))
		}
		return strings.Join(s, ",")
	}

	all := get(t, "?scope=all")
	if names(all) != "Stranger,Mo,Carla" {
		t.Fatalf("scope=all, most recent first, five connected seats: %s", names(all))
	}
	stranger, mo, carla := all[0], all[1], all[2]
	repCheckPerson(t, stranger, true)
	repCheckPerson(t, carla, false)
	repCheckPerson(t, mo, false)
	if carla["account_id"] != ours[0] || mo["account_id"] != ours[1] || stranger["account_id"] != ours[5] {
		t.Fatalf("account ids: %v %v %v", carla["account_id"], mo["account_id"], stranger["account_id"])
	}
	if mo["attendee_provider_id"] != member || carla["unread_count"] != float64(1) || carla["id"] == "" {
		t.Fatalf("fields: %v", carla)
	}
	lm, _ := carla["last_message"].(map[string]any)
	if lm["text"] != "hello from carla" || lm["from_me"] != false || lm["at"] != "2026-07-10T09:00:00.000Z" {
		t.Fatalf("last_message %v", carla["last_message"])
	}

	if got := names(get(t, "")); got != "Mo,Carla" {
		t.Fatalf("default scope=campaign keeps campaign people only: %s", got)
	}
	if got := names(get(t, "?scope=all&limit=1")); got != "Stranger" {
		t.Fatalf("limit=1: %s", got)
	}

	t.Run("not wired answers 503", func(t *testing.T) {
		bare, err := api.NewServer(st, api.Deps{}, api.Config{PublicURL: "https://outreach.example.com"})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(bare.Handler())
		defer hs.Close()
		r := testenv.Client{Base: hs.URL, Key: key}.Do(t, "GET", "/api/v1/inbox", nil)
		if r.Status != 503 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("LinkedIn failing answers 502 without details", func(t *testing.T) {
		if err := sim.InjectDisconnect(accID(1)); err != nil {
			t.Fatal(err)
		}
		r := c.Do(t, "GET", "/api/v1/inbox?scope=all", nil)
		if r.Status != 502 || strings.Contains(string(r.Body), "linkedin:") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}
