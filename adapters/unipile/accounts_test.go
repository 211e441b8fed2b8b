package unipile_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"outreachd/adapters/unipile"
	"outreachd/adapters/unipile/unipilefake"
)

func TestConfigDSN(t *testing.T) {
	for _, tc := range []struct {
		dsn, want, err string
	}{
		{dsn: "api8.unipile.com:13851", want: "https://api8.unipile.com:13851"},
		{dsn: " api8.unipile.com:13851 ", want: "https://api8.unipile.com:13851"},
		{dsn: "http://127.0.0.1:4010", want: "http://127.0.0.1:4010"},
		{dsn: "https://gw.example.com/unipile/", want: "https://gw.example.com/unipile"},
		{dsn: "", err: "DSN is required"},
		{dsn: "ftp://host", err: "scheme must be https or http"},
		{dsn: "https://user:pw@host", err: "without credentials"},
		{dsn: "https://host?x=1", err: "without credentials, query"},
	} {
		t.Run(tc.dsn, func(t *testing.T) {
			c, err := unipile.NewClient(unipile.Config{DSN: tc.dsn, APIKey: "k"})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.BaseURL() != tc.want {
				t.Fatalf("base = %q, want %q", c.BaseURL(), tc.want)
			}
		})
	}
	for _, cfg := range []unipile.Config{
		{DSN: "h:1"},
		{DSN: "h:1", APIKey: "k", Timeout: -time.Second},
		{DSN: "h:1", APIKey: "k", MaxResponseBytes: -1},
	} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("Validate(%+v) accepted it", cfg)
		}
	}
}

func TestAccounts(t *testing.T) {
	e := newEnv(t)
	second, err := e.fake.AddSeat(unipilefake.Seat{Name: "Plain", Owner: unipilefake.Person{FirstName: "Pat"}})
	if err != nil {
		t.Fatal(err)
	}
	third, err := e.fake.AddSeat(unipilefake.Seat{Name: "Third", Owner: unipilefake.Person{FirstName: "Tess"}})
	if err != nil {
		t.Fatal(err)
	}
	var pages int
	all, err := unipile.Collect(e.ctx, 10, func(ctx context.Context, cursor string) (unipile.Page[unipile.Account], error) {
		pages++
		return e.c.ListAccounts(ctx, unipile.ListOptions{Cursor: cursor})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || pages != 2 || all[0].ID != e.seat.ID || all[2].ID != third.ID {
		t.Fatalf("got %d accounts in %d pages: %+v", len(all), pages, all)
	}

	a, err := e.c.GetAccount(e.ctx, e.seat.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Type != "LINKEDIN" || a.Name != "Sam Seller" || a.Status() != unipile.SourceOK || a.CreatedAt.IsZero() {
		t.Fatalf("account = %+v", a)
	}
	if a.OwnerID() != e.seat.Owner.ProviderID || !a.SalesNavigator() || !a.Premium() {
		t.Fatalf("owner %q (want %q), sales nav %v, premium %v", a.OwnerID(), e.seat.Owner.ProviderID, a.SalesNavigator(), a.Premium())
	}
	plain, err := e.c.GetAccount(e.ctx, second.ID)
	if err != nil {
		t.Fatal(err)
	}
	if plain.SalesNavigator() || plain.Premium() {
		t.Fatalf("a seat without a paid plan reads as paid: %+v", plain.ConnectionParams)
	}

	if err := e.fake.Disconnect(e.seat.ID); err != nil {
		t.Fatal(err)
	}
	a, err = e.c.GetAccount(e.ctx, e.seat.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status() != unipile.SourceCredentials {
		t.Fatalf("status after disconnect = %q", a.Status())
	}
	_, err = e.c.GetAccount(e.ctx, "no-such-account")
	mustClass(t, err, unipile.ClassNotFound)
}

func TestAccountStatusIsTheWorstSource(t *testing.T) {
	for _, tc := range []struct {
		sources []unipile.SourceStatus
		want    unipile.SourceStatus
	}{
		{nil, ""},
		{[]unipile.SourceStatus{"OK"}, "OK"},
		{[]unipile.SourceStatus{"OK", "CONNECTING"}, "CONNECTING"},
		{[]unipile.SourceStatus{"STOPPED", "CREDENTIALS", "OK"}, "CREDENTIALS"},
		{[]unipile.SourceStatus{"OK", "SOMETHING_NEW"}, "SOMETHING_NEW"},
	} {
		var a unipile.Account
		for _, s := range tc.sources {
			a.Sources = append(a.Sources, unipile.AccountSource{Status: s})
		}
		if got := a.Status(); got != tc.want {
			t.Errorf("Status(%v) = %q, want %q", tc.sources, got, tc.want)
		}
	}
}

func TestHostedAuthLink(t *testing.T) {
	e := newEnv(t)
	notify := e.receiver(t)
	expires := e.clock.now().Add(time.Hour)
	link, err := e.c.CreateHostedAuthLink(e.ctx, unipile.HostedAuthLink{
		Type: "create", Providers: []string{"LINKEDIN"}, ExpiresOn: expires,
		NotifyURL: notify.URL(), Name: "link-42",
	})
	if err != nil {
		t.Fatal(err)
	}
	sent := e.fake.Requests()[len(e.fake.Requests())-1].Fields
	if got := sent.Get("expiresOn"); got != unipile.FormatTime(expires) || len(got) != len("2025-12-31T23:59:59.999Z") {
		t.Fatalf("expiresOn sent as %q", got)
	}
	if sent.Get("api_url") != e.c.BaseURL() || sent.Get("providers") != "LINKEDIN" || sent.Get("type") != "create" {
		t.Fatalf("link request fields = %v", sent)
	}
	id, err := e.fake.CompleteHostedAuth(link, unipilefake.Seat{Name: "New seat", Owner: unipilefake.Person{FirstName: "Nina"}})
	if err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	calls := notify.Calls()
	if len(calls) != 1 {
		t.Fatalf("notify_url got %d calls", len(calls))
	}
	ev, err := unipile.ParseWebhook(strings.NewReader(string(calls[0].Body)), 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind != unipile.EventAccountCallback || ev.Callback.Status != "CREATION_SUCCESS" || ev.Callback.AccountID != id || ev.Callback.Name != "link-42" {
		t.Fatalf("call-back = %+v", ev.Callback)
	}
	if _, err := e.c.GetAccount(e.ctx, id); err != nil {
		t.Fatalf("the new account is not readable: %v", err)
	}
	if _, err := e.fake.CompleteHostedAuth(link, unipilefake.Seat{}); err == nil {
		t.Fatal("a link was used twice")
	}

	// A reconnect link brings a disconnected seat back.
	if err := e.fake.Disconnect(e.seat.ID); err != nil {
		t.Fatal(err)
	}
	link, err = e.c.CreateHostedAuthLink(e.ctx, unipile.HostedAuthLink{Type: "reconnect", ReconnectAccount: e.seat.ID, ExpiresOn: expires, NotifyURL: notify.URL(), Name: "again"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.fake.CompleteHostedAuth(link, unipilefake.Seat{}); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	var cb map[string]string
	if err := json.Unmarshal(notify.Calls()[1].Body, &cb); err != nil || cb["status"] != "RECONNECTED" || cb["account_id"] != e.seat.ID {
		t.Fatalf("reconnect call-back = %s (%v)", notify.Calls()[1].Body, err)
	}
	if a, _ := e.c.GetAccount(e.ctx, e.seat.ID); a.Status() != unipile.SourceOK {
		t.Fatalf("status after reconnect = %q", a.Status())
	}

	for _, bad := range []unipile.HostedAuthLink{
		{Type: "create", ExpiresOn: expires},
		{Type: "reconnect", ExpiresOn: expires},
		{Type: "other", ExpiresOn: expires},
		{Type: "create", Providers: []string{"LINKEDIN"}},
	} {
		_, err := e.c.CreateHostedAuthLink(e.ctx, bad)
		mustClass(t, err, unipile.ClassRejected)
	}
	// The fake holds the reference's rule: an expiry in the past is refused.
	_, err = e.c.CreateHostedAuthLink(e.ctx, unipile.HostedAuthLink{Type: "create", Providers: []string{"LINKEDIN"}, ExpiresOn: e.clock.now().Add(-time.Minute)})
	mustClass(t, err, unipile.ClassRejected)
}
