package unipile_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"outreachd/adapters/unipile"
	"outreachd/api"
	"outreachd/engine"
	"outreachd/internal/testenv"
	"outreachd/storage"
)

// The provider's ports, as the engine and the API declare them.
var (
	_ engine.LinkedIn = (*unipile.Provider)(nil)
	_ api.InboxReader = (*unipile.Provider)(nil)

	_ unipile.ProviderStore = (*engine.ProviderInbox)(nil)
	_ unipile.Inbox         = (*engine.ProviderInbox)(nil)
	_ unipile.SeatStore     = (*engine.ProviderInbox)(nil)
	_ unipile.SyncStore     = (*engine.ProviderInbox)(nil)
	_ unipile.Locker        = (*engine.ProviderInbox)(nil)
)

const testSecret = "webhook-secret-0123456789"

// penv is env with the service's side: a database holding an organization whose seat is the
// fake's, the engine's inbox for Unipile, the provider, and the API's router serving the
// webhook and call-back endpoints at srv.
type penv struct {
	*env
	st     *storage.Store
	inbox  *engine.ProviderInbox
	p      *unipile.Provider
	orgID  string
	seatID string // ours
	srv    *httptest.Server
	in     *unipile.Inbound
	seats  *unipile.Seats
}

func newProviderEnv(t *testing.T) *penv {
	t.Helper()
	e := &penv{env: newEnv(t), st: testenv.Store(t)}
	org, err := e.st.CreateOrg(e.ctx, "Acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	e.orgID = org.ID
	acc, err := engine.ConnectSeat(e.ctx, e.st.Pool(), org.ID, "Sam", e.seat.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.seatID = acc.ID
	if e.inbox, err = engine.NewProviderInbox(e.st, "unipile"); err != nil {
		t.Fatal(err)
	}
	if e.p, err = unipile.NewProvider(e.c, e.inbox, unipile.ProviderConfig{Now: e.clock.now}); err != nil {
		t.Fatal(err)
	}
	e.serve(t, e.inbox)
	return e
}

// serve starts the API's router with the webhook receiver (storing into inbox) and the
// sign-in call-back mounted as serve mounts them.
func (e *penv) serve(t *testing.T, inbox unipile.Inbox) {
	t.Helper()
	var err error
	e.srv = httptest.NewUnstartedServer(nil)
	public := "http://" + e.srv.Listener.Addr().String()
	if e.in, err = unipile.NewInbound(e.p, inbox, unipile.InboundConfig{Secret: testSecret, Now: e.clock.now}); err != nil {
		t.Fatal(err)
	}
	if e.seats, err = unipile.NewSeats(e.c, e.inbox, unipile.SeatsConfig{PublicURL: public, Now: e.clock.now}); err != nil {
		t.Fatal(err)
	}
	srv, err := api.NewServer(e.st, api.Deps{Extra: []func(v1, root *mux.Router, h api.Helpers){
		func(_, root *mux.Router, h api.Helpers) {
			rs := unipile.Responder{JSON: h.WriteJSON, Fail: h.Fail}
			root.Handle(unipile.WebhookPath, e.in.WebhookHandler(rs)).Methods(http.MethodPost)
			root.Handle(unipile.CallbackPath, e.seats.CallbackHandler(rs)).Methods(http.MethodPost)
		}}}, api.Config{PublicURL: public})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Config.Handler = srv.Handler()
	e.srv.Start()
	t.Cleanup(e.srv.Close)
}

// report is a row of the engine's report table.
type report struct {
	Kind, DedupeKey, ProfileKey, ProviderID, ChatID, MessageID, Text string
	CooldownHours                                                    int
	CooldownUntil                                                    *time.Time
}

func (e *penv) reports(t *testing.T) []report {
	t.Helper()
	rows, err := e.st.Pool().Query(e.ctx, `SELECT kind, coalesce(dedupe_key, ''), coalesce(profile_key, ''),
		coalesce(provider_id, ''), coalesce(chat_id, ''), coalesce(message_id, ''), coalesce(text, ''),
		coalesce(cooldown_hours, 0), cooldown_until FROM provider_reports ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []report
	for rows.Next() {
		var r report
		if err := rows.Scan(&r.Kind, &r.DedupeKey, &r.ProfileKey, &r.ProviderID, &r.ChatID, &r.MessageID, &r.Text, &r.CooldownHours, &r.CooldownUntil); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// reportsOf keeps the reports of one kind.
func reportsOf(rs []report, kind string) []report {
	var out []report
	for _, r := range rs {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// count runs a counting query.
func (e *penv) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := e.st.Pool().QueryRow(e.ctx, sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
