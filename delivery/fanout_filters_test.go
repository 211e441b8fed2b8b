package delivery_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// startedIn is a campaign_started event of campaign id.
func startedIn(org, id string) outreach.Event {
	ev := outreach.SampleEvent(outreach.EventCampaignStarted, org, time.Now())
	ev.Data.Campaign.ID = id
	return ev
}

// deliveriesOf counts the deliveries each destination of org has.
func deliveriesOf(t *testing.T, ds *delivery.Store, org string, dests ...string) []int {
	t.Helper()
	out := make([]int, len(dests))
	for i, d := range dests {
		_, n, err := ds.DeliveryLog(context.Background(), org, delivery.DeliveryLogQuery{DestinationID: d, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = n
	}
	return out
}

// TestFanoutMatchesFilters covers the fan-out's part of filters: an event goes to a destination
// that selected its kind only when its filter matches; a filtered-out event writes no delivery;
// a changed filter applies to the next transaction (the compiled one is kept per version of the
// row); removing it sends everything again.
func TestFanoutMatchesFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ds := testenv.Stores(t)
	org := testenv.StoreOrg(t, st)
	create := func(name string, events []string, filter string) delivery.Destination {
		d := delivery.Destination{OrgID: org, Name: name, Kind: "https", URL: "https://" + name + ".example.com/h", Events: events, Enabled: true}
		if filter != "" {
			d.Filter = json.RawMessage(filter)
		}
		out, err := ds.CreateDestination(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := create("all", nil, "")
	one := create("one", []string{"campaign_started", "prospect_added"}, `{"data.campaign.id":"cmp_x"}`)
	never := create("never", []string{"campaign_started"}, `{"data.campaign.id":{"$in":["cmp_none"]}}`)
	if string(one.Filter) != `{"data.campaign.id":"cmp_x"}` {
		t.Fatalf("stored filter reads %s", one.Filter)
	}
	emit := func(evs ...outreach.Event) {
		t.Helper()
		if err := st.InTx(ctx, func(tx *storage.Tx) error {
			for _, ev := range evs {
				tx.Emit(ev)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	before := ds.FanoutCounts()
	added := outreach.SampleEvent(outreach.EventProspectAdded, org, time.Now())
	added.Data.Campaign.ID = "cmp_x"
	emit(startedIn(org, "cmp_x"), startedIn(org, "cmp_y"), added)
	if got := deliveriesOf(t, ds, org, all.ID, one.ID, never.ID); got[0] != 3 || got[1] != 2 || got[2] != 0 {
		t.Fatalf("deliveries of all, one, never: %v, want [3 2 0]", got)
	}
	// Filtered out: cmp_y to one; cmp_x and cmp_y to never (prospect_added is not never's kind).
	if got := ds.FanoutCounts().Filtered - before.Filtered; got != 3 {
		t.Fatalf("filtered out %d, want 3", got)
	}

	// A new filter applies to the next transaction.
	if _, err := ds.UpdateDestination(ctx, org, one.ID, func(d *delivery.Destination) error {
		d.Filter = json.RawMessage(`{"data.campaign.id":"cmp_y"}`)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	emit(startedIn(org, "cmp_x"), startedIn(org, "cmp_y"))
	if got := deliveriesOf(t, ds, org, one.ID); got[0] != 3 {
		t.Fatalf("deliveries of one after its filter changed to cmp_y: %d, want 3 (cmp_y only)", got[0])
	}

	// Without its filter the destination gets every event of its kinds.
	if _, err := ds.UpdateDestination(ctx, org, never.ID, func(d *delivery.Destination) error {
		d.Filter = nil
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	emit(startedIn(org, "cmp_z"))
	if got := deliveriesOf(t, ds, org, never.ID); got[0] != 1 {
		t.Fatalf("deliveries of never once its filter is removed: %d, want 1", got[0])
	}
}
