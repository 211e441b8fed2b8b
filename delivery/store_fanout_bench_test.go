package delivery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/outreach"
)

// BenchmarkFanout measures the fan-out statement alone: one op is a transaction writing the
// deliveries of 100 new events to every destination, on one warm connection prepared as the store
// prepares its own (so from the sixth op on PostgreSQL may run it from a generic plan, as serve
// does). Run with
//
//	DATABASE_URL=$(scripts/db.sh) go test -run '^$' -bench Fanout -benchtime 200x ./delivery/
func BenchmarkFanout(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("dests=%d", n), func(b *testing.B) {
			ctx := context.Background()
			st, ds, conn := storeAndConnection(b, nil)
			org, dests := orgWithDestinations(b, st, ds, n)
			if err := ds.Prepare(ctx, conn); err != nil {
				b.Fatal(err)
			}
			const events = 100
			payload := bytes.Repeat([]byte("x"), 900) // about a lead event's envelope
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				nds := deliveriesToAll(org.ID, dests, events, func(int) []byte { return payload })
				b.StartTimer()
				if res := commitFanout(b, conn, ds, nds); res.Created != events*n {
					b.Fatalf("created %d, want %d", res.Created, events*n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*events*n), "µs/delivery")
		})
	}
}

// BenchmarkFanoutFilters measures the whole fan-out of a business transaction (Store.FanOut: the
// read of the destinations, matching, the statement; not the commit, which filters do not change)
// with and without a filter on every destination: one op fans 100 new campaign_started events out
// to every destination in a transaction, on one warm prepared connection. The filter matches every event, so both cases
// write the same deliveries and the difference is the filters' cost: the envelope decoded once per
// event, one match per destination. Run with
//
//	DATABASE_URL=$(scripts/db.sh) go test -run '^$' -bench FanoutFilters -benchtime 200x ./delivery/
func BenchmarkFanoutFilters(b *testing.B) {
	for _, n := range []int{1, 10} {
		for _, filter := range []string{"", `{"data.campaign.id":{"$exists":true},"data.campaign.status":{"$neq":"archived"}}`} {
			name := fmt.Sprintf("dests=%d/filter=%t", n, filter != "")
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				st, ds, conn := storeAndConnection(b, nil)
				org, dests := orgWithDestinations(b, st, ds, n)
				if filter != "" {
					for _, id := range dests {
						if _, err := ds.UpdateDestination(ctx, org.ID, id, func(d *delivery.Destination) error {
							d.Filter = json.RawMessage(filter)
							return nil
						}); err != nil {
							b.Fatal(err)
						}
					}
				}
				if err := ds.Prepare(ctx, conn); err != nil {
					b.Fatal(err)
				}
				const events = 100
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					evs, bodies := campaignEvents(b, org.ID, events)
					tx, err := conn.Begin(ctx)
					if err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if _, err := ds.FanOut(ctx, tx, evs, bodies, time.Now()); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					if err := tx.Commit(ctx); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*events), "µs/event")
			})
		}
	}
}

// campaignEvents makes n campaign_started events of distinct campaigns, with their bodies as the
// outbox stores them.
func campaignEvents(b *testing.B, org string, n int) ([]outreach.Event, [][]byte) {
	evs, bodies := make([]outreach.Event, n), make([][]byte, n)
	for i := range evs {
		evs[i] = outreach.SampleEvent(outreach.EventCampaignStarted, org, time.Now())
		evs[i].Data.Campaign.ID = outreach.NewID("cmp")
		body, err := json.Marshal(evs[i])
		if err != nil {
			b.Fatal(err)
		}
		bodies[i] = body
	}
	return evs, bodies
}
