package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"outreachd/bench"
	"outreachd/outreach"
)

// receiver is the destinations' endpoint: it answers 204 at once and records, per campaign (one
// campaign per phase), when each delivery arrived and how long after its event's timestamp.
type receiver struct {
	srv  *http.Server
	addr string

	mu     sync.Mutex
	phases map[string]*phaseLog
	ids    map[string]bool // webhook-id of every delivery, to count duplicates
	dups   int
	bad    int // bodies that are not an event envelope with a campaign
}

// phaseLog is what arrived for one campaign.
type phaseLog struct {
	arrivals []time.Time
	lat      []time.Duration
	ids      []string // webhook-id (the delivery id), in arrival order
}

func startReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{addr: ln.Addr().String(), phases: map[string]*phaseLog{}, ids: map[string]bool{}}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.handle), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *receiver) url(path string) string { return "http://" + r.addr + path }

func (r *receiver) close() { _ = r.srv.Close() }

func (r *receiver) handle(w http.ResponseWriter, req *http.Request) {
	now := time.Now()
	body, err := io.ReadAll(req.Body)
	w.WriteHeader(http.StatusNoContent)
	var ev struct {
		Timestamp string `json:"timestamp"`
		Data      struct {
			Campaign struct {
				ID string `json:"id"`
			} `json:"campaign"`
		} `json:"data"`
	}
	ok := err == nil && json.Unmarshal(body, &ev) == nil && ev.Data.Campaign.ID != ""
	var at time.Time
	if ok {
		at, err = time.Parse(outreach.TimeLayout, ev.Timestamp)
		ok = err == nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !ok {
		r.bad++
		return
	}
	id := req.Header.Get("webhook-id")
	if r.ids[id] {
		r.dups++
	}
	r.ids[id] = true
	// A destination whose URL says ?phase=x is logged apart: campaign#x (the throttle phase).
	key := ev.Data.Campaign.ID
	if ph := req.URL.Query().Get("phase"); ph != "" {
		key += "#" + ph
	}
	p := r.phases[key]
	if p == nil {
		p = &phaseLog{}
		r.phases[key] = p
	}
	p.arrivals = append(p.arrivals, now)
	p.lat = append(p.lat, now.Sub(at))
	p.ids = append(p.ids, id)
}

// firstOf is the delivery id (webhook-id) and arrival time of campaign's first delivery, once
// one arrived (count > 0); zero values before.
func (r *receiver) firstOf(campaign string) (delivery string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.phases[campaign]; p != nil && len(p.arrivals) > 0 {
		return p.ids[0], p.arrivals[0]
	}
	return "", time.Time{}
}

// count is how many deliveries of campaign arrived so far.
func (r *receiver) count(campaign string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.phases[campaign]; p != nil {
		return len(p.arrivals)
	}
	return 0
}

// waitFor waits until want deliveries of campaign arrived, or until none arrived for stall.
func (r *receiver) waitFor(campaign string, want int, stall time.Duration) int {
	last, lastAt := -1, time.Now()
	for {
		n := r.count(campaign)
		if n >= want {
			return n
		}
		if n != last {
			last, lastAt = n, time.Now()
		} else if time.Since(lastAt) > stall {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// phaseFigures are the receiver's figures of one phase.
type phaseFigures struct {
	received int
	// sustained is deliveries per second between the 10th and the 90th percentile of arrivals,
	// which leaves out the ramp-up of the first pushes and the tail of the last.
	sustained float64
	first     time.Time
	last      time.Time
	latency   bench.Summary
}

func (r *receiver) figures(campaign string) phaseFigures { return r.figuresOf([]string{campaign}) }

// figuresOf is the figures of the deliveries of several campaigns together.
func (r *receiver) figuresOf(campaigns []string) phaseFigures {
	r.mu.Lock()
	var arrivals []time.Time
	var lat []time.Duration
	for _, c := range campaigns {
		if p := r.phases[c]; p != nil {
			arrivals, lat = append(arrivals, p.arrivals...), append(lat, p.lat...)
		}
	}
	r.mu.Unlock()
	f := phaseFigures{received: len(arrivals), latency: bench.Summarize(lat)}
	if len(arrivals) == 0 {
		return f
	}
	slices.SortFunc(arrivals, func(a, b time.Time) int { return a.Compare(b) })
	f.first, f.last = arrivals[0], arrivals[len(arrivals)-1]
	lo, hi := len(arrivals)/10, len(arrivals)*9/10
	if hi > lo {
		if d := arrivals[hi].Sub(arrivals[lo]); d > 0 {
			f.sustained = float64(hi-lo) / d.Seconds()
		}
	}
	return f
}

// trace writes one line per delivery of a phase — arrival (Unix ms) and latency (ms) — to w,
// for looking at how latency moves during a phase.
func (r *receiver) trace(w io.Writer, label, campaign string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.phases[campaign]
	if p == nil {
		return
	}
	for i, at := range p.arrivals {
		traceLine(w, label, at, p.lat[i])
	}
}

// traceLine writes one line of -trace: "<label> <Unix ms> <ms>" (a delivery's arrival and
// latency, or the start and length of a slow push or canary commit).
func traceLine(w io.Writer, label string, at time.Time, d time.Duration) {
	fmt.Fprintf(w, "%s %d %.1f\n", label, at.UnixMilli(), float64(d.Microseconds())/1000)
}

func (r *receiver) anomalies() (dups, bad int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dups, r.bad
}
