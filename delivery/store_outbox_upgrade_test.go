package delivery_test

import (
	"context"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// An upgrade from the outbox-consumer design: the events the old consumer group ("fanout") had
// not read when the old processes stopped get their deliveries at start-up (Migrate), with the
// ids the fan-out gives them; the events it had read get none (they were delivered), and the old
// group's position is forgotten, so a second start does nothing, and two starting at once catch up
// only once.
func TestMigrateFansOutWhatTheOldConsumerLeft(t *testing.T) {
	t.Parallel()
	st, ds := testenv.Stores(t)
	ctx := context.Background()
	org := testenv.StoreOrg(t, st)
	// Four events committed while the organization had no destination: no deliveries.
	var events []outreach.Event
	for range 4 {
		ev := outreach.SampleEvent(outreach.EventCampaignStarted, org, time.Now())
		events = append(events, ev)
		if err := st.InTx(ctx, func(tx *storage.Tx) error { tx.Emit(ev); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	dst, err := ds.CreateDestination(ctx, delivery.Destination{OrgID: org, Name: "d", Kind: outreach.DestinationHTTPS,
		URL: "https://receiver.example/hook", Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	// The old consumer had read the first two.
	if _, err := st.Pool().Exec(ctx, `INSERT INTO watermill_offsets_events (consumer_group, offset_acked, last_processed_transaction_id)
		SELECT 'fanout', "offset", transaction_id FROM watermill_events ORDER BY transaction_id, "offset" OFFSET 1 LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	for pass := range 2 {
		// The first start is two processes starting at once: between them they catch up once.
		starts := 1 + (1 - pass)
		errs := make(chan error, starts)
		for range starts {
			go func() { errs <- st.Migrate(ctx) }()
		}
		for range starts {
			if err := <-errs; err != nil {
				t.Fatalf("start %d: %v", pass+1, err)
			}
		}
		rows, err := st.Pool().Query(ctx, `SELECT id FROM deliveries WHERE destination_id = $1 ORDER BY id`, dst.ID)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			got = append(got, id)
		}
		rows.Close()
		queueMirrorsPending(t, ds) // the caught-up deliveries are in the dispatch queue
		want := []string{outreach.DeliveryID(events[2].ID, dst.ID), outreach.DeliveryID(events[3].ID, dst.ID)}
		if len(got) != 2 || got[0] != min(want[0], want[1]) || got[1] != max(want[0], want[1]) {
			t.Fatalf("start %d: deliveries %v, want those of the two unread events %v", pass+1, got, want)
		}
		var left int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*)::int FROM watermill_offsets_events WHERE consumer_group = 'fanout'`).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left != 0 {
			t.Fatalf("start %d: the old consumer's position is still there", pass+1)
		}
	}
}
