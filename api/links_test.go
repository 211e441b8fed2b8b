package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// TestEventLinksResolve: the links event payloads carry (needs_human.inbox_url,
// account.reconnect_url, report.share_url) are on PUBLIC_URL and resolve: with a key to the
// right resource (200), without one to a 401. Real events give the conversation and account
// links; the samples of GET /event-types give the report links (a report exists for any period).
func TestEventLinksResolve(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000", "SIMULATOR_SPEED=1")
	org := testenv.NewOrg(t, srv)
	anon := testenv.Client{Base: srv.URL}
	acc := testenv.Admin(t, srv.DBURL, "account", "connect", "--org", org.ID, "--name", "Link Seller")["account_id"].(string)
	cid := cpCreate(t, org.Write, map[string]any{"name": "Links",
		"schedule": map[string]any{"timezone": "UTC", "startTime": "00:00", "endTime": "23:59"}})["id"].(string)
	testenv.Admin(t, srv.DBURL, "campaign", "set-status", "--campaign", cid, "--status", "active")
	r := org.Write.Do(t, "POST", "/api/v1/campaigns/"+cid+"/leads", map[string]any{"leads": []any{lead("link-lea", "name", "Lea Link")}})
	wantStatus(t, r, 202)
	pid := list(r.JSON["accepted"])[0]["lead_id"].(string)
	testenv.EventuallyTrue(t, 15*time.Second, "the invitation", func() bool {
		g := org.Read.Do(t, "GET", "/api/v1/prospects/"+pid, nil)
		return g.JSON["data"].(map[string]any)["status"] == "connection_sent"
	})
	testenv.Admin(t, srv.DBURL, "simulate", "accept", "--prospect", pid)
	chat := testenv.Admin(t, srv.DBURL, "simulate", "reply", "--prospect", pid, "--text", "Could you send me an email with the details?")["chat_id"].(string)
	testenv.Admin(t, srv.DBURL, "simulate", "disconnect", "--account", acc)

	st, err := storage.Open(context.Background(), srv.DBURL, storage.Config{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var evs []outreach.Event
	testenv.EventuallyTrue(t, 15*time.Second, "needs_human and account_disconnected", func() bool {
		evs, err = st.OutboxEvents(context.Background(), org.ID)
		kinds := map[outreach.EventKind]bool{}
		for _, ev := range evs {
			kinds[ev.Kind] = true
		}
		return err == nil && kinds[outreach.EventNeedsHuman] && kinds[outreach.EventAccountDisconnected]
	})
	type link struct{ kind, url, wantID, idField string }
	var links []link
	for _, ev := range evs {
		switch {
		case ev.Data.NeedsHuman != nil:
			links = append(links, link{"inbox_url", ev.Data.NeedsHuman.InboxURL, chat, "id"})
		case ev.Data.Account != nil && ev.Data.Account.ReconnectURL != "":
			links = append(links, link{"reconnect_url", ev.Data.Account.ReconnectURL, acc, "id"})
		}
	}
	types := org.Read.Do(t, "GET", "/api/v1/event-types", nil)
	wantStatus(t, types, 200)
	for _, et := range list(types.JSON["data"]) {
		rep, _ := et["sample"].(map[string]any)["data"].(map[string]any)["report"].(map[string]any)
		if u, _ := rep["share_url"].(string); u != "" {
			links = append(links, link{"share_url", u, rep["type"].(string), "type"})
		}
	}
	seen := map[string]bool{}
	for _, l := range links {
		seen[l.kind] = true
		t.Run(l.kind, func(t *testing.T) {
			if !strings.HasPrefix(l.url, srv.URL+"/api/v1/") {
				t.Fatalf("%s %q is not a keyed resource on PUBLIC_URL %s", l.kind, l.url, srv.URL)
			}
			path := strings.TrimPrefix(l.url, srv.URL)
			g := org.Read.Do(t, "GET", path, nil)
			wantStatus(t, g, 200)
			if got := g.JSON["data"].(map[string]any)[l.idField]; got != l.wantID {
				t.Fatalf("%s answered %s = %v, want %s: %s", path, l.idField, got, l.wantID, g.Body)
			}
			wantCode(t, anon.Do(t, "GET", path, nil), 401, "invalid_api_key")
			other := testenv.NewOrg(t, srv)
			if l.kind != "share_url" {
				wantCode(t, other.Read.Do(t, "GET", path, nil), 404, "not_found")
			}
		})
	}
	for _, k := range []string{"inbox_url", "reconnect_url", "share_url"} {
		if !seen[k] {
			t.Errorf("no %s was followed", k)
		}
	}
}
