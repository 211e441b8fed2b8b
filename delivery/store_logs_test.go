package delivery_test

import (
	"context"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// TestAttemptViews: the hourly health rollup follows what the recorder writes (tests left
// out), the latest attempt and the filtered log read the right rows, and another organization
// reads none of them.
func TestAttemptViews(t *testing.T) {
	st, ds := testenv.Stores(t)
	ctx := context.Background()
	org := testenv.StoreOrg(t, st)
	other := testenv.StoreOrg(t, st)
	d, err := ds.CreateDestination(ctx, delivery.Destination{OrgID: org, Name: "d", Kind: outreach.DestinationHTTPS,
		URL: "https://1.1.1.1/h", Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	hour := time.Now().UTC().Truncate(time.Hour)
	var recs []delivery.AttemptRecord
	for i, c := range []struct {
		kind   string
		code   int
		errMsg string
		at     time.Time
	}{
		{"lead_accepted", 200, "", hour.Add(-2 * time.Hour)},
		{"lead_accepted", 500, "HTTP 500", hour.Add(-2*time.Hour + time.Minute)},
		{"invite_sent", 204, "", hour.Add(time.Minute)},
		{"invite_sent", 0, "connection refused", hour.Add(2 * time.Minute)},
		{"invite_sent", 200, "", hour.Add(3 * time.Minute)},
	} {
		id := outreach.NewID("dlv")
		if _, err := st.Pool().Exec(ctx, `INSERT INTO deliveries (id, org_id, destination_id, event_id, event_kind, dedupe_key, emitted_at)
			VALUES ($1, $2, $3, $4, $5, $6, now())`, id, org, d.ID, outreach.NewID("evt"), c.kind, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, delivery.AttemptRecord{DeliveryID: id, DestinationID: d.ID, OrgID: org, EventID: "evt", EventKind: c.kind,
			Attempt: 1, Trigger: delivery.TriggerScheduled, At: c.at, URL: d.URL, StatusCode: c.code, Error: c.errMsg,
			Status: "succeeded", Succeeded: c.errMsg == ""})
	}
	recs = append(recs, delivery.AttemptRecord{DestinationID: d.ID, OrgID: org, EventID: "evt_t", EventKind: "invite_sent",
		Attempt: 1, Trigger: delivery.TriggerTest, At: hour.Add(4 * time.Minute), URL: d.URL, StatusCode: 500, Error: "HTTP 500"})
	if err := ds.RecordAttempts(ctx, recs[:2]); err != nil {
		t.Fatal(err)
	}
	if err := ds.RecordAttempts(ctx, recs[2:]); err != nil {
		t.Fatal(err)
	}

	health, err := ds.DestinationHealth(ctx, org, []string{d.ID}, hour.Add(-23*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []delivery.HourHealth{{Hour: hour.Add(-2 * time.Hour), Delivered: 1, Failed: 1}, {Hour: hour, Delivered: 2, Failed: 1}}
	got := health[d.ID]
	if len(got) != 2 || !got[0].Hour.Equal(want[0].Hour) || got[0].Delivered != 1 || got[0].Failed != 1 ||
		!got[1].Hour.Equal(want[1].Hour) || got[1].Delivered != 2 || got[1].Failed != 1 {
		t.Fatalf("health = %+v, want %+v (the test send left out)", got, want)
	}
	if h, _ := ds.DestinationHealth(ctx, other, []string{d.ID}, hour.Add(-23*time.Hour)); len(h[d.ID]) != 0 {
		t.Fatal("another organization reads the health")
	}

	last, err := ds.LastAttempts(ctx, org, []string{d.ID})
	if err != nil || last[d.ID].Trigger != delivery.TriggerTest {
		t.Fatalf("latest attempt = %+v, %v; want the test send", last[d.ID], err)
	}
	if l, _ := ds.LastAttempts(ctx, other, []string{d.ID}); len(l) != 0 {
		t.Fatal("another organization reads the latest attempt")
	}

	for _, c := range []struct {
		f    delivery.AttemptFilter
		want int
	}{
		{delivery.AttemptFilter{Limit: 50}, 6},
		{delivery.AttemptFilter{Outcome: "failed", Limit: 50}, 3},
		{delivery.AttemptFilter{Outcome: "delivered", Limit: 50}, 3},
		{delivery.AttemptFilter{Event: "invite_sent", Outcome: "failed", Limit: 50}, 2},
		{delivery.AttemptFilter{Event: "lead_accepted", Limit: 50}, 2},
	} {
		list, more, err := ds.FilteredAttemptLog(ctx, org, d.ID, c.f)
		if err != nil || len(list) != c.want || more {
			t.Errorf("filter %+v: %d rows (more %v, %v), want %d", c.f, len(list), more, err, c.want)
		}
	}
	list, more, _ := ds.FilteredAttemptLog(ctx, org, d.ID, delivery.AttemptFilter{Limit: 4})
	if len(list) != 4 || !more || !list[0].At.After(list[1].At) {
		t.Fatalf("a page of 4: %d rows, more %v", len(list), more)
	}
	if l, _, _ := ds.FilteredAttemptLog(ctx, other, d.ID, delivery.AttemptFilter{Limit: 50}); len(l) != 0 {
		t.Fatal("another organization reads the log")
	}
}
