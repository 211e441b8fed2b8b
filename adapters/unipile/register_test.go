package unipile_test

import (
	"context"
	"sync"
	"testing"

	"outreachd/adapters/unipile"
)

// ours lists the registered webhooks pointing at the test server, by name.
func (e *penv) ours(t *testing.T) map[string][]unipile.Webhook {
	t.Helper()
	hooks, err := unipile.Collect(e.ctx, 50, func(ctx context.Context, cursor string) (unipile.Page[unipile.Webhook], error) {
		return e.c.ListWebhooks(ctx, unipile.ListOptions{Cursor: cursor})
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]unipile.Webhook{}
	for _, h := range hooks {
		if h.RequestURL == e.srv.URL+unipile.WebhookPath {
			out[h.Name] = append(out[h.Name], h)
		}
	}
	return out
}

func (e *penv) exactlyOneEach(t *testing.T, secret string) {
	t.Helper()
	got := e.ours(t)
	for _, name := range []string{"outreachd messaging", "outreachd users", "outreachd account_status"} {
		hs := got[name]
		if len(hs) != 1 {
			t.Errorf("%d webhooks named %q, want 1", len(hs), name)
			continue
		}
		auth, json := false, false
		for _, h := range hs[0].Headers {
			auth = auth || (h.Key == unipile.AuthHeader && h.Value == secret)
			json = json || (h.Key == "Content-Type" && h.Value == "application/json")
		}
		if !auth || !json {
			t.Errorf("%q headers %+v: want %s and a JSON Content-Type", name, hs[0].Headers, unipile.AuthHeader)
		}
	}
	if len(got) != 3 {
		t.Errorf("webhooks of ours: %v", got)
	}
}

func TestRegistrationWithoutDuplicates(t *testing.T) {
	e := newProviderEnv(t)
	// Someone else's webhook on the same tenant is left alone.
	if _, err := e.c.CreateWebhook(e.ctx, unipile.NewWebhook{Source: unipile.WebhookMessaging, RequestURL: "https://crm.example/hook", Name: "crm"}); err != nil {
		t.Fatal(err)
	}
	first, err := unipile.EnsureWebhooks(e.ctx, e.c, e.inbox, e.srv.URL, testSecret)
	if err != nil || first.Created != 3 {
		t.Fatalf("first registration: %+v %v", first, err)
	}
	again, err := unipile.EnsureWebhooks(e.ctx, e.c, e.inbox, e.srv.URL, testSecret)
	if err != nil || again.Created != 0 || again.Kept != 3 {
		t.Fatalf("second registration: %+v %v", again, err)
	}
	e.exactlyOneEach(t, testSecret)
	// A new secret replaces the registrations; a second one of ours is deleted.
	if _, err := e.c.CreateWebhook(e.ctx, unipile.NewWebhook{Source: unipile.WebhookUsers, RequestURL: e.srv.URL + unipile.WebhookPath, Name: "outreachd users"}); err != nil {
		t.Fatal(err)
	}
	rotated, err := unipile.EnsureWebhooks(e.ctx, e.c, e.inbox, e.srv.URL, "another-secret-0123456789")
	if err != nil || rotated.Created != 3 || rotated.Deleted != 4 {
		t.Fatalf("new secret: %+v %v", rotated, err)
	}
	e.exactlyOneEach(t, "another-secret-0123456789")
	if n := e.fake.Calls("GET", "/api/v1/webhooks", "", ""); n == 0 {
		t.Error("registration never listed the webhooks")
	}
	if n := e.fake.Calls("DELETE", "/api/v1/webhooks/{id}", "", ""); n != 4 {
		t.Errorf("%d webhooks deleted, want 4 (three with the old secret, one duplicate)", n)
	}
}

// TestRegistrationByTwoInstancesAtOnce: instances starting together take turns under the
// database's lock, so only one creates the webhooks.
func TestRegistrationByTwoInstancesAtOnce(t *testing.T) {
	e := newProviderEnv(t)
	var wg sync.WaitGroup
	results := make([]unipile.Registered, 4)
	errs := make([]error, len(results))
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = unipile.EnsureWebhooks(e.ctx, e.c, e.inbox, e.srv.URL, testSecret)
		}()
	}
	wg.Wait()
	created := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		created += r.Created
	}
	if created != 3 {
		t.Errorf("%d webhooks created by %d instances, want 3", created, len(results))
	}
	e.exactlyOneEach(t, testSecret)
}
