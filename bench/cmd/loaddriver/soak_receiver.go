package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"outreachd/outreach"
)

// soakReceiver is the soak's destinations: /0 … /n-1. The last one fails (500) the first request
// of every webhook-id and accepts the next, so exactly half its requests fail and every delivery
// to it needs a retry. It keeps, per destination, how many 2xx each webhook-id got (to find
// losses and double sends), and for the current minute the 2xx count and the latencies of the
// healthy destinations' receipts (receipt time minus the envelope's timestamp).
type soakReceiver struct {
	srv   *http.Server
	addr  string
	dests int

	mu        sync.Mutex
	ok        []map[string]int // per destination: webhook-id -> 2xx answers
	seen      map[string]bool  // webhook-ids the failing destination has already failed once
	windowN   int
	windowLat []time.Duration
	windowAt  time.Time
}

func startSoakReceiver(dests int) (*soakReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &soakReceiver{addr: ln.Addr().String(), dests: dests, seen: map[string]bool{}, windowAt: time.Now()}
	for range dests {
		r.ok = append(r.ok, map[string]int{})
	}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.handle), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *soakReceiver) url(i int) string { return fmt.Sprintf("http://%s/%d", r.addr, i) }

func (r *soakReceiver) close() { _ = r.srv.Close() }

func (r *soakReceiver) handle(w http.ResponseWriter, req *http.Request) {
	now := time.Now()
	body, _ := io.ReadAll(req.Body)
	dest, err := strconv.Atoi(strings.TrimPrefix(req.URL.Path, "/"))
	if err != nil || dest < 0 || dest >= r.dests {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	id := req.Header.Get("webhook-id")
	r.mu.Lock()
	defer r.mu.Unlock()
	if dest == r.dests-1 && !r.seen[id] {
		r.seen[id] = true
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
	r.ok[dest][id]++
	r.windowN++
	if dest == r.dests-1 {
		return // its latency includes the retry delay by design
	}
	var ev struct {
		Timestamp string `json:"timestamp"`
	}
	if json.Unmarshal(body, &ev) == nil {
		if at, err := time.Parse(outreach.TimeLayout, ev.Timestamp); err == nil {
			r.windowLat = append(r.windowLat, now.Sub(at))
		}
	}
}

// takeWindow returns the 2xx receipts and latencies since the previous call, and its length.
func (r *soakReceiver) takeWindow() (int, []time.Duration, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, lat, span := r.windowN, r.windowLat, time.Since(r.windowAt)
	r.windowN, r.windowLat, r.windowAt = 0, nil, time.Now()
	return n, lat, span
}

// verdict is, per destination, the distinct webhook-ids answered 2xx and those answered 2xx more
// than once.
func (r *soakReceiver) verdict(dests int) (delivered, twice []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delivered, twice = make([]int, dests), make([]int, dests)
	for i := range dests {
		delivered[i] = len(r.ok[i])
		for _, n := range r.ok[i] {
			if n > 1 {
				twice[i]++
			}
		}
	}
	return delivered, twice
}
