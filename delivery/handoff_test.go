package delivery_test

import (
	"context"
	"testing"
	"time"

	"outreachd/storage"
)

// An event committed through the hub's own store is delivered without waiting for the outbox
// consumer, which reads nothing newer than the oldest transaction open on the server: here one
// holds a transaction id for the whole delivery. Once it ends, the consumer reads the event,
// recognises it as handed off and writes nothing; an event committed through another store (as
// the admin CLI or another process would) still goes through the outbox. Each event arrives once.
func TestHandoffDoesNotWaitForTheOutboxHorizon(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{allowPrivate: true})
	rc := newReceiver(t, nil)
	d := e.destination(t, rc.URL, "")
	ctx := context.Background()

	blocker, err := e.st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Rollback(ctx) //nolint:errcheck
	if _, err := blocker.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil {
		t.Fatal(err)
	}
	direct := sample(e.org)
	e.emit(t, direct)
	rc.waitFor(t, 15*time.Second, "the handed-off event while a transaction holds the outbox back", atLeast(1))
	// The blocker was open the whole time: the event cannot have come through the outbox.
	var open bool
	if err := blocker.QueryRow(ctx, `SELECT true`).Scan(&open); err != nil || !open {
		t.Fatalf("the blocking transaction ended early: %v", err)
	}
	if err := blocker.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	// Another store has no hand-off: its event goes through the outbox, after the first one.
	other, err := storage.Open(ctx, e.st.Pool().Config().ConnString(), storage.Config{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	viaOutbox := sample(e.org)
	if err := other.InTx(ctx, func(tx *storage.Tx) error { tx.Emit(viaOutbox); return nil }); err != nil {
		t.Fatal(err)
	}
	rc.waitFor(t, 15*time.Second, "the event committed through another store", atLeast(2))
	e.waitFinished(t, d.ID, 2, 15*time.Second)
	time.Sleep(200 * time.Millisecond) // a second send of the first event would arrive about now
	got := rc.requests()
	count := map[string]int{}
	for _, r := range got {
		count[r.campaignID()]++
	}
	if count[direct.Data.Campaign.ID] != 1 || count[viaOutbox.Data.Campaign.ID] != 1 || len(got) != 2 {
		t.Fatalf("arrivals per event = %v (%d requests), want each of the two events once", count, len(got))
	}
	if n := counter(t, e.reg, "outreachd_delivery_fanout_collapsed_total"); n != 0 {
		t.Errorf("collapsed = %v; an event fanned out by both paths is not a collapsed payload", n)
	}
	if n := counter(t, e.reg, "outreachd_delivery_fanout_deliveries_total"); n != 2 {
		t.Errorf("deliveries created = %v, want 2", n)
	}
	byPath := pathCounts(t, e)
	if byPath["handoff"] != 1 || byPath["outbox"] != 1 {
		t.Errorf("events fanned out by path = %v, want one by the hand-off and one through the outbox", byPath)
	}
}

func pathCounts(t *testing.T, e *hubEnv) map[string]float64 {
	t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "outreachd_delivery_fanout_events_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "path" {
					out[l.GetValue()] += counterValue(m)
				}
			}
		}
	}
	return out
}
