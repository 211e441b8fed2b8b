package delivery_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"outreachd/adapters/webhook"
	"outreachd/delivery"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// BenchmarkHubStages measures the hub's two stages separately, in process, against the real
// PostgreSQL and a loopback receiver that answers 204 at once: events are committed in
// transactions of 100, as a 100-lead push does, each writing its deliveries (commit_events/s, one
// committer), then the hub starts and sends the backlog (deliveries/s, first to last arrival). Run with
//
//	DATABASE_URL=$(scripts/db.sh) go test -run '^$' -bench HubStages -benchtime 1x ./delivery/
//
// and add -cpuprofile to see where the hub's own CPU goes.
func BenchmarkHubStages(b *testing.B) {
	for _, dests := range []int{1, 10} {
		b.Run(fmt.Sprintf("dests=%d", dests), func(b *testing.B) {
			for range b.N {
				benchStages(b, dests, 20000)
			}
		})
	}
}

func benchStages(b *testing.B, dests, deliveries int) {
	b.StopTimer()
	ctx := context.Background()
	st, ds := testenv.Stores(b)
	org, err := st.CreateOrg(ctx, "Org "+b.Name(), nil)
	if err != nil {
		b.Fatal(err)
	}
	var got atomic.Int64
	var first, last atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		now := time.Now().UnixNano()
		first.CompareAndSwap(0, now)
		last.Store(now)
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	for i := range dests {
		if _, err := ds.CreateDestination(ctx, delivery.Destination{OrgID: org.ID, Name: fmt.Sprint("d", i),
			Kind: outreach.DestinationHTTPS, URL: recv.URL, Enabled: true}); err != nil {
			b.Fatal(err)
		}
	}
	reg := prometheus.NewRegistry()
	hub, err := delivery.NewHub(ds, webhook.NewSender(webhook.Config{Timeout: 5 * time.Second, AllowPrivate: true}), nil, reg,
		delivery.Config{Timeout: 5 * time.Second,
			Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	events := deliveries / dests
	commitStart := time.Now()
	for i := 0; i < events; i += 100 {
		if err := st.InTx(ctx, func(tx *storage.Tx) error {
			for range min(100, events-i) {
				tx.Emit(outreach.SampleEvent(outreach.EventCampaignStarted, org.ID, time.Now()))
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	committed := time.Since(commitStart)
	if n := counter(b, reg, "outreachd_delivery_fanout_deliveries_total"); n != float64(deliveries) {
		b.Fatalf("the commits wrote %v deliveries, want %d", n, deliveries)
	}
	runCtx, cancel := context.WithCancel(ctx)
	b.Cleanup(cancel) // a failed run must not leave the hub running on a closed pool
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- hub.Run(runCtx) }()
	deadline := time.Now().Add(5 * time.Minute)
	for got.Load() < int64(deliveries) {
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d deliveries after 5 minutes", got.Load(), deliveries)
		}
		time.Sleep(2 * time.Millisecond)
	}
	end := time.Now()
	b.StopTimer()
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	span := time.Duration(last.Load() - first.Load())
	b.ReportMetric(float64(events)/committed.Seconds(), "commit_events/s")
	b.ReportMetric(float64(deliveries)/span.Seconds(), "deliveries/s")
	b.ReportMetric(end.Sub(start).Seconds(), "send_s")
}

func counter(b testing.TB, reg *prometheus.Registry, name string) float64 {
	b.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			sum += counterValue(m)
		}
	}
	return sum
}

func counterValue(m *dto.Metric) float64 {
	if c := m.GetCounter(); c != nil {
		return c.GetValue()
	}
	return 0
}
