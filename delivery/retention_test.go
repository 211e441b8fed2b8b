package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// TestRetentionRemovesOnlyWhatIsPast builds every kind of row the policy must tell apart —
// finished and pending deliveries older than the period, a young one, a test attempt, old and
// young outbox rows — and checks what one pass removes, in batches of three
// rows, and that resend and recover then say the data is past retention.
func TestRetentionRemovesOnlyWhatIsPast(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{noRun: true})
	ctx := context.Background()
	st, ds := e.st, e.ds
	dst := e.destination(t, "https://receiver.example/hook", "")
	// Ten events: e0–e5 succeeded, e6–e7 failed, e8 pending (all two hours old), e9 succeeded now.
	var events []outreach.Event
	for range 10 {
		ev := sample(e.org)
		events = append(events, ev)
		e.emit(t, ev)
		time.Sleep(2 * time.Millisecond) // ids sort by time
	}
	// Each event's transaction wrote its delivery (the hub does not run: nothing is sent).
	ids := make([]string, len(events))
	for i, ev := range events {
		ids[i] = outreach.DeliveryID(ev.ID, dst.ID)
	}
	var recs []delivery.AttemptRecord
	for i, id := range ids {
		status := delivery.DeliverySucceeded
		switch {
		case i == 6 || i == 7:
			status = delivery.DeliveryFailed
		case i == 8:
			status = delivery.DeliveryPending
		}
		r := delivery.AttemptRecord{DeliveryID: id, DestinationID: dst.ID, OrgID: e.org, EventID: events[i].ID,
			EventKind: string(events[i].Kind), Attempt: 1, Trigger: delivery.TriggerScheduled, At: time.Now(), URL: dst.URL,
			StatusCode: 200, Status: status, Succeeded: status == delivery.DeliverySucceeded}
		if status == delivery.DeliveryPending {
			next := time.Now().Add(time.Hour)
			r.NextAttemptAt, r.StatusCode = &next, 500
		}
		recs = append(recs, r)
	}
	recs = append(recs, delivery.AttemptRecord{DestinationID: dst.ID, OrgID: e.org, EventID: "evt_test", EventKind: "campaign_started",
		Attempt: 1, Trigger: delivery.TriggerTest, At: time.Now(), URL: dst.URL, StatusCode: 200, Succeeded: true})
	if err := ds.RecordAttempts(ctx, recs); err != nil {
		t.Fatal(err)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	old := ids[:9]
	exec(`UPDATE deliveries SET created_at = now() - interval '2 hours', updated_at = now() - interval '2 hours' WHERE id = ANY($1)`, old)
	exec(`UPDATE delivery_attempts SET at = now() - interval '2 hours' WHERE delivery_id = ANY($1) OR delivery_id IS NULL`, old)
	exec(`UPDATE delivery_payloads SET created_at = now() - interval '2 hours' WHERE event_id IN (SELECT event_id FROM deliveries WHERE id = ANY($1))`, old)
	// The outbox: the first six rows three hours old, the last four young.
	ageOutbox := func(n int) {
		t.Helper()
		exec(`UPDATE watermill_events e SET created_at = e.created_at - interval '3 hours' FROM (
			SELECT transaction_id, "offset" FROM watermill_events ORDER BY transaction_id, "offset" LIMIT $1) o
			WHERE e.transaction_id = o.transaction_id AND e."offset" = o."offset"`, n)
	}
	ageOutbox(6)

	reg := prometheus.NewRegistry()
	ret, err := delivery.NewRetention(ds, st, reg, delivery.RetentionConfig{Attempts: time.Hour, Outbox: time.Hour, Batch: 3, Pause: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	removed, err := ret.RunOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The finished old deliveries (e0–e7) with their attempts and payloads, the test attempt and
	// the six old outbox rows go; the pending one, the young one and young outbox rows stay.
	want := map[string]int64{"watermill_events": 6, "deliveries": 8, "delivery_attempts": 1, "delivery_payloads": 8}
	for k, v := range want {
		if removed[k] != v {
			t.Errorf("first pass removed %d %s; want %d (all: %v)", removed[k], k, v, removed)
		}
	}
	ageOutbox(4) // the six removed rows are gone: age the last four
	removed, err = ret.RunOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]int64{"watermill_events": 4, "deliveries": 0, "delivery_attempts": 0, "delivery_payloads": 0}
	for k, v := range want {
		if removed[k] != v {
			t.Errorf("second pass removed %d %s; want %d (all: %v)", removed[k], k, v, removed)
		}
	}
	count := func(sql string, args ...any) int {
		t.Helper()
		var n int
		if err := st.Pool().QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*)::int FROM deliveries WHERE id = ANY($1)`, []string{ids[8], ids[9]}); n != 2 {
		t.Errorf("the pending and the young delivery: %d of 2 kept", n)
	}
	if n := count(`SELECT count(*)::int FROM delivery_attempts WHERE delivery_id = ANY($1)`, []string{ids[8], ids[9]}); n != 2 {
		t.Errorf("their attempts: %d of 2 kept", n)
	}
	if n := count(`SELECT count(*)::int FROM delivery_attempts`); n != 2 {
		t.Errorf("%d attempts left; want 2 (the removed deliveries' went with them)", n)
	}
	if n := count(`SELECT count(*)::int FROM delivery_payloads`); n != 2 {
		t.Errorf("%d payloads left; want the pending and the young delivery's", n)
	}
	if n := count(`SELECT count(*)::int FROM watermill_events`); n != 0 {
		t.Errorf("%d outbox rows left; want 0", n)
	}
	for table, n := range map[string]float64{"deliveries": 8, "delivery_attempts": 1, "delivery_payloads": 8, "watermill_events": 10} {
		if got := retentionDeleted(t, reg, table); got != n {
			t.Errorf("outreachd_retention_deleted_rows_total{table=%q} = %v; want %v", table, got, n)
		}
	}

	// Resend and recover say what is gone.
	if err := ds.ResendDelivery(ctx, e.org, ids[0]); !errors.Is(err, outreach.ErrPastRetention) || !strings.Contains(err.Error(), "retention") {
		t.Errorf("resend of a removed delivery: %v; want ErrPastRetention", err)
	}
	if err := ds.ResendDelivery(ctx, e.org, outreach.NewID("dlv")); !errors.Is(err, outreach.ErrNotFound) {
		t.Errorf("resend of an id that never existed: %v; want ErrNotFound", err)
	}
	if err := ds.ResendDelivery(ctx, e.org, ids[9]); err != nil {
		t.Errorf("resend of a kept delivery: %v", err)
	}
	if _, err := ds.RecoverDeliveries(ctx, e.org, "", time.Now().Add(-3*time.Hour), time.Now(), 4); !errors.Is(err, outreach.ErrPastRetention) {
		t.Errorf("recover from before the removed deliveries: %v; want ErrPastRetention", err)
	}
	if _, err := ds.RecoverDeliveries(ctx, e.org, "", time.Now().Add(-time.Hour), time.Now(), 4); err != nil {
		t.Errorf("recover of a range after them: %v", err)
	}
}

// retentionDeleted reads outreachd_retention_deleted_rows_total{table} from reg.
func retentionDeleted(t *testing.T, reg *prometheus.Registry, table string) float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "outreachd_retention_deleted_rows_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "table" && l.GetValue() == table {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no outreachd_retention_deleted_rows_total{table=%q}", table)
	return 0
}

// TestRetentionThroughTheAPI runs the binary with a one-minute retention checked every second,
// ages delivered rows by two hours, and checks that the worker removes them, counts them in
// /metrics, and that resend and recover answer 410 past_retention with a message naming it.
func TestRetentionThroughTheAPI(t *testing.T) {
	t.Parallel()
	rc := countingReceiver{newReceiver(t, nil)}
	db := testenv.DatabaseURL(t)
	srv := testenv.StartServer(t, db, "RETENTION_ATTEMPTS=1m", "RETENTION_OUTBOX=1m", "RETENTION_INTERVAL=1s",
		"RATE_LIMIT_PER_MINUTE=100000")
	org := testenv.NewOrg(t, srv)
	testenv.Admin(t, db, "destination", "create", "--org", org.ID, "--url", rc.URL)
	st, _ := testenv.OpenStores(t, db, 2)
	ids := emitN(t, st, org.ID, 3)
	rc.waitFor(t, 30*time.Second, "three deliveries", allArrived(ids))
	waitNoPending(t, st, 30*time.Second)
	var dlv string
	ctx := context.Background()
	if err := st.Pool().QueryRow(ctx, `SELECT id FROM deliveries ORDER BY id LIMIT 1`).Scan(&dlv); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE deliveries SET created_at = now() - interval '2 hours', updated_at = now() - interval '2 hours'`,
		`UPDATE delivery_attempts SET at = now() - interval '2 hours'`,
		`UPDATE delivery_payloads SET created_at = now() - interval '2 hours'`,
		`UPDATE watermill_events SET created_at = created_at - interval '2 hours'`,
	} {
		if _, err := st.Pool().Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, 20*time.Second, func() (bool, string) {
		var left int
		if err := st.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM deliveries) + (SELECT count(*) FROM delivery_payloads)
			+ (SELECT count(*) FROM watermill_events)`).Scan(&left); err != nil {
			t.Fatal(err)
		}
		return left == 0, fmt.Sprintf("%d rows past retention still there", left)
	})
	metrics := scrape(t, srv.URL)
	for _, line := range []string{`outreachd_retention_deleted_rows_total{table="deliveries"} 3`,
		`outreachd_retention_deleted_rows_total{table="delivery_payloads"} 3`} {
		if !strings.Contains(metrics, line) {
			t.Errorf("/metrics lacks %q", line)
		}
	}
	r := org.Write.Do(t, http.MethodPost, "/api/v1/deliveries/"+dlv+"/resend", nil)
	if r.Status != http.StatusGone || !strings.Contains(string(r.Body), "past_retention") || !strings.Contains(string(r.Body), "retention period") {
		t.Errorf("resend of a removed delivery: %d %s; want 410 past_retention naming the retention period", r.Status, r.Body)
	}
	r = org.Write.Do(t, http.MethodPost, "/api/v1/deliveries/recover", map[string]any{
		"from": time.Now().Add(-3 * time.Hour).UTC().Format(time.RFC3339), "to": time.Now().UTC().Format(time.RFC3339)})
	if r.Status != http.StatusGone || !strings.Contains(string(r.Body), "past_retention") {
		t.Errorf("recover over removed deliveries: %d %s; want 410 past_retention", r.Status, r.Body)
	}
	r = org.Write.Do(t, http.MethodPost, "/api/v1/deliveries/"+outreach.NewID("dlv")+"/resend", nil)
	if r.Status != http.StatusNotFound {
		t.Errorf("resend of an id that never existed: %d %s; want 404", r.Status, r.Body)
	}
}
