package unipile_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"outreachd/adapters/unipile/unipilefake"
	"outreachd/engine"
	"outreachd/outreach"
)

// seatsOf lists the organization's seats by provider account id.
func (e *penv) seatsOf(t *testing.T) map[string]engine.SeatRow {
	t.Helper()
	rows, err := engine.SeatRows(e.ctx, e.st.Pool(), e.orgID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]engine.SeatRow{}
	for _, r := range rows {
		out[r.ProviderAccountID] = r
	}
	return out
}

// callbackBody is the body of Unipile's call-back for a sign-in link.
func (e *penv) callbackBody(t *testing.T, status, accountID, name string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]string{"status": status, "account_id": accountID, "name": name})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSignInLink(t *testing.T) {
	e := newProviderEnv(t)
	link, err := e.seats.ConnectLink(e.ctx, e.orgID, "Nora")
	if err != nil {
		t.Fatal(err)
	}
	if !link.ExpiresAt.After(e.clock.now()) || link.URL == "" {
		t.Fatalf("link %+v", link)
	}
	if n := e.fake.Calls("POST", "/api/v1/hosted/accounts/link", "notify_url", e.srv.URL+"/api/providers/unipile/accounts"); n != 1 {
		t.Fatalf("%d links asked to call back at the accounts path", n)
	}
	if n := e.count(t, `SELECT count(*) FROM seat_links WHERE org_id = $1 AND name = 'Nora' AND used_at IS NULL`, e.orgID); n != 1 {
		t.Fatalf("%d links kept", n)
	}
	// The token is kept hashed only: the name Unipile got is in no column.
	var name string
	for _, r := range e.fake.Requests() {
		if r.Path == "/api/v1/hosted/accounts/link" {
			name = r.Fields.Get("name")
		}
	}
	if n := e.count(t, `SELECT count(*) FROM seat_links WHERE encode(token_hash, 'escape') LIKE '%' || $1 || '%'`, name[len("outreachd:"):]); n != 0 {
		t.Error("the token is kept in the clear")
	}
	nora := unipilefake.Seat{Name: "Nora", Owner: unipilefake.Person{FirstName: "Nora", LastName: "North"}}
	accountID, err := e.fake.CompleteHostedAuth(link.URL, nora)
	if err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	seat, ok := e.seatsOf(t)[accountID]
	if !ok || seat.Name != "Nora" || seat.Status != "connected" {
		t.Fatalf("seats after the call-back: %+v", e.seatsOf(t))
	}
	// Replayed: the link was used; nothing changes.
	if got := e.post(t, "/api/providers/unipile/accounts", "", e.callbackBody(t, "CREATION_SUCCESS", e.seat.ID, name)); got != http.StatusUnauthorized {
		t.Errorf("replayed call-back: %d", got)
	}
	if n := len(e.seatsOf(t)); n != 2 {
		t.Errorf("%d seats after the replay, want 2", n)
	}
}

func TestSignInLinkRefusals(t *testing.T) {
	e := newProviderEnv(t)
	other, err := e.fake.AddSeat(unipilefake.Seat{Name: "Olga", Owner: unipilefake.Person{FirstName: "Olga", LastName: "Ost"}})
	if err != nil {
		t.Fatal(err)
	}
	link, err := e.seats.ConnectLink(e.ctx, e.orgID, "Olga")
	if err != nil {
		t.Fatal(err)
	}
	var name string
	for _, r := range e.fake.Requests() {
		if r.Path == "/api/v1/hosted/accounts/link" {
			name = r.Fields.Get("name")
		}
	}
	cases := []struct {
		name    string
		body    []byte
		advance time.Duration
		want    int
	}{
		{"forged token", e.callbackBody(t, "CREATION_SUCCESS", other.ID, "outreachd:forged-token-0000"), 0, http.StatusUnauthorized},
		{"a name outreachd never gives", e.callbackBody(t, "CREATION_SUCCESS", other.ID, "someone"), 0, http.StatusUnauthorized},
		{"an account Unipile does not hold", e.callbackBody(t, "CREATION_SUCCESS", "no-such-account", name), 0, http.StatusUnauthorized},
		{"a failed sign-in", e.callbackBody(t, "ERROR", other.ID, name), 0, http.StatusBadRequest},
		{"not a call-back", []byte(`{"event":"new_relation"}`), 0, http.StatusBadRequest},
		{"expired", e.callbackBody(t, "CREATION_SUCCESS", other.ID, name), 2 * time.Hour, http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e.clock.advance(tc.advance)
			if got := e.post(t, "/api/providers/unipile/accounts", "", tc.body); got != tc.want {
				t.Errorf("status %d, want %d", got, tc.want)
			}
		})
	}
	if n := len(e.seatsOf(t)); n != 1 {
		t.Errorf("%d seats after refused call-backs, want 1", n)
	}
	if n := e.count(t, `SELECT count(*) FROM seat_links WHERE used_at IS NOT NULL`); n != 0 {
		t.Errorf("%d links used by refused call-backs", n)
	}
	if _, err := e.fake.CompleteHostedAuth(link.URL, unipilefake.Seat{}); err == nil {
		t.Error("the fake completed an expired link")
	}
}

func TestCheckAccount(t *testing.T) {
	e := newProviderEnv(t)
	if err := e.seats.CheckAccount(e.ctx, e.seat.ID); err != nil {
		t.Errorf("a held account: %v", err)
	}
	if err := e.seats.CheckAccount(e.ctx, "no-such-account"); !errors.Is(err, outreach.ErrUnknownAccount) {
		t.Errorf("an unknown account: %v", err)
	}
}
