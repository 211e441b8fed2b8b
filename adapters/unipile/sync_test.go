package unipile_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"outreachd/adapters/unipile"
	"outreachd/adapters/unipile/unipilefake"
	"outreachd/engine"
	"outreachd/outreach"
)

// newSync is a reconciliation over inbox on the fake's clock.
func (e *penv) newSync(t *testing.T, inbox *engine.ProviderInbox, interval time.Duration) *unipile.Sync {
	t.Helper()
	s, err := unipile.NewSync(e.p, inbox, unipile.SyncConfig{Interval: interval, Now: e.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *penv) runSync(t *testing.T, s *unipile.Sync) unipile.SyncStats {
	t.Helper()
	st, err := s.RunOnce(e.ctx)
	if err != nil || st.Failed > 0 {
		t.Fatalf("sync: %+v %v", st, err)
	}
	return st
}

// TestSyncFindsWhatWebhooksMissed: an acceptance whose new_relation never comes and a reply
// whose webhook was lost are found by the reconciliation; a reply the webhook delivered is not
// reported twice, and a late new_relation does not repeat the acceptance the sync found.
func TestSyncFindsWhatWebhooksMissed(t *testing.T) {
	e := newProviderEnv(t)
	e.clock.mu.Lock()
	e.clock.at = time.Now().UTC()
	e.clock.mu.Unlock()
	e.register(t)
	sync := e.newSync(t, e.inbox, 30*time.Second)
	if _, err := e.p.SendInvite(e.ctx, e.seat.ID, outreach.ProfileRef{ProfileKey: "in:ada-lovelace"}, ""); err != nil {
		t.Fatal(err)
	}
	if st := e.runSync(t, sync); st.Seats != 1 || st.Reports != 0 {
		t.Fatalf("first run: %+v", st)
	}
	if err := e.fake.AcceptInvitation(e.seat.ID, e.ada.ProviderID, unipilefake.AcceptOptions{WithholdNewRelation: true}); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	if r := e.reports(t); len(r) != 0 {
		t.Fatalf("reports before the sync: %+v", r)
	}
	e.clock.advance(time.Minute)
	if st := e.runSync(t, sync); st.Seats != 1 {
		t.Fatalf("second run: %+v", st)
	}
	acc := reportsOf(e.reports(t), "invite_accepted")
	if len(acc) != 1 || acc[0].ProfileKey != "in:ada-lovelace" || acc[0].ProviderID != e.ada.ProviderID {
		t.Fatalf("the withheld acceptance: %+v", acc)
	}

	if _, err := e.fake.Reply(e.seat.ID, e.ada.ProviderID, "Delivered reply"); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	e.fake.LoseWebhooks(1)
	e.clock.advance(time.Second)
	if _, err := e.fake.Reply(e.seat.ID, e.ada.ProviderID, "Lost reply"); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	if r := reportsOf(e.reports(t), "message_received"); len(r) != 1 {
		t.Fatalf("replies before the sync: %+v", r)
	}
	e.clock.advance(time.Minute)
	e.runSync(t, sync)
	replies := reportsOf(e.reports(t), "message_received")
	if len(replies) != 2 || replies[0].Text != "Delivered reply" || replies[1].Text != "Lost reply" {
		t.Fatalf("replies after the sync: %+v", replies)
	}
	if replies[1].ProfileKey != "in:ada-lovelace" {
		t.Errorf("the lost reply is keyed %q, want Ada's lead key", replies[1].ProfileKey)
	}
	// new_relation arrives at last: the acceptance is not reported again.
	late := []byte(`{"event":"new_relation","account_id":"` + e.seat.ID + `","account_type":"LINKEDIN",
		"user_full_name":"Ada Lovelace","user_provider_id":"` + e.ada.ProviderID + `","user_public_identifier":"ada-lovelace"}`)
	if got := e.post(t, unipile.WebhookPath, testSecret, late); got != http.StatusOK {
		t.Fatalf("late new_relation: %d", got)
	}
	if acc := reportsOf(e.reports(t), "invite_accepted"); len(acc) != 1 {
		t.Errorf("acceptances after the late webhook: %+v", acc)
	}
	// A disconnection whose webhook was lost is found too.
	e.fake.LoseWebhooks(1)
	if err := e.fake.Disconnect(e.seat.ID); err != nil {
		t.Fatal(err)
	}
	e.fake.WaitWebhooks()
	e.clock.advance(time.Minute)
	e.runSync(t, sync)
	if d := reportsOf(e.reports(t), "account_disconnected"); len(d) != 1 {
		t.Errorf("disconnections: %+v", d)
	}
}

// TestSyncOneInstanceAtATime: instances running the reconciliation together sync each seat once
// per interval.
func TestSyncOneInstanceAtATime(t *testing.T) {
	e := newProviderEnv(t)
	var wg sync.WaitGroup
	stats := make([]unipile.SyncStats, 3)
	for i := range stats {
		inbox, err := engine.NewProviderInbox(e.st, "unipile")
		if err != nil {
			t.Fatal(err)
		}
		s := e.newSync(t, inbox, time.Hour)
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[i] = e.runSync(t, s)
		}()
	}
	wg.Wait()
	seats := 0
	for _, st := range stats {
		seats += st.Seats
	}
	if seats != 1 {
		t.Errorf("the seat was synced %d times by %d instances, want once", seats, len(stats))
	}
	if n := e.fake.Calls("GET", "/api/v1/accounts/{id}", "", ""); n != 1 {
		t.Errorf("%d account reads, want 1", n)
	}
}
