package delivery_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// Everything that makes deliveries due now wakes the dispatchers of every process with one
// NOTIFY deliveries after its commit (Store.wakeDispatchers): a committed event with
// deliveries, an operator's resend and an operator's recover. Without it a delivery would wait
// for the dispatchers' idle poll, which the hub tests' generous waits would not notice.
func TestDueDeliveriesWakeTheDispatchers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ds, listener := storeAndConnection(t, nil)
	if _, err := listener.Exec(ctx, "LISTEN "+delivery.NotifyDeliveries); err != nil {
		t.Fatal(err)
	}
	woken := func(what string) {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if _, err := listener.WaitForNotification(wctx); err != nil {
			t.Fatalf("%s: no NOTIFY %s: %v", what, delivery.NotifyDeliveries, err)
		}
	}

	org, _ := orgWithDestinations(t, st, ds, 1)
	commitEvent(t, st, org.ID)
	woken("a committed event with a delivery")

	got, err := ds.ClaimDue(ctx, delivery.ClaimDueParams{Limit: 10, Lease: time.Minute})
	if err != nil || len(got) != 1 {
		t.Fatalf("claimed %d (%v), want 1", len(got), err)
	}
	rec := firstAttempts(got, 500, delivery.DeliveryFailed)
	if err := ds.RecordAttempts(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := ds.ResendDelivery(ctx, org.ID, got[0].ID); err != nil {
		t.Fatal(err)
	}
	woken("a resend")

	again, err := ds.ClaimDue(ctx, delivery.ClaimDueParams{Retries: true, Limit: 10, Lease: time.Minute})
	if err != nil || len(again) != 1 {
		t.Fatalf("claimed %d after the resend (%v), want 1", len(again), err)
	}
	rec = firstAttempts(again, 500, delivery.DeliveryFailed)
	rec[0].Attempt = 2
	if err := ds.RecordAttempts(ctx, rec); err != nil {
		t.Fatal(err)
	}
	n, err := ds.RecoverDeliveries(ctx, org.ID, "", time.Now().Add(-time.Hour), time.Now().Add(time.Hour), 1)
	if err != nil || n != 1 {
		t.Fatalf("recovered %d (%v), want 1", n, err)
	}
	woken("a recover")
}

// A process that closes its store right after a commit it announced (the operator CLI) keeps its
// connections for 50 ms (closeGrace) after the wake-up: ending them at once competed for the
// database host's cores with the dispatch of the event just committed.
func TestCloseWaitsAfterItsLastWakeUp(t *testing.T) {
	t.Parallel()
	st, ds, _ := storeAndConnection(t, nil)
	org, _ := orgWithDestinations(t, st, ds, 1)
	commitEvent(t, st, org.ID)
	committed := time.Now()
	st.Close()
	if held := time.Since(committed); held < 50*time.Millisecond {
		t.Fatalf("Close returned %s after a commit with deliveries, want at least 50ms after its wake-up", held)
	}
}

// commitEvent commits one campaign_started event of org in a business transaction.
func commitEvent(t *testing.T, st *storage.Store, orgID string) {
	t.Helper()
	if err := st.InTx(context.Background(), func(tx *storage.Tx) error {
		tx.Emit(outreach.SampleEvent(outreach.EventCampaignStarted, orgID, time.Now()))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// storeAndConnection opens the stores on a fresh database and, beside them, one connection of the
// test's own to the same database (tune, when not nil, adjusts its configuration first); both
// close when the test ends.
func storeAndConnection(t testing.TB, tune func(*pgx.ConnConfig)) (*storage.Store, *delivery.Store, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	url := testenv.DatabaseURL(t)
	st, ds := testenv.OpenStores(t, url, 2)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	if tune != nil {
		tune(cfg)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return st, ds, conn
}
