package unipile_test

import (
	"errors"
	"testing"
	"time"

	"outreachd/adapters/unipile"
	"outreachd/adapters/unipile/unipilefake"
	"outreachd/engine"
	"outreachd/outreach"
)

// TestReconnectLink: a seat whose Unipile account works needs no sign-in (no link is made);
// one whose session ended gets a hosted link of type reconnect for its account, which sends the
// person back to the return URL and, completed, connects the seat again through the call-back;
// an account Unipile does not hold is refused.
func TestReconnectLink(t *testing.T) {
	e := newProviderEnv(t)
	seats, err := unipile.NewSeats(e.c, e.inbox, unipile.SeatsConfig{PublicURL: e.srv.URL, Now: e.clock.now,
		ReturnURL: e.srv.URL + "/app/linkedin-accounts"})
	if err != nil {
		t.Fatal(err)
	}
	const linkPath = "/api/v1/hosted/accounts/link"
	if _, working, err := seats.ReconnectLink(e.ctx, e.orgID, "Sam", e.seat.ID); err != nil || !working {
		t.Fatalf("a working account: working %v, %v", working, err)
	}
	if n := e.fake.Calls("POST", linkPath, "", ""); n != 0 {
		t.Fatalf("%d links made for a working account", n)
	}

	if _, err := engine.DisconnectSeat(e.ctx, e.st.Pool(), e.orgID, e.seatID, "user:u1", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := e.fake.Disconnect(e.seat.ID); err != nil {
		t.Fatal(err)
	}
	link, working, err := seats.ReconnectLink(e.ctx, e.orgID, "Sam", e.seat.ID)
	if err != nil || working || link.URL == "" || !link.ExpiresAt.After(e.clock.now()) {
		t.Fatalf("a disconnected account: %+v, working %v, %v", link, working, err)
	}
	for field, want := range map[string]string{"type": "reconnect", "reconnect_account": e.seat.ID,
		"success_redirect_url": e.srv.URL + "/app/linkedin-accounts", "failure_redirect_url": e.srv.URL + "/app/linkedin-accounts",
		"notify_url": e.srv.URL + unipile.CallbackPath} {
		if n := e.fake.Calls("POST", linkPath, field, want); n != 1 {
			t.Errorf("the link was asked with %s = %q %d times, want 1", field, want, n)
		}
	}
	if _, err := e.fake.CompleteHostedAuth(link.URL, unipilefake.Seat{}); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	seat := e.seatsOf(t)[e.seat.ID]
	if seat.Status != "connected" || seat.DisconnectedBy != nil || seat.AccountID != e.seatID {
		t.Fatalf("the seat after the reconnect call-back: %+v", seat)
	}
	if n := len(e.seatsOf(t)); n != 1 {
		t.Fatalf("%d seats after a reconnect, want the one", n)
	}

	if _, _, err := seats.ReconnectLink(e.ctx, e.orgID, "Ghost", "acc_unknown_to_unipile"); !errors.Is(err, outreach.ErrUnknownAccount) {
		t.Fatalf("an account Unipile does not hold: %v", err)
	}
	if _, err := unipile.NewSeats(e.c, e.inbox, unipile.SeatsConfig{PublicURL: e.srv.URL, ReturnURL: "/app/linkedin-accounts"}); err == nil {
		t.Fatal("a relative return URL was accepted")
	}
}
