package api_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"outreachd/internal/testenv"
)

// A Test send's webhook-id is its attempt's delivery_id, so what the receiver logged and what
// the attempt log shows can be matched; a destination created without a signing secret is
// accepted with a warning; a deleted destination disappears but its history stays readable.
func TestDestinationTestIDWarningsAndDeletedHistory(t *testing.T) {
	t.Parallel()
	db := testenv.DatabaseURL(t)
	srv := testenv.StartServer(t, db)
	org := testenv.NewOrg(t, srv)
	rc := newReceiver(t, 200)

	r := org.Write.Do(t, "POST", "/api/v1/destinations", map[string]any{"url": rc.URL + "/hook"})
	warnings, _ := r.JSON["warnings"].([]any)
	if r.Status != 201 || len(warnings) != 1 || !strings.Contains(warnings[0].(string), "no signing secret") {
		t.Fatalf("an unsigned destination is created with a warning: %d %s", r.Status, r.Body)
	}
	id := data(t, r)["id"].(string)
	signed := org.Write.Do(t, "POST", "/api/v1/destinations", map[string]any{"url": rc.URL + "/signed", "secret": "generate"})
	if _, has := signed.JSON["warnings"]; signed.Status != 201 || has {
		t.Fatalf("a signed destination has no warnings: %d %s", signed.Status, signed.Body)
	}

	if r := org.Write.Do(t, "POST", "/api/v1/destinations/"+id+"/test", nil); r.Status != 200 {
		t.Fatalf("test send: %d %s", r.Status, r.Body)
	}
	reqs := rc.requests()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests", len(reqs))
	}
	webhookID := reqs[0].header.Get("webhook-id")
	attempts := org.Read.Do(t, "GET", "/api/v1/destinations/"+id+"/attempts", nil)
	items, _ := attempts.JSON["data"].([]any)
	if len(items) != 1 || webhookID == "" || items[0].(map[string]any)["delivery_id"] != webhookID {
		t.Fatalf("webhook-id %q, attempt log %s", webhookID, attempts.Body)
	}

	// A pending delivery of the destination, as the fan-out leaves one.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO delivery_payloads (event_id, payload) VALUES ('evt_del1', '{}')`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO deliveries (id, org_id, destination_id, event_id, event_kind, dedupe_key,
		status, attempts, max_attempts, emitted_at, created_at, next_attempt_at)
		VALUES ('dlv_del1', $1, $2, 'evt_del1', 'invite_sent', '\x02', 'pending', 1, 4, now(), now(), now() + interval '1 hour')`,
		org.ID, id); err != nil {
		t.Fatal(err)
	}

	if r := org.Write.Do(t, "DELETE", "/api/v1/destinations/"+id, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/v1/destinations/" + id}, {"PATCH", "/api/v1/destinations/" + id}, {"DELETE", "/api/v1/destinations/" + id},
		{"POST", "/api/v1/destinations/" + id + "/test"}, {"POST", "/api/v1/deliveries/dlv_del1/resend"},
	} {
		var body any
		if c.method == "PATCH" {
			body = map[string]any{"enabled": true}
		}
		if r := org.Write.Do(t, c.method, c.path, body); r.Status != 404 {
			t.Fatalf("%s %s after delete: %d %s", c.method, c.path, r.Status, r.Body)
		}
	}
	list := org.Read.Do(t, "GET", "/api/v1/destinations", nil)
	if got, _ := list.JSON["data"].([]any); len(got) != 1 {
		t.Fatalf("the deleted destination is listed: %s", list.Body)
	}
	// Its history stays readable by id: the attempt log and its deliveries (the pending one failed).
	attempts = org.Read.Do(t, "GET", "/api/v1/destinations/"+id+"/attempts", nil)
	if items, _ := attempts.JSON["data"].([]any); attempts.Status != 200 || len(items) != 1 {
		t.Fatalf("attempts of the deleted destination: %d %s", attempts.Status, attempts.Body)
	}
	dl := org.Read.Do(t, "GET", "/api/v1/deliveries?destination_id="+id, nil)
	ds, _ := dl.JSON["data"].([]any)
	if dl.Status != 200 || len(ds) != 1 || ds[0].(map[string]any)["status"] != "failed" ||
		ds[0].(map[string]any)["last_error"] != "destination deleted" {
		t.Fatalf("deliveries of the deleted destination: %d %s", dl.Status, dl.Body)
	}
	// Another organization cannot read it.
	other := testenv.NewOrg(t, srv)
	if r := other.Read.Do(t, "GET", "/api/v1/destinations/"+id+"/attempts", nil); r.Status != 404 {
		t.Fatalf("other org reads the attempts: %d %s", r.Status, r.Body)
	}
}
