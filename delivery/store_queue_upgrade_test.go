package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// storeMigratedThrough is a store on a database of its own, migrated up to and including
// version, as that release left it, for an upgrade test to fill and then migrate on, and the
// hub's store attached to it.
func storeMigratedThrough(t *testing.T, version string) (*storage.Store, *delivery.Store) {
	t.Helper()
	st, ds := testenv.OpenStores(t, testenv.EmptyDatabaseURL(t), 4)
	if err := st.MigrateThrough(context.Background(), version); err != nil {
		t.Fatal(err)
	}
	return st, ds
}

// destinationBefore inserts the i-th destination of orgID as releases before migration 087
// wrote it (https://d<i>.example.com/hook, every event) and returns its id.
func destinationBefore(t *testing.T, st *storage.Store, orgID string, i int) string {
	t.Helper()
	id := outreach.NewID("dst")
	if _, err := st.Pool().Exec(context.Background(), `INSERT INTO destinations (id, org_id, name, kind, url)
		VALUES ($1, $2, $3, 'https', $4)`, id, orgID, fmt.Sprint("d", i), fmt.Sprintf("https://d%d.example.com/hook", i)); err != nil {
		t.Fatalf("create destination: %v", err)
	}
	return id
}

// An upgrade from release 081 with deliveries in every state: migration 082 queues exactly the
// pending ones (first attempt due, retry scheduled later) with their attempts and due times, and
// 083 stamps failed_at on the failed one; afterwards claims, recovery and the status check work
// on the upgraded rows as on new ones.
func TestUpgradeQueuesPendingAndStampsFailedDeliveries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ds := storeMigratedThrough(t, "081_attempts_without_foreign_keys")
	org := testenv.StoreOrg(t, st)
	dst := delivery.Destination{ID: destinationBefore(t, st, org, 0)}
	created := time.Now().Add(-10 * time.Minute).UTC().Truncate(time.Microsecond)
	failedAt := created.Add(time.Minute)
	retryAt := time.Now().Add(time.Hour).UTC().Truncate(time.Microsecond)
	// As release 081 wrote them: no queue, no failed_at.
	for _, row := range []struct {
		id, status string
		attempts   int
		next       *time.Time
	}{
		{"dlv_first", "pending", 0, &created},
		{"dlv_retry", "pending", 2, &retryAt},
		{"dlv_failed", "failed", 4, nil},
		{"dlv_ok", "succeeded", 1, nil},
	} {
		if _, err := st.Pool().Exec(ctx, `INSERT INTO delivery_payloads (event_id, payload) VALUES ($1, '{}')`, "evt_"+row.id); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Pool().Exec(ctx, `INSERT INTO deliveries (id, org_id, destination_id, event_id, event_kind, dedupe_key,
			status, attempts, next_attempt_at, emitted_at, created_at, updated_at)
			VALUES ($1, $2, $3, $4, 'campaign_started', $5, $6, $7, $8, $9, $9, $10)`,
			row.id, org, dst.ID, "evt_"+row.id, []byte(row.id), row.status, row.attempts, row.next, created, failedAt); err != nil {
			t.Fatal(err)
		}
	}

	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	queueMirrorsPending(t, ds)
	var retryDue time.Time
	if err := st.Pool().QueryRow(ctx, `SELECT next_attempt_at FROM delivery_queue WHERE id = 'dlv_retry'`).Scan(&retryDue); err != nil {
		t.Fatal(err)
	}
	if !retryDue.Equal(retryAt) {
		t.Errorf("the scheduled retry is queued for %v, want its due time %v", retryDue, retryAt)
	}
	var stamped *time.Time
	var okStamp *time.Time
	if err := st.Pool().QueryRow(ctx, `SELECT (SELECT failed_at FROM deliveries WHERE id = 'dlv_failed'),
		(SELECT failed_at FROM deliveries WHERE id = 'dlv_ok')`).Scan(&stamped, &okStamp); err != nil {
		t.Fatal(err)
	}
	if stamped == nil || !stamped.Equal(failedAt) || okStamp != nil {
		t.Errorf("failed_at after the upgrade: failed delivery %v (want %v), succeeded one %v (want none)", stamped, failedAt, okStamp)
	}

	// The status check holds on upgraded rows.
	_, err := st.Pool().Exec(ctx, `UPDATE deliveries SET status = 'failed' WHERE id = 'dlv_ok'`)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23514" {
		t.Errorf("marking a delivery failed without failed_at: %v, want the check violation", err)
	}

	claimed, err := ds.ClaimDue(ctx, delivery.ClaimDueParams{Limit: 10, Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if len(claimed) != 1 || claimed[0].ID != "dlv_first" {
		t.Fatalf("claimed %+v after the upgrade, want the due first attempt dlv_first only", claimed)
	}
	n, err := ds.RecoverDeliveries(ctx, org, "", created.Add(-time.Minute), created.Add(time.Minute), 2)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("recovered %d deliveries, want the one failed before the upgrade", n)
	}
	queueMirrorsPending(t, ds)
	var status string
	if err := st.Pool().QueryRow(ctx, `SELECT status || ' ' || (failed_at IS NULL)::text FROM deliveries WHERE id = 'dlv_failed'`).Scan(&status); err != nil {
		t.Fatal(err)
	}
	if status != "pending true" {
		t.Errorf("the recovered delivery is %q, want pending with failed_at cleared", status)
	}
}
