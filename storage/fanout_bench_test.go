package storage_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"outreachd/internal/testenv"
	"outreachd/storage"
)

// BenchmarkFanout measures the fan-out statement alone: one op is a transaction writing the
// deliveries of 100 new events to every destination, on one warm connection prepared as the store
// prepares its own (so from the sixth op on PostgreSQL may run it from a generic plan, as serve
// does). Run with
//
//	DATABASE_URL=$(scripts/db.sh) go test -run '^$' -bench Fanout -benchtime 200x ./storage/
func BenchmarkFanout(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("dests=%d", n), func(b *testing.B) {
			ctx := context.Background()
			url := testenv.DatabaseURL(b)
			st, err := storage.Open(ctx, url, storage.Config{MaxConns: 2})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close(ctx)
			org, err := st.CreateOrg(ctx, "o", nil)
			if err != nil {
				b.Fatal(err)
			}
			var dests []string
			for i := range n {
				d, err := st.CreateDestination(ctx, storage.Destination{OrgID: org.ID, Name: fmt.Sprint("d", i), Kind: "https",
					URL: fmt.Sprintf("https://d%d.example.com/hook", i), Enabled: true})
				if err != nil {
					b.Fatal(err)
				}
				dests = append(dests, d.ID)
			}
			if err := storage.PrepareFanout(ctx, conn); err != nil {
				b.Fatal(err)
			}
			const events = 100
			payload := bytes.Repeat([]byte("x"), 900) // about a lead event's envelope
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				nds := deliveriesToAll(org.ID, dests, events, func(int) []byte { return payload })
				b.StartTimer()
				tx, err := conn.Begin(ctx)
				if err != nil {
					b.Fatal(err)
				}
				res, err := st.InsertDeliveryBatch(ctx, tx, nds)
				if err != nil {
					b.Fatal(err)
				}
				if err := tx.Commit(ctx); err != nil {
					b.Fatal(err)
				}
				if res.Created != events*n {
					b.Fatalf("created %d, want %d", res.Created, events*n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*events*n), "µs/delivery")
		})
	}
}
