package storage_test

import (
	"context"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// The operator log's read of destinations with a run of failures (or watched ones, to see them
// recover).
func TestOperatorLogReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testenv.Store(t)
	ds, err := st.DestinationsFailing(ctx, []string{"dst_unknown"}, 10)
	if err != nil || len(ds) != 0 {
		t.Fatalf("failing destinations: %+v %v", ds, err)
	}
}

// A deleted destination's history is readable until it is purged, then gone with it.
func TestPurgeDeletedDestinations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testenv.Store(t)
	org, err := st.CreateOrg(ctx, "Org "+t.Name(), nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := st.CreateDestination(ctx, storage.Destination{ID: outreach.NewID("dst"), OrgID: org.ID, Name: "x",
		Kind: outreach.DestinationHTTPS, URL: "https://example.com/hook", Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RecordAttempts(ctx, []storage.AttemptRecord{{DestinationID: d.ID, OrgID: org.ID, EventID: "evt_1",
		EventKind: "invite_sent", Attempt: 1, Trigger: storage.TriggerTest, At: time.Now(), URL: d.URL, StatusCode: 200,
		WebhookID: "dlv_test1", Succeeded: true}}); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteDestination(ctx, org.ID, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetDestination(ctx, org.ID, d.ID); err == nil {
		t.Fatal("a deleted destination is still found")
	}
	if _, at, err := st.DestinationForLog(ctx, org.ID, d.ID); err != nil || at == nil {
		t.Fatalf("the deleted destination's log: %v %v", at, err)
	}
	if n, err := st.PurgeDeletedDestinations(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("purged a fresh deletion: %d %v", n, err)
	}
	if list, _, err := st.AttemptLog(ctx, org.ID, d.ID, 10, 0); err != nil || len(list) != 1 || *list[0].DeliveryID != "dlv_test1" {
		t.Fatalf("attempts after the deletion: %+v %v", list, err)
	}
	if n, err := st.PurgeDeletedDestinations(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	if _, _, err := st.DestinationForLog(ctx, org.ID, d.ID); err == nil {
		t.Fatal("a purged destination is still found")
	}
	if list, _, err := st.AttemptLog(ctx, org.ID, d.ID, 10, 0); err != nil || len(list) != 0 {
		t.Fatalf("attempts after the purge: %+v %v", list, err)
	}
}
