package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"outreachd/adapters/webhook"
	"outreachd/outreach"
)

// BenchmarkSendCeiling measures what the HTTP part of a delivery costs on this machine, with no
// database at all: the hub's own send path (its headers with both signatures, the webhook sender
// with its transport) from 32 goroutines — one destination's slots — to a loopback receiver that
// reads the envelope as the load driver's does (the timestamp and the campaign id) and answers
// 204. Client and receiver share the process, so cpu-µs/send is the whole exchange: both sides'
// user time and the kernel's loopback work charged to them (getrusage). It bounds what a machine
// can deliver whatever the database does: deliveries/s ≤ cores × 10⁶ / cpu-µs/send, before a
// single row is written (docs/performance.md, "What bounds this machine"). Run with
//
//	go test -run '^$' -bench SendCeiling -benchtime 20000x ./delivery/
func BenchmarkSendCeiling(b *testing.B) {
	const slots = 32
	var bad atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusNoContent)
		var env struct {
			Timestamp string `json:"timestamp"`
			Data      struct {
				Campaign struct{ ID string } `json:"campaign"`
			} `json:"data"`
		}
		if err != nil || json.Unmarshal(body, &env) != nil || env.Data.Campaign.ID == "" {
			bad.Add(1)
			return
		}
		if _, err := time.Parse(outreach.TimeLayout, env.Timestamp); err != nil {
			bad.Add(1)
		}
	}))
	defer recv.Close()
	sender := webhook.NewSender(webhook.Config{Timeout: 5 * time.Second, AllowPrivate: true})
	payload, err := json.Marshal(outreach.SampleEvent(outreach.EventProspectAdded, "org_bench", time.Now()))
	if err != nil {
		b.Fatal(err)
	}
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	send := func(i int) error {
		hdr := deliveryHeaders(secret, "", fmt.Sprintf("dlv_%d", i), string(outreach.EventProspectAdded), time.Now(), payload)
		if r := sender.Send(context.Background(), webhook.Request{URL: recv.URL, Body: payload, Header: hdr}); !r.OK {
			return fmt.Errorf("send %d: %d %s", i, r.StatusCode, r.Error)
		}
		return nil
	}
	for i := range slots { // open the connections before timing
		if err := send(i); err != nil {
			b.Fatal(err)
		}
	}
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	cpu0 := processCPU(b)
	b.ResetTimer()
	start := time.Now()
	for range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)); i <= b.N; i = int(next.Add(1)) {
				if err := send(i); err != nil {
					failed.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	if n := bad.Load(); n > 0 {
		b.Fatalf("the receiver could not read %d envelopes", n)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "sends/s")
	b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/send")
}

// processCPU is the user and system time this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
