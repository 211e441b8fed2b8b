package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
)

func httpsDest(orgID, name string) delivery.Destination {
	return delivery.Destination{OrgID: orgID, Name: name, Kind: outreach.DestinationHTTPS,
		URL: "https://example.com/hook/" + name, Events: []string{"reply_received"}, Enabled: true}
}

func TestDestinationLimitUnderConcurrency(t *testing.T) {
	t.Parallel()
	st, ds := testenv.Stores(t)
	ctx := context.Background()
	org := testenv.StoreOrg(t, st)
	// 25 concurrent creations: exactly ten may win, whatever the interleaving.
	var wg sync.WaitGroup
	errs := make(chan error, 25)
	for i := range 25 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := ds.CreateDestination(ctx, httpsDest(org, fmt.Sprint(i)))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	ok, refused := 0, 0
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, outreach.ErrInvalid):
			refused++
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if ok != delivery.MaxDestinationsPerOrg || refused != 15 {
		t.Fatalf("created %d, refused %d; want 10 and 15", ok, refused)
	}
	list, err := ds.ListDestinations(ctx, org)
	if err != nil || len(list) != 10 {
		t.Fatalf("list: %d, %v", len(list), err)
	}
	// Another organization has its own ten.
	if _, err := ds.CreateDestination(ctx, httpsDest(testenv.StoreOrg(t, st), "other")); err != nil {
		t.Fatalf("other org: %v", err)
	}
}

func TestDestinationCRUDScopedByOrg(t *testing.T) {
	t.Parallel()
	st, ds := testenv.Stores(t)
	ctx := context.Background()
	org, other := testenv.StoreOrg(t, st), testenv.StoreOrg(t, st)
	sealed := "v1:sealed"
	in := httpsDest(org, "a")
	in.SecretSealed = &sealed
	d, err := ds.CreateDestination(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !outreach.ValidID("dst", d.ID) || d.OrgID != org || *d.SecretSealed != sealed || !d.Enabled ||
		len(d.Events) != 1 || d.Events[0] != "reply_received" || d.CreatedAt.IsZero() {
		t.Fatalf("created %+v", d)
	}
	if _, err := ds.GetDestination(ctx, other, d.ID); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("cross-org get: %v", err)
	}
	if _, err := ds.UpdateDestination(ctx, other, d.ID, func(*delivery.Destination) error { return nil }); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("cross-org update: %v", err)
	}
	if err := ds.DeleteDestination(ctx, other, d.ID); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("cross-org delete: %v", err)
	}

	// A refused change writes nothing.
	if _, err := ds.UpdateDestination(ctx, org, d.ID, func(x *delivery.Destination) error {
		x.Name = "changed"
		return fmt.Errorf("nope: %w", outreach.ErrInvalid)
	}); !errors.Is(err, outreach.ErrInvalid) {
		t.Fatalf("refused change: %v", err)
	}
	if got, _ := ds.GetDestination(ctx, org, d.ID); got.Name != "a" {
		t.Fatalf("refused change was written: %q", got.Name)
	}

	u, err := ds.UpdateDestination(ctx, org, d.ID, func(x *delivery.Destination) error {
		x.Name, x.Enabled, x.Events, x.SecretSealed = "renamed", false, nil, nil
		x.Kind, x.OrgID = "slack", other // ignored: not mutable
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if u.Name != "renamed" || u.Enabled || u.Events[0] != "all" || u.SecretSealed != nil || u.Kind != "https" || u.OrgID != org {
		t.Fatalf("updated %+v", u)
	}
	if err := ds.DeleteDestination(ctx, org, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.GetDestination(ctx, org, d.ID); !errors.Is(err, outreach.ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestAttemptAndDeliveryLogs(t *testing.T) {
	t.Parallel()
	st, ds := testenv.Stores(t)
	ctx := context.Background()
	org, other := testenv.StoreOrg(t, st), testenv.StoreOrg(t, st)
	d1, _ := ds.CreateDestination(ctx, httpsDest(org, "one"))
	d2, _ := ds.CreateDestination(ctx, httpsDest(org, "two"))
	d3, _ := ds.CreateDestination(ctx, httpsDest(org, "never"))
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	pool := st.Pool()
	mustExec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	// Three deliveries to d1: failed, succeeded, pending; one to d2.
	for i, status := range []string{"failed", "succeeded", "pending"} {
		mustExec(`INSERT INTO delivery_payloads (event_id, payload) VALUES ($1, '{}')`, fmt.Sprintf("evt_%d", i))
		mustExec(`INSERT INTO deliveries (id, org_id, destination_id, event_id, event_kind, dedupe_key, status,
			failed_at, attempts, emitted_at, created_at)
			VALUES ($1, $2, $3, $4, 'invite_sent', $5, $6, CASE WHEN $6 = 'failed' THEN $7::timestamptz END, 1, $7, $7)`,
			fmt.Sprintf("dlv_%d", i), org, d1.ID, fmt.Sprintf("evt_%d", i), []byte{byte(i)}, status, base.Add(time.Duration(i)*time.Hour))
	}
	mustExec(`INSERT INTO delivery_payloads (event_id, payload) VALUES ('evt_x', '{}')`)
	mustExec(`INSERT INTO deliveries (id, org_id, destination_id, event_id, event_kind, dedupe_key, status,
		failed_at, emitted_at, created_at) VALUES ('dlv_x', $1, $2, 'evt_x', 'invite_sent', '\x09', 'failed', $3, $3, $3)`, org, d2.ID, base)
	for i := range 5 {
		mustExec(`INSERT INTO delivery_attempts (delivery_id, destination_id, org_id, event_id, event_kind, attempt, trigger,
			at, url, status_code, error, duration_ms) VALUES ('dlv_0', $1, $2, 'evt_0', 'invite_sent', $3, 'scheduled', $4,
			'https://example.com', $5, $6, 12)`, d1.ID, org, i+1, base.Add(time.Duration(i)*time.Minute), 500+i, "HTTP 50x")
	}
	mustExec(`INSERT INTO delivery_attempts (destination_id, org_id, event_id, event_kind, attempt, trigger, at, url,
		status_code, error, duration_ms) VALUES ($1, $2, 'evt_t', 'reply_received', 1, 'test', $3, 'https://example.com', 0, 'connection refused', 3)`,
		d2.ID, org, base)

	last, err := ds.LastAttempts(ctx, org, []string{d1.ID, d2.ID, d3.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(last) != 2 || last[d1.ID].Attempt != 5 || last[d1.ID].StatusCode != 504 ||
		last[d2.ID].StatusCode != 0 || *last[d2.ID].Error != "connection refused" || last[d2.ID].DeliveryID != nil {
		t.Fatalf("last attempts %+v", last)
	}
	if other, _ := ds.LastAttempts(ctx, other, []string{d1.ID}); len(other) != 0 {
		t.Fatalf("another org sees attempts: %+v", other)
	}

	page, total, err := ds.AttemptLog(ctx, org, d1.ID, 2, 1, false)
	if err != nil || total != 5 || len(page) != 2 || page[0].Attempt != 4 || page[1].Attempt != 3 {
		t.Fatalf("attempt log: %+v total %d %v", page, total, err)
	}

	from, to := base.Add(30*time.Minute), base.Add(2*time.Hour)
	cases := []struct {
		name  string
		q     delivery.DeliveryLogQuery
		want  []string
		total int
	}{
		{"all newest first", delivery.DeliveryLogQuery{Limit: 10}, []string{"dlv_2", "dlv_1", "dlv_x", "dlv_0"}, 4},
		{"by destination", delivery.DeliveryLogQuery{DestinationID: d2.ID, Limit: 10}, []string{"dlv_x"}, 1},
		{"by status", delivery.DeliveryLogQuery{Status: "failed", Limit: 10}, []string{"dlv_x", "dlv_0"}, 2},
		{"range, to exclusive", delivery.DeliveryLogQuery{From: &from, To: &to, Limit: 10}, []string{"dlv_1"}, 1},
		{"paged", delivery.DeliveryLogQuery{Limit: 1, Offset: 1}, []string{"dlv_1"}, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, total, err := ds.DeliveryLog(ctx, org, c.q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, d := range got {
				ids = append(ids, d.ID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(c.want) || total != c.total {
				t.Fatalf("got %v total %d; want %v total %d", ids, total, c.want, c.total)
			}
		})
	}
	if got, total, _ := ds.DeliveryLog(ctx, other, delivery.DeliveryLogQuery{Limit: 10}); len(got) != 0 || total != 0 {
		t.Fatalf("another org sees deliveries: %d", total)
	}
}

// A deleted destination's history is readable until it is purged, then gone with it.
func TestPurgeDeletedDestinations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ds := testenv.Stores(t)
	org := testenv.StoreOrg(t, st)
	d, err := ds.CreateDestination(ctx, delivery.Destination{ID: outreach.NewID("dst"), OrgID: org, Name: "x",
		Kind: outreach.DestinationHTTPS, URL: "https://example.com/hook", Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.RecordAttempts(ctx, []delivery.AttemptRecord{{DestinationID: d.ID, OrgID: org, EventID: "evt_1",
		EventKind: "invite_sent", Attempt: 1, Trigger: delivery.TriggerTest, At: time.Now(), URL: d.URL, StatusCode: 200,
		WebhookID: "dlv_test1", Succeeded: true}}); err != nil {
		t.Fatal(err)
	}
	if err := ds.DeleteDestination(ctx, org, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.GetDestination(ctx, org, d.ID); err == nil {
		t.Fatal("a deleted destination is still found")
	}
	if _, at, err := ds.DestinationForLog(ctx, org, d.ID); err != nil || at == nil {
		t.Fatalf("the deleted destination's log: %v %v", at, err)
	}
	if n, err := ds.PurgeDeletedDestinations(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("purged a fresh deletion: %d %v", n, err)
	}
	if list, _, err := ds.AttemptLog(ctx, org, d.ID, 10, 0, false); err != nil || len(list) != 1 || *list[0].DeliveryID != "dlv_test1" {
		t.Fatalf("attempts after the deletion: %+v %v", list, err)
	}
	if n, err := ds.PurgeDeletedDestinations(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	if _, _, err := ds.DestinationForLog(ctx, org, d.ID); err == nil {
		t.Fatal("a purged destination is still found")
	}
	if list, _, err := ds.AttemptLog(ctx, org, d.ID, 10, 0, false); err != nil || len(list) != 0 {
		t.Fatalf("attempts after the purge: %+v %v", list, err)
	}
}
