package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/bench"
	"outreachd/internal/testenv"
)

// The soak run (`make soak`, -mode soak): the real outreachd on a private PostgreSQL cluster with
// default settings (autovacuum on, unlike the shared test server), a steady offered load for a
// long time, and a short retention so the tables' churn — inserts, updates, removals, vacuum —
// reaches its steady state within the run. Every minute it prints the delivered rate, the
// latency p99, the hub's table sizes and the server's RSS; at the end it checks that every event
// reached every destination exactly once (a 2xx per webhook-id, never two) and draws the curves
// as an SVG.

// soakDests is the number of destinations of the soak; the last one is the failing one.
const soakDests = 3

// soakTables are the tables whose size the soak follows.
var soakTables = []string{"deliveries", "delivery_attempts", "delivery_payloads", "watermill_events"}

// soakMinute is one report line.
type soakMinute struct {
	minute    int
	delivered float64 // 2xx receipts per second over the minute, all destinations
	p50, p99  time.Duration
	tableMB   map[string]float64
	rows      map[string]int64
	rssMB     float64
	pushFails int64
	load      string
}

func runSoak(bin string, o options) {
	fmt.Fprintf(os.Stderr, "soak: starting a private PostgreSQL cluster (default settings, autovacuum on)\n")
	cluster, err := testenv.NewCluster()
	check(err)
	defer cluster.Remove()
	recv, err := startSoakReceiver(soakDests)
	check(err)
	defer recv.close()
	env := []string{"RATE_LIMIT_PER_MINUTE=1000000", "RETENTION_ATTEMPTS=" + o.retention.String(),
		"RETENTION_OUTBOX=" + o.retentionOutbox.String(), "RETENTION_INTERVAL=10s", "DELIVERY_RETRY_SCHEDULE=0s,5s,30s,1m"}
	srv, err := startServer(bin, cluster.URL, env...)
	check(err)
	defer srv.stop()
	key, err := setUpSoakOrg(bin, cluster.URL, recv)
	check(err)
	client := bench.NewClient(srv.url, key)
	ctx := context.Background()
	campaign, err := client.CreateCampaign(ctx, "soak")
	check(err)
	db, err := pgx.Connect(ctx, cluster.URL)
	check(err)
	defer db.Close(context.Background())

	minutes, events, fails, firstErr := soakLoad(ctx, client, campaign, db, recv, srv.pid(), o)
	fmt.Fprintf(os.Stderr, "soak: load finished: %d events pushed, %d push calls failed; waiting for the deliveries to finish\n", events, fails)
	verdict := verifySoak(ctx, db, recv, int(events), soakDests, 5*time.Minute)
	fmt.Println(verdict.String())
	if firstErr != "" {
		fmt.Printf("first push error: %s\n", firstErr)
	}
	report := renderSoak(minutes, verdict, events, fails, o)
	if o.svg != "" {
		check(os.WriteFile(o.svg, []byte(soakSVG(minutes)), 0o644))
		fmt.Fprintf(os.Stderr, "soak: wrote %s\n", o.svg)
	}
	if o.doc != "" {
		check(writeMarkedSection(o.doc, soakBegin, soakEnd, report))
		fmt.Fprintf(os.Stderr, "soak: wrote the results into %s\n", o.doc)
	}
	fmt.Print(report)
	if !verdict.ok() {
		// fatalf exits without running the deferred clean-ups: do them first.
		srv.stop()
		recv.close()
		cluster.Remove()
		fatalf("soak: the check failed: events lost, sent twice or still pending (server log: %s)", srv.log)
	}
}

// setUpSoakOrg creates the organization, its key and the destinations at the receiver through
// the admin CLI, and returns the key.
func setUpSoakOrg(bin, dbURL string, recv *soakReceiver) (string, error) {
	org, err := adminString(bin, dbURL, "org_id", "org", "create", "--name", "Soak", "--rate-limit-per-minute", "1000000")
	if err != nil {
		return "", err
	}
	key, err := adminString(bin, dbURL, "key", "key", "create", "--org", org, "--scope", "read_write")
	if err != nil {
		return "", err
	}
	for i := range soakDests {
		if _, err := adminString(bin, dbURL, "destination_id", "destination", "create", "--org", org,
			"--url", recv.url(i), "--events", "prospect_added", "--secret", fmt.Sprintf("soak-secret-%d", i),
			"--name", fmt.Sprintf("soak %d", i)); err != nil {
			return "", err
		}
	}
	return key, nil
}

// soakLoad offers the steady load for o.duration and measures a line every minute; it returns
// the minutes, the events pushed, the failed push calls and the first failure.
func soakLoad(ctx context.Context, client *bench.Client, campaign string, db *pgx.Conn, recv *soakReceiver, pid int, o options) ([]soakMinute, int64, int64, string) {
	batch := 10
	callsPerSec := float64(o.rate) / float64(batch)
	fmt.Fprintf(os.Stderr, "soak: %d events/s (%d-lead pushes) to %d destinations (the last fails the first request of every delivery) for %s; retention %s (outbox %s)\n",
		o.rate, batch, soakDests, o.duration, o.retention, o.retentionOutbox)
	var pushed, fails atomic.Int64
	var firstErr atomic.Value
	loadDone := make(chan int)
	start := time.Now()
	go func() {
		loadDone <- bench.OpenLoop(ctx, callsPerSec, o.duration, func(ctx context.Context, i int, _ time.Time) {
			if err := client.PushLeads(ctx, campaign, "soak", i*batch, batch); err != nil {
				fails.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
				return
			}
			pushed.Add(int64(batch))
		})
	}()
	var minutes []soakMinute
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	running := true
	for running {
		select {
		case <-tick.C:
		case <-loadDone:
			running = false
		}
		if !running && time.Since(start) < time.Duration(len(minutes)+1)*time.Minute-5*time.Second {
			break // the last, partial minute is left out
		}
		m := measureMinute(ctx, db, recv, pid, len(minutes)+1)
		m.pushFails = fails.Load()
		minutes = append(minutes, m)
		fmt.Println(m.line())
	}
	e, _ := firstErr.Load().(string)
	return minutes, pushed.Load(), fails.Load(), e
}

// measureMinute takes the receiver's figures of the minute that just ended, the table sizes and
// the server's RSS.
func measureMinute(ctx context.Context, db *pgx.Conn, recv *soakReceiver, pid, minute int) soakMinute {
	m := soakMinute{minute: minute, tableMB: map[string]float64{}, rows: map[string]int64{}, load: bench.LoadAvg()}
	n, lat, span := recv.takeWindow()
	if span > 0 {
		m.delivered = float64(n) / span.Seconds()
	}
	s := bench.Summarize(lat)
	m.p50, m.p99 = s.P50, s.P99
	rows, err := db.Query(ctx, `SELECT c.relname, pg_total_relation_size(c.oid), coalesce(s.n_live_tup, 0)
		FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
		WHERE c.relname = ANY($1) AND c.relkind = 'r'`, soakTables)
	if err == nil {
		for rows.Next() {
			var name string
			var size, live int64
			if rows.Scan(&name, &size, &live) == nil {
				m.tableMB[name] = float64(size) / (1 << 20)
				m.rows[name] = live
			}
		}
		rows.Close()
	} else {
		fmt.Fprintf(os.Stderr, "soak: table sizes: %v\n", err)
	}
	if rss, err := bench.RSS(pid); err == nil {
		m.rssMB = float64(rss) / (1 << 20)
	}
	return m
}

func (m soakMinute) line() string {
	var t []string
	for _, name := range soakTables {
		t = append(t, fmt.Sprintf("%s %.1f MB (%d rows)", name, m.tableMB[name], m.rows[name]))
	}
	return fmt.Sprintf("minute %3d: delivered %6.0f/s, latency p50 %s ms p99 %s ms, RSS %.0f MB, %s; push failures so far %d; load %s",
		m.minute, m.delivered, bench.Ms(m.p50), bench.Ms(m.p99), m.rssMB, strings.Join(t, ", "), m.pushFails, m.load)
}

// soakVerdict is the end-of-run check: per destination, how many events reached it with a 2xx,
// and how many webhook-ids got more than one 2xx.
type soakVerdict struct {
	events    int
	delivered []int
	twice     []int
	pending   int
	waited    time.Duration
}

func (v soakVerdict) ok() bool {
	if v.pending != 0 {
		return false
	}
	for i := range v.delivered {
		if v.delivered[i] != v.events || v.twice[i] != 0 {
			return false
		}
	}
	return true
}

func (v soakVerdict) String() string {
	word := "PASS"
	if !v.ok() {
		word = "FAIL"
	}
	var parts []string
	for i := range v.delivered {
		parts = append(parts, fmt.Sprintf("destination %d: %d of %d events with a 2xx, %d webhook-ids with two or more", i, v.delivered[i], v.events, v.twice[i]))
	}
	return fmt.Sprintf("%s nothing lost, nothing sent twice: %s; deliveries still pending: %d (drained %s after the load)",
		word, strings.Join(parts, "; "), v.pending, v.waited.Round(time.Second))
}

// verifySoak waits (up to limit) until every event reached every destination, then checks.
func verifySoak(ctx context.Context, db *pgx.Conn, recv *soakReceiver, events, dests int, limit time.Duration) soakVerdict {
	start := time.Now()
	v := soakVerdict{events: events}
	for {
		v.delivered, v.twice = recv.verdict(dests)
		done := true
		for _, n := range v.delivered {
			done = done && n >= events
		}
		if err := db.QueryRow(ctx, `SELECT count(*)::int FROM deliveries WHERE status = 'pending'`).Scan(&v.pending); err != nil {
			v.pending = -1
		}
		if (done && v.pending == 0) || time.Since(start) > limit {
			break
		}
		time.Sleep(time.Second)
	}
	time.Sleep(3 * time.Second) // a second send of anything would arrive about now
	v.delivered, v.twice = recv.verdict(dests)
	v.waited = time.Since(start)
	return v
}

const (
	soakBegin = "<!-- loaddriver:soak:begin -->"
	soakEnd   = "<!-- loaddriver:soak:end -->"
)

func renderSoak(ms []soakMinute, v soakVerdict, events, fails int64, o options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s, command `make soak` (loaddriver %s): %d events/s offered for %s to %d destinations (the last answers 500 to the first request of every delivery, so half its requests fail), retention %s for deliveries/attempts/payloads and %s for the outbox, retry schedule 0s,5s,30s,1m, a private PostgreSQL cluster with default settings (autovacuum on).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), bench.Machine(), strings.Join(os.Args[1:], " "),
		o.rate, o.duration, soakDests, o.retention, o.retentionOutbox)
	b.WriteString("| minute | delivered/s | latency p50 | p99 | RSS | deliveries | attempts | payloads | outbox | load average |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range ms {
		cell := func(t string) string { return fmt.Sprintf("%.1f MB (%d)", m.tableMB[t], m.rows[t]) }
		fmt.Fprintf(&b, "| %d | %.0f | %s ms | %s ms | %.0f MB | %s | %s | %s | %s | %s |\n", m.minute, m.delivered,
			bench.Ms(m.p50), bench.Ms(m.p99), m.rssMB, cell("deliveries"), cell("delivery_attempts"),
			cell("delivery_payloads"), cell("watermill_events"), m.load)
	}
	fmt.Fprintf(&b, "\n%d events pushed (%d push calls failed). %s\n", events, fails, v)
	return b.String()
}

// writeMarkedSection replaces the text between begin and end in path (appending a marked section
// when there is none).
func writeMarkedSection(path, begin, end, body string) error {
	raw, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	doc := string(raw)
	section := begin + "\n" + body + end
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i >= 0 && j > i {
		doc = doc[:i] + section + doc[j+len(end):]
	} else {
		doc = strings.TrimRight(doc, "\n") + "\n\n" + section + "\n"
	}
	return os.WriteFile(path, []byte(doc), 0o644)
}
