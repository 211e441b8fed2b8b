package storage_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// oneEvent is the deliveries of one event to dests with the ids the hub derives, so two writers
// of the same event write the same rows.
func oneEvent(org string, dests []string) storage.NewDeliveries {
	nd := storage.NewDeliveries{EventID: outreach.NewID("evt"), EventKind: "campaign_started", OrgID: org,
		Payload: []byte(`{}`), EmittedAt: time.Now(), MaxAttempts: 4, DedupeWindow: time.Hour}
	for _, d := range dests {
		k := sha256.Sum256([]byte(d + nd.EventID))
		nd.IDs = append(nd.IDs, outreach.DerivedID("dlv", nd.EventID, d))
		nd.Destinations, nd.DedupeKeys, nd.Leased = append(nd.Destinations, d), append(nd.DedupeKeys, k[:]), append(nd.Leased, true)
	}
	return nd
}

// The hub's two fan-out paths (the direct hand-off and the outbox consumer) may both write one
// event: the second writes nothing, leases nothing, and its deliveries count as already there,
// not as collapsed payloads.
func TestInsertDeliveryBatchTwiceForOneEvent(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org, dests := twoDestinations(t, st)
	nd := oneEvent(org.ID, dests)
	insert := func() storage.InsertResult {
		t.Helper()
		tx, err := st.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx) //nolint:errcheck
		res, err := storage.InsertDeliveryBatch(ctx, tx, []storage.NewDeliveries{nd}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := insert()
	if first.Created != 2 || first.Existing != 0 || first.Collapsed != 0 || len(first.Leased) != 2 {
		t.Fatalf("first pass: %+v", first)
	}
	second := insert()
	if second.Created != 0 || second.Existing != 2 || second.Collapsed != 0 || len(second.Leased) != 0 {
		t.Fatalf("second pass: %+v, want nothing created or leased, 2 existing", second)
	}
}

// Two writers of one event at the same time: the second waits for the first's keys and, once the
// first commits, writes nothing; exactly one of them starts the sends.
func TestInsertDeliveryBatchConcurrentWriters(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org, dests := twoDestinations(t, st)
	nd := oneEvent(org.ID, dests)
	a, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Rollback(ctx) //nolint:errcheck
	ra, err := storage.InsertDeliveryBatch(ctx, a, []storage.NewDeliveries{nd}, time.Minute)
	if err != nil || ra.Created != 2 {
		t.Fatalf("writer A: %+v, %v", ra, err)
	}
	type out struct {
		res storage.InsertResult
		err error
	}
	bDone := make(chan out, 1)
	go func() {
		b, err := st.Pool().Begin(ctx)
		if err != nil {
			bDone <- out{err: err}
			return
		}
		defer b.Rollback(ctx) //nolint:errcheck
		res, err := storage.InsertDeliveryBatch(ctx, b, []storage.NewDeliveries{nd}, time.Minute)
		if err == nil {
			err = b.Commit(ctx)
		}
		bDone <- out{res, err}
	}()
	select {
	case o := <-bDone:
		t.Fatalf("writer B finished while A held the keys: %+v, %v", o.res, o.err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := a.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	o := <-bDone
	if o.err != nil || o.res.Created != 0 || len(o.res.Leased) != 0 {
		t.Fatalf("writer B after A's commit: %+v, %v; want nothing created or leased", o.res, o.err)
	}
	var n int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM deliveries WHERE event_id = $1`, nd.EventID).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d deliveries of the event, %v; want 2", n, err)
	}
}

// The commit hook sees a business transaction's events after it commits, as the outbox holds
// them, and never those of a transaction that rolled back.
func TestCommitHook(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org, err := st.CreateOrg(ctx, "o", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]storage.OutboxRow
	remove := st.OnCommit(func(rows []storage.OutboxRow) bool { got = append(got, rows); return true })
	ev := outreach.SampleEvent(outreach.EventCampaignStarted, org.ID, time.Now())
	if err := st.InTx(ctx, func(tx *storage.Tx) error { tx.Emit(ev); return nil }); err != nil {
		t.Fatal(err)
	}
	_ = st.InTx(ctx, func(tx *storage.Tx) error {
		tx.Emit(outreach.SampleEvent(outreach.EventCampaignStarted, org.ID, time.Now()))
		return context.Canceled // rolled back
	})
	if len(got) != 1 || len(got[0]) != 1 {
		t.Fatalf("hook calls = %v, want one call with one row", got)
	}
	r := got[0][0]
	if r.UUID != ev.ID || r.OrgID != org.ID || r.Kind != string(outreach.EventCampaignStarted) || r.EmittedAt == "" {
		t.Errorf("row = %+v", r)
	}
	want, _ := json.Marshal(ev)
	if string(r.Payload) != string(want) {
		t.Errorf("payload = %s, want %s", r.Payload, want)
	}
	outbox, err := st.OutboxEvents(ctx, org.ID)
	if err != nil || len(outbox) != 1 || outbox[0].ID != ev.ID {
		t.Errorf("outbox = %+v, %v; the event must be in the outbox too", outbox, err)
	}
	remove()
	if err := st.InTx(ctx, func(tx *storage.Tx) error {
		tx.Emit(outreach.SampleEvent(outreach.EventCampaignStarted, org.ID, time.Now()))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Errorf("the hook was called after its removal")
	}
}
