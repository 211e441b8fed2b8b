package delivery_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
)

// The operator log's read of destinations: those with failed attempts since their last success,
// and the watched ones however they stand (to see them recover), most failures first; a healthy
// destination nobody watches, and a watched id that is no destination, are not listed.
func TestDestinationsFailingListsFailingAndWatched(t *testing.T) {
	t.Parallel()
	st, ds := testenv.Stores(t)
	ctx := context.Background()
	org, dests := orgWithDestinations(t, st, ds, 3)
	failing, watched := dests[0], dests[1]
	var recs []delivery.AttemptRecord
	for i, code := range []int{500, 500, 200} {
		dest := failing
		if code == 200 {
			dest = watched
		}
		recs = append(recs, delivery.AttemptRecord{DestinationID: dest, OrgID: org.ID, EventID: fmt.Sprint("evt_", i),
			EventKind: "invite_sent", Attempt: 1, Trigger: delivery.TriggerScheduled, At: time.Now(), URL: "https://example.com",
			StatusCode: code, Succeeded: code == 200})
	}
	if err := ds.RecordAttempts(ctx, recs); err != nil {
		t.Fatal(err)
	}
	got, err := ds.DestinationsFailing(ctx, []string{watched, "dst_unknown"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != failing || got[0].ConsecutiveFailures != 2 || got[1].ID != watched ||
		got[1].ConsecutiveFailures != 0 || got[0].OrgID != org.ID || !got[0].Enabled {
		t.Fatalf("failing destinations: %+v; want %s with 2 failures, then the watched %s with none", got, failing, watched)
	}
}
