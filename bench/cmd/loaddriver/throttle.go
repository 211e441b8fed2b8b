package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/bench"
)

// The throttle phase of make bench-delivery (-throttle, -throttle-burst): a burst of prospect_added
// events to two destinations that select them, first both without a rate limit, then with the
// second limited to -throttle requests a second. The same deliveries are written both times, so
// the first destination's drain time and latency, beside an unthrottled and beside a throttled
// neighbour, show whether one throttled destination slows the others; and the throttled one's
// rows show what it gets: its rate, the busiest one-second window of the attempts' starts and of
// the arrivals at its receiver, how long its backlog took to drain. It runs on a database and
// server of its own.

const (
	throttleBegin = "<!-- loaddriver:throttle:begin -->"
	throttleEnd   = "<!-- loaddriver:throttle:end -->"
)

// throttleRow is one destination's figures in one phase of the throttle measurement.
type throttleRow struct {
	phase, dest string
	expected    int
	fig         phaseFigures
	drained     time.Duration // from the first push to the last arrival
	busiest     int           // the most arrivals within any one second
	starts      int           // the most attempts the attempt log says started within any one second
}

func runThrottle(bin, base string, recv *receiver, o options) (string, error) {
	ctx := context.Background()
	db, err := createDatabase(ctx, base)
	if err != nil {
		return "", err
	}
	defer func() {
		if !o.keep {
			db.drop()
		}
	}()
	srv, err := startServer(bin, db.url, "RATE_LIMIT_PER_MINUTE=1000000")
	if err != nil {
		return "", err
	}
	defer srv.stop()
	org, err := adminString(bin, db.url, "org_id", "org", "create", "--name", "Throttle", "--rate-limit-per-minute", "1000000")
	if err != nil {
		return "", err
	}
	key, err := adminString(bin, db.url, "key", "key", "create", "--org", org, "--scope", "read_write")
	if err != nil {
		return "", err
	}
	if _, err := adminString(bin, db.url, "destination_id", "destination", "create", "--org", org, "--name", "free",
		"--url", recv.url("/"+db.name+"/free?phase=free"), "--events", "prospect_added", "--secret", "load-driver-free"); err != nil {
		return "", err
	}
	slow, err := adminString(bin, db.url, "destination_id", "destination", "create", "--org", org, "--name", "slow",
		"--url", recv.url("/"+db.name+"/slow?phase=slow"), "--events", "prospect_added", "--secret", "load-driver-slow",
		"--rate-limit-per-second", fmt.Sprint(o.throttle))
	if err != nil {
		return "", err
	}
	client := bench.NewClient(srv.url, key)
	limit := func(rate string) error {
		return client.Do(ctx, http.MethodPatch, "/api/v1/destinations/"+slow, []byte(`{"rate_limit_per_second":`+rate+`}`), nil)
	}
	if err := limit("null"); err != nil {
		return "", err
	}
	warm, err := client.CreateCampaign(ctx, "warm-up")
	if err != nil {
		return "", err
	}
	if err := client.PushLeads(ctx, warm, "warm-"+db.name, 0, 100); err != nil {
		return "", err
	}
	recv.waitFor(warm+"#free", 100, 30*time.Second)
	recv.waitFor(warm+"#slow", 100, 30*time.Second)
	// The first burst goes to both destinations alike, so the first one's figures there are the
	// baseline: beside a neighbour that takes its share of the sends, unthrottled.

	var rows []throttleRow
	for _, throttled := range []bool{false, true} {
		phase, prefix := "beside an unthrottled one", "free-"+db.name
		if throttled {
			if err := limit(fmt.Sprint(o.throttle)); err != nil {
				return "", err
			}
			phase, prefix = fmt.Sprintf("beside one throttled at %d/s", o.throttle), "slow-"+db.name
		}
		campaign, err := client.CreateCampaign(ctx, phase)
		if err != nil {
			return "", err
		}
		started := time.Now()
		if err := pushSpread(ctx, []*bench.Client{client}, o.clients, campaign, prefix, o.throttleBurst); err != nil {
			return "", err
		}
		dests := []string{"free"} // the first burst's second destination is the first's twin
		if throttled {
			dests = append(dests, "slow")
		}
		for _, d := range dests {
			key := campaign + "#" + d
			recv.waitFor(key, o.throttleBurst, 30*time.Second)
			r := throttleRow{phase: phase, dest: "first (no limit)", expected: o.throttleBurst, fig: recv.figures(key), busiest: recv.busiestSecond(key)}
			if d == "slow" {
				r.dest = "second (no limit)"
				if throttled {
					r.dest = fmt.Sprintf("second, limited to %d/s", o.throttle)
				}
			}
			r.drained = r.fig.last.Sub(started)
			if r.starts, err = busiestStarts(ctx, db.url, campaign, d); err != nil {
				return "", err
			}
			rows = append(rows, r)
			fmt.Fprintf(os.Stderr, "throttle, %s: %s received %d of %d in %s\n", phase, r.dest, r.fig.received, r.expected, r.drained.Round(time.Millisecond))
		}
	}
	return renderThrottle(rows, o), nil
}

// renderThrottle writes the phase's figures as one paragraph (the section sits in a reference
// kept short).
func renderThrottle(rows []throttleRow, o options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%s): %d events from %d pushers in 100-lead calls, to two destinations.",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), bench.Machine(), strings.Join(os.Args[1:], " "), o.throttleBurst, o.clients)
	for _, r := range rows {
		fmt.Fprintf(&b, " %s, %s: %d / %d received, the last %.2f s after the first push, %.0f/s sustained, latency p50 %s ms, p99 %s ms, busiest second %d starts (attempt log) and %d arrivals.",
			strings.ToUpper(r.phase[:1])+r.phase[1:], r.dest, r.fig.received, r.expected, r.drained.Seconds(), r.fig.sustained,
			bench.Ms(r.fig.latency.P50), bench.Ms(r.fig.latency.P99), r.starts, r.busiest)
	}
	b.WriteString("\n")
	return b.String()
}

// busiestStarts is the most attempts towards destination name of campaign's events that started
// within one second, by the attempt log's start times.
func busiestStarts(ctx context.Context, dbURL, campaign, name string) (int, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT a.at FROM delivery_attempts a
		JOIN destinations d ON d.id = a.destination_id AND d.name = $2
		JOIN delivery_payloads p ON p.event_id = a.event_id
		WHERE convert_from(p.payload, 'UTF8')::jsonb #>> '{data,campaign,id}' = $1`, campaign, name)
	if err != nil {
		return 0, err
	}
	at, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		return 0, err
	}
	return bench.BusiestSecond(at), nil
}

// busiestSecond is the most deliveries of key that arrived within one second.
func (r *receiver) busiestSecond(key string) int {
	r.mu.Lock()
	var at []time.Time
	if p := r.phases[key]; p != nil {
		at = slices.Clone(p.arrivals)
	}
	r.mu.Unlock()
	return bench.BusiestSecond(at)
}
