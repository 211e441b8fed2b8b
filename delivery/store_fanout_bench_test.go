package delivery_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
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
