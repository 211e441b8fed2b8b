package delivery_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// dedupeRow is the duplicate rule's row of a payload identity: destination -> end of its window.
func dedupeRow(t *testing.T, ds *delivery.Store, identity string) map[string]time.Time {
	t.Helper()
	var ids []string
	var ends []time.Time
	err := ds.Pool().QueryRow(context.Background(), `SELECT destination_ids, expires_at FROM delivery_dedupe WHERE payload_key = $1`,
		outreach.PayloadKey([]byte(identity))).Scan(&ids, &ends)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]time.Time{}
	for i, id := range ids {
		out[id] = ends[i]
	}
	return out
}

// TestDuplicateRuleKeepsOneRowPerPayload covers migration 085: one row per payload, each
// destination with its own window, identical payloads in one batch, two transactions committing
// the same payload at once, and the keys of the older form consulted until they are gone.
func TestDuplicateRuleKeepsOneRowPerPayload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ds := testenv.Stores(t)
	org, dests := orgWithDestinations(t, st, ds, 3)
	a, b, c := dests[0], dests[1], dests[2]
	identity := func(s string) string { return org.ID + "/" + s }

	t.Run("each destination has its own window", func(t *testing.T) {
		// a's window ends at once; b's lasts.
		if n, _ := fanOut(t, ds, org.ID, "w", -time.Second, a); n != 1 {
			t.Fatalf("first to a: %d deliveries", n)
		}
		if n, _ := fanOut(t, ds, org.ID, "w", time.Hour, b); n != 1 {
			t.Fatalf("first to b: %d deliveries", n)
		}
		// Again to a, b and c: a (its window ended) and c (never got it) get it, b does not.
		created, collapsed := fanOut(t, ds, org.ID, "w", time.Hour, a, b, c)
		if created != 2 || collapsed != 1 {
			t.Fatalf("again to all: created %d collapsed %d, want 2 and 1", created, collapsed)
		}
		row := dedupeRow(t, ds, identity("w"))
		for _, d := range dests {
			if !row[d].After(time.Now().Add(50 * time.Minute)) {
				t.Errorf("destination %s: window ends %v, want about an hour from now", d, row[d])
			}
		}
		var rows int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM delivery_dedupe`).Scan(&rows); err != nil || rows != 1 {
			t.Fatalf("%d rows of the duplicate rule (%v), want one for the one payload", rows, err)
		}
	})

	t.Run("an identical payload later in the same batch collapses whole", func(t *testing.T) {
		nds := deliveriesToAll(org.ID, []string{a, b}, 2, func(int) []byte { return []byte(`{}`) })
		nds[1].Identity = nds[0].Identity
		tx, err := st.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx) //nolint:errcheck
		res, err := ds.InsertDeliveryBatch(ctx, tx, nds)
		if err != nil || res.Created != 2 || res.Collapsed != 2 {
			t.Fatalf("batch: %+v, %v; want 2 created, 2 collapsed", res, err)
		}
	})

	t.Run("the same payload committed twice at once is delivered once", func(t *testing.T) {
		var wg sync.WaitGroup
		created := make([]int, 4)
		for i := range created {
			wg.Go(func() { created[i], _ = fanOut(t, ds, org.ID, "race", time.Hour, a, b, c) })
		}
		wg.Wait()
		slices.Sort(created)
		if !slices.Equal(created, []int{0, 0, 0, 3}) {
			t.Fatalf("deliveries written by four concurrent fan-outs of one payload: %v, want one of 3", created)
		}
	})

	t.Run("keys of the older form collapse until retention has removed them", func(t *testing.T) {
		// A key as the fan-out wrote it before migration 085: for a, of payload "old".
		if _, err := st.Pool().Exec(ctx, `INSERT INTO delivery_dedupe_legacy (destination_id, dedupe_key, delivery_id, expires_at)
			VALUES ($1, $2, 'dlv_before_085', now() + interval '1 hour')`, a, outreach.DedupeKey(a, []byte(identity("old")))); err != nil {
			t.Fatal(err)
		}
		if _, err := ds.PruneDeliveryDedupe(ctx, time.Now().Add(-time.Hour)); err != nil || !ds.LegacyDedupe() {
			t.Fatalf("prune with a key of the older form left: %v; still consulted: %v", err, ds.LegacyDedupe())
		}
		if created, collapsed := fanOut(t, ds, org.ID, "old", time.Hour, a, b); created != 1 || collapsed != 1 {
			t.Fatalf("payload seen before the upgrade: created %d collapsed %d, want b only", created, collapsed)
		}
		if row := dedupeRow(t, ds, identity("old")); len(row) != 1 || row[b].IsZero() {
			t.Fatalf("the payload's row lists %v, want b alone (a's window is the old key's)", row)
		}
		// Its window ends; the next prune removes it, the one after sees none left.
		if _, err := st.Pool().Exec(ctx, `UPDATE delivery_dedupe_legacy SET expires_at = now() - interval '2 hours'`); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := ds.PruneDeliveryDedupe(ctx, time.Now().Add(-time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		if ds.LegacyDedupe() {
			t.Fatal("the fan-out still consults an empty table of old keys")
		}
		if created, _ := fanOut(t, ds, org.ID, "old", time.Hour, a); created != 1 {
			t.Fatalf("after the old key's window: %d deliveries to a, want 1", created)
		}
	})
}

// An upgrade from release 084: the duplicate keys written before migration 085 (one per
// delivery) still collapse an identical payload committed after it, to the destination that got
// it, and only to that one.
func TestUpgradeKeepsTheDuplicateKeysWrittenBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ds := storeMigratedThrough(t, "084_delivery_queue_chunks")
	org := testenv.StoreOrg(t, st)
	dests := []string{destinationBefore(t, st, org, 0), destinationBefore(t, st, org, 1)}
	identity := []byte(org + "/before")
	// The key the fan-out of release 084 wrote for the first destination.
	if _, err := st.Pool().Exec(ctx, `INSERT INTO delivery_dedupe (destination_id, dedupe_key, delivery_id, expires_at)
		VALUES ($1, $2, 'dlv_before', now() + interval '1 hour')`, dests[0], outreach.DedupeKey(dests[0], identity)); err != nil {
		t.Fatal(err)
	}
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if created, collapsed := fanOut(t, ds, org, "before", time.Hour, dests...); created != 1 || collapsed != 1 {
		t.Fatalf("after the upgrade: created %d collapsed %d, want the second destination only", created, collapsed)
	}
}
