package storage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// A store opened without the delivery hub's store commits changes but refuses to commit events,
// whose deliveries it could not write: the transaction rolls back, and no event reaches the
// outbox without them.
func TestStoreWithoutDeliveriesRefusesEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := storage.Open(ctx, testenv.DatabaseURL(t), storage.Config{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	org, err := st.CreateOrg(ctx, "o", nil)
	if err != nil {
		t.Fatalf("a change without events: %v", err)
	}
	err = st.InTx(ctx, func(tx *storage.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE orgs SET name = 'renamed' WHERE id = $1`, org.ID); err != nil {
			return err
		}
		tx.Emit(outreach.SampleEvent(outreach.EventCampaignStarted, org.ID, time.Now()))
		return nil
	})
	if !errors.Is(err, storage.ErrNoDeliveries) {
		t.Fatalf("committing an event without the hub's store: %v, want ErrNoDeliveries", err)
	}
	evs, err := st.OutboxEvents(ctx, org.ID)
	if err != nil || len(evs) != 0 {
		t.Fatalf("outbox after the refusal: %v %v, want nothing", evs, err)
	}
	got, err := st.GetOrg(ctx, org.ID)
	if err != nil || got.Name != "o" {
		t.Fatalf("the refused transaction's change: %+v %v, want it rolled back", got, err)
	}
}
