package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// fanOut inserts one event's deliveries to dests in its own transaction, as a business transaction's fan-out does.
func fanOut(t *testing.T, ds *delivery.Store, org, identity string, window time.Duration, dests ...string) (int, int) {
	t.Helper()
	nd := delivery.NewDeliveries{EventID: outreach.NewID("evt"), EventKind: "campaign_started", OrgID: org,
		Payload: []byte(`{}`), EmittedAt: time.Now(), MaxAttempts: 4, DedupeWindow: window, Identity: []byte(org + "/" + identity)}
	for _, d := range dests {
		nd.IDs, nd.Destinations = append(nd.IDs, outreach.NewID("dlv")), append(nd.Destinations, d)
	}
	res := commitFanout(t, ds.Pool(), ds, []delivery.NewDeliveries{nd})
	return res.Created, res.Collapsed
}

// commitFanout writes nds in a transaction of its own on db (the store's pool or a connection of
// the test's) and commits it; any error fails t.
func commitFanout(t testing.TB, db interface {
	Begin(context.Context) (pgx.Tx, error)
}, ds *delivery.Store, nds []delivery.NewDeliveries) delivery.InsertResult {
	t.Helper()
	ctx := context.Background()
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	res, err := ds.InsertDeliveryBatch(ctx, tx, nds)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return res
}

// queueMirrorsPending checks the dispatch queue's invariant (migrations 082 and 084): a delivery
// is pending if and only if exactly one queue row lists it with its attempts — its own row, or
// the chunk the fan-out queued it in (attempts 0). Every statement keeps it at commit, so it
// holds in a consistent snapshot whatever other tests run at the same time. (A chunk may also
// list deliveries already finished: the claim drops one that lists nothing pending.)
func queueMirrorsPending(t *testing.T, ds *delivery.Store) {
	t.Helper()
	var bad []string
	if err := ds.Pool().QueryRow(context.Background(), `WITH listed AS (
			SELECT m.id, q.id AS queue_id, q.attempts, q.destination_id FROM delivery_queue q
			CROSS JOIN LATERAL unnest(q.delivery_ids) AS m(id)
		), pending AS (SELECT id, attempts, destination_id FROM deliveries WHERE status = 'pending')
		SELECT coalesce(array_agg(bad), '{}') FROM (
			-- a pending delivery listed by other than exactly one row at its attempts
			SELECT 'pending ' || p.id AS bad FROM pending p
			WHERE (SELECT count(*) FROM listed l WHERE l.id = p.id AND l.attempts = p.attempts) <> 1
			UNION ALL
			-- a delivery's own row that does not list it alone, or whose delivery is not pending at its attempts
			SELECT 'row ' || q.id FROM delivery_queue q WHERE q.id NOT LIKE 'c:%'
			  AND (q.delivery_ids <> ARRAY[q.id]
			       OR NOT EXISTS (SELECT 1 FROM pending p WHERE p.id = q.id AND p.attempts = q.attempts))
			UNION ALL
			-- a chunk past the first attempt, or listing a delivery of another destination
			SELECT 'chunk ' || l.queue_id FROM listed l JOIN deliveries d ON d.id = l.id
			WHERE l.queue_id LIKE 'c:%' AND (l.attempts <> 0 OR d.destination_id <> l.destination_id)
		) x`).Scan(&bad); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("deliveries whose queue row does not match their state: %v", bad)
	}
}

func TestDeliveriesDedupeClaimAndRecord(t *testing.T) {
	t.Parallel()
	st, ds := testenv.Stores(t)
	ctx := context.Background()
	org := testenv.StoreOrg(t, st)
	var dests []string
	for i := 0; i < 2; i++ {
		d, err := ds.CreateDestination(ctx, delivery.Destination{OrgID: org, Name: "d", Kind: "https", URL: "https://example.com", Enabled: true})
		if err != nil {
			t.Fatal(err)
		}
		dests = append(dests, d.ID)
	}

	t.Run("identical payloads collapse per destination within the window", func(t *testing.T) {
		if c, d := fanOut(t, ds, org, "a", time.Hour, dests...); c != 2 || d != 0 {
			t.Fatalf("first: created %d collapsed %d", c, d)
		}
		if c, d := fanOut(t, ds, org, "a", time.Hour, dests[0]); c != 0 || d != 1 {
			t.Fatalf("repeat: created %d collapsed %d", c, d)
		}
		if c, _ := fanOut(t, ds, org, "b", time.Hour, dests[0]); c != 1 {
			t.Fatalf("another payload: created %d", c)
		}
		// An expired key is taken over.
		if c, _ := fanOut(t, ds, org, "c", -time.Second, dests[1]); c != 1 {
			t.Fatal("setup")
		}
		if c, d := fanOut(t, ds, org, "c", time.Hour, dests[1]); c != 1 || d != 0 {
			t.Fatalf("after expiry: created %d collapsed %d", c, d)
		}
	})

	t.Run("claims take at most the limit, skip the destinations asked and lease rows away", func(t *testing.T) {
		for i := 0; i < 5; i++ {
			fanOut(t, ds, org, "cap"+string(rune('0'+i)), time.Hour, dests[0])
		}
		got, err := ds.ClaimDue(ctx, delivery.ClaimDueParams{Limit: 3, Lease: time.Minute, Skip: []string{dests[1]}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("claimed %d, want 3 (the limit; dest 1 skipped)", len(got))
		}
		for _, c := range got {
			if c.Target.ID != dests[0] || c.Target.URL != "https://example.com" || c.Attempts != 0 || c.Trigger != delivery.TriggerScheduled {
				t.Errorf("claimed %+v", c)
			}
		}
		again, err := ds.ClaimDue(ctx, delivery.ClaimDueParams{Limit: 100, Lease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range again {
			for _, g := range got {
				if c.ID == g.ID {
					t.Fatalf("leased delivery %s claimed twice", c.ID)
				}
			}
		}
		if retries, _ := ds.ClaimDue(ctx, delivery.ClaimDueParams{Retries: true, Limit: 100, Lease: time.Minute}); len(retries) != 0 {
			t.Errorf("the retry budget claimed %d first attempts", len(retries))
		}

		// Record: one success, one retry, one final failure.
		next := time.Now().Add(-time.Second)
		recs := []delivery.AttemptRecord{
			{DeliveryID: got[0].ID, Status: delivery.DeliverySucceeded, Succeeded: true, StatusCode: 200},
			{DeliveryID: got[1].ID, Status: delivery.DeliveryPending, StatusCode: 500, Error: "HTTP 500", NextAttemptAt: &next},
			{DeliveryID: got[2].ID, Status: delivery.DeliveryFailed, StatusCode: 410, Error: "HTTP 410"},
		}
		for i := range recs {
			recs[i].DestinationID, recs[i].OrgID, recs[i].EventID, recs[i].EventKind = dests[0], org, got[i].EventID, "campaign_started"
			recs[i].Attempt, recs[i].Trigger, recs[i].At, recs[i].URL = 1, delivery.TriggerScheduled, time.Now(), "https://example.com"
		}
		if err := ds.RecordAttempts(ctx, recs); err != nil {
			t.Fatal(err)
		}
		for i, want := range []string{delivery.DeliverySucceeded, delivery.DeliveryPending, delivery.DeliveryFailed} {
			d, err := ds.GetDelivery(ctx, org, got[i].ID)
			if err != nil || d.Status != want || d.Attempts != 1 {
				t.Errorf("delivery %d: %+v, %v; want %s", i, d, err, want)
			}
		}
		dest, _ := ds.GetDestination(ctx, org, dests[0])
		if dest.ConsecutiveFailures != 2 {
			t.Errorf("consecutive_failures = %d, want 2 (the success came first)", dest.ConsecutiveFailures)
		}
		// A stale record of the same attempt does not move the delivery back.
		if err := ds.RecordAttempts(ctx, recs[:1]); err != nil {
			t.Fatal(err)
		}
		queueMirrorsPending(t, ds)
		retries, err := ds.ClaimDue(ctx, delivery.ClaimDueParams{Retries: true, Limit: 100, Lease: time.Minute})
		if err != nil || len(retries) != 1 || retries[0].ID != got[1].ID || retries[0].Attempts != 1 {
			t.Fatalf("retry claim = %+v, %v", retries, err)
		}
		queueMirrorsPending(t, ds)
	})

	t.Run("resend and recover", func(t *testing.T) {
		list, _, err := ds.DeliveryLog(ctx, org, delivery.DeliveryLogQuery{Status: delivery.DeliveryFailed, Limit: 10})
		if err != nil || len(list) != 1 {
			t.Fatalf("failed deliveries: %d, %v", len(list), err)
		}
		if err := ds.ResendDelivery(ctx, "org_other", list[0].ID); err == nil {
			t.Error("resend across organizations")
		}
		if n, err := ds.RecoverDeliveries(ctx, org, "", time.Now().Add(-time.Hour), time.Now().Add(time.Hour), 4); err != nil || n != 1 {
			t.Fatalf("recover = %d, %v", n, err)
		}
		d, _ := ds.GetDelivery(ctx, org, list[0].ID)
		if d.Status != delivery.DeliveryPending || d.MaxAttempts != d.Attempts+4 {
			t.Errorf("recovered: %+v", d)
		}
		queueMirrorsPending(t, ds)
		// A succeeded delivery resent is pending again, and due now in the retry budget.
		done, _, err := ds.DeliveryLog(ctx, org, delivery.DeliveryLogQuery{Status: delivery.DeliverySucceeded, Limit: 10})
		if err != nil || len(done) != 1 {
			t.Fatalf("succeeded deliveries: %d, %v", len(done), err)
		}
		if err := ds.ResendDelivery(ctx, org, done[0].ID); err != nil {
			t.Fatal(err)
		}
		queueMirrorsPending(t, ds)
		retries, err := ds.ClaimDue(ctx, delivery.ClaimDueParams{Retries: true, Limit: 100, Lease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range retries {
			ids = append(ids, c.ID)
		}
		if !slices.Contains(ids, done[0].ID) || !slices.Contains(ids, list[0].ID) {
			t.Errorf("the retry budget claimed %v; want the resent %s and the recovered %s", ids, done[0].ID, list[0].ID)
		}
	})
}

// An attempt that finishes after its destination was purged (a send in flight, or a test send)
// is dropped, and the rest of its batch is still recorded: one such record must not fail the
// recorder's batch on the foreign keys again and again. (One that finishes after a deletion, the
// row still there, is recorded: it is part of the history a deleted destination keeps.)
func TestRecordAttemptsOfADeletedDestination(t *testing.T) {
	t.Parallel()
	st, ds := testenv.Stores(t)
	ctx := context.Background()
	org, _, got := claimedToTwoDestinations(t, st, ds)
	gone := got[0].Target.ID
	if err := ds.DeleteDestination(ctx, org.ID, gone); err != nil {
		t.Fatal(err)
	}
	if n, err := ds.PurgeDeletedDestinations(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	recs := firstAttempts(got, 200, delivery.DeliverySucceeded)
	recs = append(recs, delivery.AttemptRecord{DestinationID: gone, OrgID: org.ID, EventID: "evt_test", EventKind: "campaign_started",
		Attempt: 1, Trigger: delivery.TriggerTest, At: time.Now(), URL: "https://example.com", StatusCode: 200})
	if err := ds.RecordAttempts(ctx, recs); err != nil {
		t.Fatalf("a batch holding attempts of a deleted destination failed: %v", err)
	}
	kept := got[1]
	d, err := ds.GetDelivery(ctx, org.ID, kept.ID)
	if err != nil || d.Status != delivery.DeliverySucceeded {
		t.Fatalf("the other destination's delivery: %+v, %v", d, err)
	}
	var n int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM delivery_attempts WHERE org_id = $1`, org.ID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d attempts recorded (%v), want 1", n, err)
	}
}

// Deleting a destination keeps its deliveries and attempts (its pending deliveries fail) and
// drops its dedupe keys; purging it takes its deliveries and attempts with it, and a payload once
// no delivery of any destination uses it.
func TestDeleteDestinationTakesItsDeliveries(t *testing.T) {
	t.Parallel()
	st, ds := testenv.Stores(t)
	ctx := context.Background()
	org, dests, got := claimedToTwoDestinations(t, st, ds)
	if err := ds.RecordAttempts(ctx, firstAttempts(got, 500, delivery.DeliveryFailed)); err != nil {
		t.Fatal(err)
	}
	count := func(table, where string, arg string) int {
		t.Helper()
		var n int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE `+where, arg).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	event := got[0].EventID
	// Another organization's call deletes nothing, not even the deliveries it reaches first.
	other, err := st.CreateOrg(ctx, "other", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.DeleteDestination(ctx, other.ID, dests[0]); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("deleting another organization's destination: %v, want not found", err)
	}
	if n := count("deliveries", "destination_id = $1", dests[0]); n != 1 {
		t.Fatalf("%d deliveries left after a refused delete, want 1", n)
	}
	// One more event, still pending when its destinations are deleted: it fails with them and
	// leaves the dispatch queue.
	if c, _ := fanOut(t, ds, org.ID, "pending", time.Hour, dests...); c != 2 {
		t.Fatalf("fan-out of the pending event wrote %d deliveries, want 2", c)
	}
	for i, id := range dests {
		if err := ds.DeleteDestination(ctx, org.ID, id); err != nil {
			t.Fatal(err)
		}
		if n := count("delivery_queue", "destination_id = $1", id); n != 0 {
			t.Errorf("%d queue rows of the deleted destination left", n)
		}
		queueMirrorsPending(t, ds)
		// Keys of the duplicate rule's older form go with it; a payload's row keeps the id among
		// its destinations until the row's window ends (ids are never reused).
		if n := count("delivery_dedupe_legacy", "destination_id = $1", id); n != 0 {
			t.Errorf("%d old-form dedupe keys of the deleted destination left", n)
		}
		if n := count("delivery_attempts", "destination_id = $1", id); n != 1 {
			t.Errorf("%d attempts of the deleted destination kept, want 1", n)
		}
		if n := count("deliveries", "destination_id = $1 AND status = 'pending'", id); n != 0 {
			t.Errorf("%d deliveries of the deleted destination still pending", n)
		}
		// A fan-out that still names it (a stale cache) writes nothing for it.
		if c, _ := fanOut(t, ds, org.ID, "y", time.Hour, id); c != 0 {
			t.Errorf("fan-out wrote %d deliveries to a destination marked deleted", c)
		}
		if n, err := ds.PurgeDeletedDestinations(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
			t.Fatalf("purge: %d %v", n, err)
		}
		for _, table := range []string{"deliveries", "delivery_dedupe_legacy", "delivery_attempts"} {
			if n := count(table, "destination_id = $1", id); n != 0 {
				t.Errorf("%s: %d rows of the deleted destination left", table, n)
			}
		}
		wantPayload := 1 // the other destination's delivery still uses it
		if i == 1 {
			wantPayload = 0
		}
		if n := count("delivery_payloads", "event_id = $1", event); n != wantPayload {
			t.Errorf("after deleting destination %d: %d payloads, want %d", i+1, n, wantPayload)
		}
	}
	// A fan-out that still names a deleted destination (its cache was stale) writes nothing for it.
	if c, _ := fanOut(t, ds, org.ID, "z", time.Hour, dests[0]); c != 0 {
		t.Errorf("fan-out wrote %d deliveries to a deleted destination", c)
	}
}

// claimedToTwoDestinations makes an organization with two destinations, fans one event out to
// both and claims the two deliveries.
func claimedToTwoDestinations(t *testing.T, st *storage.Store, ds *delivery.Store) (storage.Org, []string, []delivery.ClaimedDelivery) {
	t.Helper()
	org, dests := twoDestinations(t, st, ds)
	fanOut(t, ds, org.ID, "e", time.Hour, dests...)
	got, err := ds.ClaimDue(context.Background(), delivery.ClaimDueParams{Limit: 10, Lease: time.Minute})
	if err != nil || len(got) != 2 {
		t.Fatalf("claimed %d (%v), want 2", len(got), err)
	}
	return org, dests, got
}

// twoDestinations makes an organization with two enabled https destinations.
func twoDestinations(t *testing.T, st *storage.Store, ds *delivery.Store) (storage.Org, []string) {
	t.Helper()
	return orgWithDestinations(t, st, ds, 2)
}

// firstAttempts is a first, scheduled attempt of each claimed delivery, all with one outcome.
func firstAttempts(cs []delivery.ClaimedDelivery, code int, status string) []delivery.AttemptRecord {
	var recs []delivery.AttemptRecord
	for _, c := range cs {
		recs = append(recs, delivery.AttemptRecord{DeliveryID: c.ID, DestinationID: c.Target.ID, OrgID: c.OrgID, EventID: c.EventID,
			EventKind: c.EventKind, Attempt: 1, Trigger: delivery.TriggerScheduled, At: time.Now(), URL: "https://example.com",
			StatusCode: code, Status: status, Succeeded: code/100 == 2})
	}
	return recs
}

// A claim of many rows takes of each destination at most the room its local queue leaves.
func TestClaimDueCapsEachDestination(t *testing.T) {
	t.Parallel()
	st, ds := testenv.Stores(t)
	ctx := context.Background()
	org, dests := twoDestinations(t, st, ds)
	for _, d := range dests {
		for i := range 4 {
			fanOut(t, ds, org.ID, fmt.Sprint("cap-", i), time.Hour, d)
		}
	}
	got, err := ds.ClaimDue(ctx, delivery.ClaimDueParams{Limit: 100, Lease: time.Minute, PerDestination: 3,
		Queued: map[string]int{dests[0]: 2}})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, c := range got {
		per[c.Target.ID]++
	}
	if per[dests[0]] != 1 || per[dests[1]] != 3 {
		t.Fatalf("claimed %v; want 1 of the destination with 2 queued and 3 of the other (cap 3)", per)
	}
	// What the caps left stays due for the next claim.
	rest, err := ds.ClaimDue(ctx, delivery.ClaimDueParams{Limit: 100, Lease: time.Minute})
	if err != nil || len(rest) != 4 {
		t.Fatalf("second claim: %d rows, %v; want the 4 left", len(rest), err)
	}
}

// A claim reads each event's payload and each destination once however many of its rows share
// them; every claimed delivery still carries its own event's payload and its own
// destination.
func TestClaimDueGivesEachDeliveryItsPayloadAndDestination(t *testing.T) {
	t.Parallel()
	st, ds := testenv.Stores(t)
	ctx := context.Background()
	org, dests := orgWithDestinations(t, st, ds, 3)
	nds := deliveriesToAll(org.ID, dests, 4, func(i int) []byte { return []byte(fmt.Sprintf(`{"n":%d}`, i)) })
	payloads := map[string]string{}
	for _, nd := range nds {
		payloads[nd.EventID] = string(nd.Payload)
	}
	commitFanout(t, st.Pool(), ds, nds)
	got, err := ds.ClaimDue(ctx, delivery.ClaimDueParams{Limit: 100, Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 12 {
		t.Fatalf("claimed %d deliveries, want 12", len(got))
	}
	seen := map[string]bool{}
	for _, c := range got {
		if string(c.Payload) != payloads[c.EventID] {
			t.Errorf("delivery %s of event %s carries %s, want %s", c.ID, c.EventID, c.Payload, payloads[c.EventID])
		}
		if c.ID != outreach.DeliveryID(c.EventID, c.Target.ID) || c.Target.URL != destinationURL(c.Target.ID, dests) || !c.Target.Enabled {
			t.Errorf("delivery %s carries destination %+v", c.ID, c.Target)
		}
		seen[c.ID] = true
	}
	if len(seen) != 12 {
		t.Errorf("%d distinct deliveries claimed, want 12", len(seen))
	}
}

// orgWithDestinations makes an organization with n enabled https destinations, the i-th at
// https://d<i>.example.com/hook.
func orgWithDestinations(t testing.TB, st *storage.Store, ds *delivery.Store, n int) (storage.Org, []string) {
	t.Helper()
	ctx := context.Background()
	org, err := st.CreateOrg(ctx, "o", nil)
	if err != nil {
		t.Fatal(err)
	}
	var dests []string
	for i := range n {
		d, err := ds.CreateDestination(ctx, delivery.Destination{OrgID: org.ID, Name: fmt.Sprint("d", i), Kind: "https",
			URL: fmt.Sprintf("https://d%d.example.com/hook", i), Enabled: true})
		if err != nil {
			t.Fatal(err)
		}
		dests = append(dests, d.ID)
	}
	return org, dests
}

// destinationURL is the URL orgWithDestinations gave destination id.
func destinationURL(id string, dests []string) string {
	return fmt.Sprintf("https://d%d.example.com/hook", slices.Index(dests, id))
}

// deliveriesToAll is the fan-out of events new events, each to every destination, with the ids
// and distinct payload identities the business transaction's fan-out would give them.
func deliveriesToAll(org string, dests []string, events int, payload func(i int) []byte) []delivery.NewDeliveries {
	var nds []delivery.NewDeliveries
	for i := range events {
		nd := delivery.NewDeliveries{EventID: outreach.NewID("evt"), EventKind: "campaign_started", OrgID: org,
			Payload: payload(i), EmittedAt: time.Now(), MaxAttempts: 4, DedupeWindow: time.Hour}
		nd.Identity = []byte(nd.EventID)
		for _, d := range dests {
			nd.IDs = append(nd.IDs, outreach.DeliveryID(nd.EventID, d))
			nd.Destinations = append(nd.Destinations, d)
		}
		nds = append(nds, nd)
	}
	return nds
}

// TestRecordRewritesDeliveriesHeapOnly guards migration 083: recording an attempt rewrites the
// delivery row, and PostgreSQL writes that version without new index entries (HOT) only while no
// index of deliveries has, in its key or its predicate, a column a successful record changes.
// An index on one of them would triple the record's cost without failing any other test.
func TestRecordRewritesDeliveriesHeapOnly(t *testing.T) {
	ctx := context.Background()
	st := testenv.Store(t)
	changedBySuccess := []string{"status", "attempts", "next_attempt_at", "next_trigger", "updated_at",
		"delivered_at", "last_status_code", "last_error"}
	rows, err := st.Pool().Query(ctx, `SELECT i.indexrelid::regclass::text, a.attname
		FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) AS k(attnum)
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
		WHERE i.indrelid = 'deliveries'::regclass
		UNION ALL
		SELECT i.indexrelid::regclass::text, pg_get_expr(i.indpred, i.indrelid) || ' ' || coalesce(pg_get_expr(i.indexprs, i.indrelid), '')
		FROM pg_index i WHERE i.indrelid = 'deliveries'::regclass AND (i.indpred IS NOT NULL OR i.indexprs IS NOT NULL)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var index, text string
		if err := rows.Scan(&index, &text); err != nil {
			t.Fatal(err)
		}
		seen++
		for _, word := range strings.FieldsFunc(text, func(r rune) bool { return r != '_' && !unicode.IsLetter(r) }) {
			if slices.Contains(changedBySuccess, word) {
				t.Errorf("index %s uses %s, which every successful attempt changes: its record can no longer be a heap-only update", index, word)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if seen < 4 {
		t.Fatalf("read %d index columns of deliveries, want at least the four indexes' (the catalog query is wrong)", seen)
	}
	var fillfactor string
	if err := st.Pool().QueryRow(ctx, `SELECT coalesce(array_to_string(reloptions, ','), '') FROM pg_class WHERE oid = 'deliveries'::regclass`).Scan(&fillfactor); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fillfactor, "fillfactor=50") {
		t.Errorf("deliveries reloptions %q: want fillfactor=50, room on each page for the recorded version of its rows", fillfactor)
	}
}
