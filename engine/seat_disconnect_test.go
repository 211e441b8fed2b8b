package engine_test

import (
	"errors"
	"testing"
	"time"

	"outreachd/engine"
	"outreachd/outreach"
)

// TestDisconnectSeatByPerson: a seat a person disconnected takes no action, stays disconnected
// whatever the provider reports of its account (works again, rate limited), belongs to its own
// organization only, and comes back when it is connected again; a seat LinkedIn dropped still
// comes back on the provider's word.
func TestDisconnectSeatByPerson(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	w.push(cid, "ida")
	w.enrich()

	other, err := w.st.CreateOrg(w.ctx, "Another org", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, org, actor string
		want             error
	}{
		{"another organization's seat", other.ID, "user:u1", outreach.ErrNotFound},
		{"no actor", w.org, "", outreach.ErrInvalid},
	} {
		if _, err := engine.DisconnectSeat(w.ctx, w.st.Pool(), c.org, w.acc.ID, c.actor, w.clock.Now()); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if got := w.seatCaps(); got.Status != "connected" {
		t.Fatalf("a refused disconnect changed the seat: %+v", got)
	}

	acc, err := engine.DisconnectSeat(w.ctx, w.st.Pool(), w.org, w.acc.ID, "user:u1", w.clock.Now())
	if err != nil || acc.Status != "disconnected" || acc.DisconnectedBy == nil || *acc.DisconnectedBy != "user:u1" {
		t.Fatalf("disconnect: %+v, %v", acc, err)
	}
	row := w.seatCaps()
	if row.Status != "disconnected" || row.DisconnectedAt == nil || row.DisconnectedBy == nil || *row.DisconnectedBy != "user:u1" {
		t.Fatalf("seat row after the disconnect: %+v", row)
	}
	w.pass()
	if got := w.sends("invite_sent"); got != 0 {
		t.Fatalf("%d invitations from a disconnected seat", got)
	}

	n := len(w.events())
	cli := w.cliEngine()
	for _, k := range []outreach.LinkedInReportKind{outreach.ReportAccountReconnected, outreach.ReportAccountRateLimited} {
		if _, err := cli.Simulate(w.ctx, engine.OperatorReport{Kind: k, AccountID: w.acc.ID}, time.Second); err != nil {
			t.Fatal(err)
		}
		if got := w.seatCaps(); got.Status != "disconnected" || got.DisconnectedBy == nil {
			t.Fatalf("after the provider's %s the seat is %+v", k, got)
		}
	}
	wantKinds(t, w.since(n))

	if _, err := engine.ConnectSeat(w.ctx, w.st.Pool(), w.org, "Sam Seller", w.acc.ProviderAccountID); err != nil {
		t.Fatal(err)
	}
	if got := w.seatCaps(); got.Status != "connected" || got.DisconnectedBy != nil || got.DisconnectedAt != nil {
		t.Fatalf("connected again: %+v", got)
	}
	w.clock.Advance(15 * time.Minute) // a campaign whose seat was down looks again a quarter of an hour later
	w.pass()
	if got := w.sends("invite_sent"); got != 1 {
		t.Fatalf("%d invitations once connected again, want 1", got)
	}

	// LinkedIn's own disconnection is undone by the provider's word, as before.
	n = len(w.events())
	for _, k := range []outreach.LinkedInReportKind{outreach.ReportAccountDisconnected, outreach.ReportAccountReconnected} {
		if _, err := cli.Simulate(w.ctx, engine.OperatorReport{Kind: k, AccountID: w.acc.ID}, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	wantKinds(t, w.since(n), "account_disconnected", "account_reconnected")
	if got := w.seatCaps(); got.Status != "connected" {
		t.Fatalf("after LinkedIn's disconnect and reconnect: %+v", got)
	}
}
