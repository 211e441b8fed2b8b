// Command loaddriver measures the event-delivery hub end to end (`make bench-delivery`): it
// builds and starts the real outreachd on a fresh database, configures destinations through the
// admin CLI that point at a local receiver, pushes leads through the real API (each new lead
// commits one prospect_added event in the push's transaction), and measures at the receiver
// the sustained deliveries per second and the commit-to-receipt latency.
//
// Latency is receipt time minus the envelope's `timestamp`, which the service stamps (in
// milliseconds) while building the event inside the committing transaction, just before
// COMMIT: it slightly over-states commit-to-receipt by the rest of that transaction and by the
// millisecond truncation, never under-states it. Sender and receiver share one clock.
//
// -mode seed instead leaves a database with one campaign of -seed prospects and prints its URL,
// for looking at query plans by hand.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"outreachd/bench"
)

type options struct {
	dests          []int
	throughputDels int
	clients        int
	rate           int
	duration       time.Duration
	batch          int
	doc            string
	keep           bool
	trace          string
	seed           int
	hold           time.Duration
	// soak mode
	svg             string
	retention       time.Duration
	retentionOutbox time.Duration
}

func main() {
	var o options
	mode := flag.String("mode", "delivery", "delivery (the load test), soak (a long steady run on a private cluster) or seed (leave a seeded database)")
	dests := flag.String("dests", "1,10", "destination counts to measure, comma-separated")
	flag.IntVar(&o.throughputDels, "throughput-deliveries", 20000, "deliveries the throughput phase causes (events = this / destinations)")
	flag.IntVar(&o.clients, "clients", 4, "concurrent 100-lead pushes in the throughput phase")
	flag.IntVar(&o.rate, "rate", 200, "events per second offered in the latency phase (soak: 500)")
	flag.DurationVar(&o.duration, "duration", 20*time.Second, "length of the latency phase (soak: of the whole run, 30m)")
	flag.StringVar(&o.svg, "svg", "", "soak: write the per-minute curves to this SVG file (e.g. docs/soak.svg)")
	flag.DurationVar(&o.retention, "retention", 2*time.Minute, "soak: RETENTION_ATTEMPTS of the server (deliveries, attempts, payloads)")
	flag.DurationVar(&o.retentionOutbox, "retention-outbox", time.Minute, "soak: RETENTION_OUTBOX of the server")
	flag.IntVar(&o.batch, "batch", 1, "leads (events) per API call in the latency phase")
	flag.StringVar(&o.doc, "doc", "", "markdown file whose loaddriver section is replaced by the results (e.g. docs/performance.md)")
	flag.BoolVar(&o.keep, "keep", false, "keep the databases")
	flag.StringVar(&o.trace, "trace", "", "append every latency-phase delivery (dests, arrival Unix ms, latency ms) to this file")
	flag.IntVar(&o.seed, "seed", 100000, "prospects to seed in -mode seed")
	flag.DurationVar(&o.hold, "hold", 0, "during the latency phase, once a second hold a transaction id open this long in another database of the server (a long transaction elsewhere)")
	flag.Parse()
	for _, s := range strings.Split(*dests, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 10 {
			fatalf("-dests: %q is not a destination count from 1 to 10", s)
		}
		o.dests = append(o.dests, n)
	}
	if *mode == "soak" {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["rate"] {
			o.rate = 500
		}
		if !set["duration"] {
			o.duration = 30 * time.Minute
		}
		if o.rate < 10 || o.duration < time.Minute || o.retention < time.Minute || o.retentionOutbox < time.Minute {
			fatalf("soak: -rate at least 10, -duration, -retention and -retention-outbox at least 1m")
		}
		root, err := moduleRoot()
		check(err)
		bin, err := buildBinary(root)
		check(err)
		runSoak(bin, o)
		return
	}
	if o.rate < 1 || o.batch < 1 || o.clients < 1 || o.throughputDels < 100 || o.duration <= 0 {
		fatalf("-rate, -batch and -clients must be positive, -throughput-deliveries at least 100, -duration positive")
	}
	base := os.Getenv("DATABASE_URL")
	if base == "" {
		fatalf("DATABASE_URL is not set (make bench-delivery sets it from scripts/db.sh)")
	}
	root, err := moduleRoot()
	check(err)
	bin, err := buildBinary(root)
	check(err)
	switch *mode {
	case "delivery":
		runDelivery(bin, base, o)
	case "seed":
		runSeed(bin, base, o)
	default:
		fatalf("-mode must be delivery or seed, got %q", *mode)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "loaddriver: "+format+"\n", args...)
	os.Exit(1)
}

func check(err error) {
	if err != nil {
		fatalf("%v", err)
	}
}

// scenario is everything one destination count needs: a database, the server, an organization
// with destinations at the receiver, and a client.
type scenario struct {
	dests  int
	db     *database
	srv    *server
	client *bench.Client
}

func setUp(bin, base string, dests int, recv *receiver) (*scenario, error) {
	ctx := context.Background()
	db, err := createDatabase(ctx, base)
	if err != nil {
		return nil, err
	}
	srv, err := startServer(bin, db.url, "RATE_LIMIT_PER_MINUTE=1000000")
	if err != nil {
		db.drop()
		return nil, err
	}
	sc := &scenario{dests: dests, db: db, srv: srv}
	org, err := adminString(bin, db.url, "org_id", "org", "create", "--name", "Load driver", "--rate-limit-per-minute", "1000000")
	if err != nil {
		return sc, err
	}
	key, err := adminString(bin, db.url, "key", "key", "create", "--org", org, "--scope", "read_write")
	if err != nil {
		return sc, err
	}
	for i := range dests {
		if _, err := adminString(bin, db.url, "destination_id", "destination", "create", "--org", org,
			"--url", recv.url(fmt.Sprintf("/%s/%d", db.name, i)), "--events", "prospect_added",
			"--secret", fmt.Sprintf("load-driver-secret-%d", i), "--name", fmt.Sprintf("receiver %d", i)); err != nil {
			return sc, err
		}
	}
	sc.client = bench.NewClient(srv.url, key)
	return sc, nil
}

func (sc *scenario) tearDown(keep bool) {
	if sc.srv != nil {
		sc.srv.stop()
	}
	if !keep {
		sc.db.drop()
	}
}

// result is one row of the report.
type result struct {
	dests     int
	phase     string
	offered   string
	events    int
	expected  int
	fig       phaseFigures
	push      bench.Summary
	pushFails int
	cpu       *bench.CPUShare
	load      [2]string // 1-minute load average before and after
	paths     string    // events fanned out in the phase by path (the server's metric)
}

func runDelivery(bin, base string, o options) {
	recv, err := startReceiver()
	check(err)
	defer recv.close()
	var rows []result
	var rss []string
	for _, d := range o.dests {
		fmt.Fprintf(os.Stderr, "== %d destination(s)\n", d)
		sc, err := setUp(bin, base, d, recv)
		if err != nil {
			if sc != nil {
				sc.tearDown(o.keep)
			}
			fatalf("set up %d destinations: %v", d, err)
		}
		r1, r2, peak, err := measure(sc, recv, o)
		sc.tearDown(o.keep)
		if err != nil {
			fatalf("%d destinations: %v (server log: %s)", d, err, sc.srv.log)
		}
		rows = append(rows, r1, r2)
		rss = append(rss, fmt.Sprintf("%d destination(s): %s MB", d, bench.MB(peak)))
	}
	dups, bad := recv.anomalies()
	report := render(rows, rss, dups, bad, o)
	fmt.Print(report)
	if o.doc != "" {
		check(writeSection(o.doc, report))
		fmt.Fprintf(os.Stderr, "wrote the results into %s\n", o.doc)
	}
}

// measure runs the warm-up, the throughput phase and the latency phase on one scenario.
func measure(sc *scenario, recv *receiver, o options) (result, result, int64, error) {
	ctx := context.Background()
	pid := sc.srv.pid()
	newCampaign := func(name string) (string, error) { return sc.client.CreateCampaign(ctx, name) }

	// Warm-up: connections, caches and the destination list of the fan-out.
	warm, err := newCampaign("warm-up")
	if err != nil {
		return result{}, result{}, 0, err
	}
	if err := sc.client.PushLeads(ctx, warm, "warm-"+sc.db.name, 0, 100); err != nil {
		return result{}, result{}, 0, err
	}
	if n := recv.waitFor(warm, 100*sc.dests, 30*time.Second); n != 100*sc.dests {
		return result{}, result{}, 0, fmt.Errorf("warm-up: %d of %d deliveries arrived", n, 100*sc.dests)
	}

	// Throughput: as fast as the clients can push, 100 leads per call.
	tp, err := newCampaign("throughput")
	if err != nil {
		return result{}, result{}, 0, err
	}
	calls := (o.throughputDels/sc.dests + 99) / 100
	r1 := result{dests: sc.dests, phase: "throughput", offered: fmt.Sprintf("max (%d clients × 100 leads/call)", o.clients),
		events: calls * 100, expected: calls * 100 * sc.dests}
	var rec bench.Recorder
	var next atomic.Int64
	r1.load[0] = bench.LoadAvg()
	paths0, err := sc.srv.fanoutPaths()
	if err != nil {
		return result{}, result{}, 0, err
	}
	r1.cpu = bench.StartCPU(pid, sc.db.url)
	var wg sync.WaitGroup
	for range o.clients {
		wg.Go(func() {
			for {
				c := int(next.Add(1)) - 1
				if c >= calls {
					return
				}
				t0 := time.Now()
				if err := sc.client.PushLeads(ctx, tp, "tp-"+sc.db.name, c*100, 100); err != nil {
					rec.Fail(err)
					continue
				}
				rec.Add(time.Since(t0))
			}
		})
	}
	wg.Wait()
	recv.waitFor(tp, r1.expected, 60*time.Second)
	r1.cpu.Stop()
	r1.load[1] = bench.LoadAvg()
	if r1.paths, paths0, err = pathsSince(sc.srv, paths0); err != nil {
		return r1, result{}, 0, err
	}
	var first error
	r1.push, r1.pushFails, first = rec.Result()
	r1.fig = recv.figures(tp)
	if r1.pushFails > 0 {
		return r1, result{}, 0, fmt.Errorf("throughput: %d pushes failed; first: %v", r1.pushFails, first)
	}

	// Latency: a steady offered rate, open loop, once the throughput phase's background work
	// (enrichment of its leads, their lead_accepted events) is done.
	settled, err := sc.db.settle(ctx, 5*time.Minute)
	if err != nil {
		return r1, result{}, 0, err
	}
	fmt.Fprintf(os.Stderr, "%d destination(s): background work of the throughput phase took %s more to finish\n", sc.dests, settled.Round(time.Millisecond))
	lt, err := newCampaign("latency")
	if err != nil {
		return r1, result{}, 0, err
	}
	callsPerSec := float64(o.rate) / float64(o.batch)
	var rec2 bench.Recorder
	r2 := result{dests: sc.dests, phase: "latency", offered: fmt.Sprintf("%d events/s (%d lead(s)/call)", o.rate, o.batch)}
	if o.hold > 0 {
		r2.offered += fmt.Sprintf(", a %s transaction elsewhere every second", o.hold)
		stopHold, err := holdTransactions(sc.db.base, o.hold)
		if err != nil {
			return r1, result{}, 0, err
		}
		defer stopHold()
	}
	r2.load[0] = bench.LoadAvg()
	if _, paths0, err = pathsSince(sc.srv, paths0); err != nil { // not the background work between the phases
		return r1, result{}, 0, err
	}
	r2.cpu = bench.StartCPU(pid, sc.db.url)
	made := bench.OpenLoop(ctx, callsPerSec, o.duration, func(ctx context.Context, i int, at time.Time) {
		if err := sc.client.PushLeads(ctx, lt, "lt-"+sc.db.name, i*o.batch, o.batch); err != nil {
			rec2.Fail(err)
			return
		}
		rec2.Add(time.Since(at))
	})
	r2.events, r2.expected = made*o.batch, made*o.batch*sc.dests
	recv.waitFor(lt, r2.expected, 60*time.Second)
	r2.cpu.Stop()
	r2.load[1] = bench.LoadAvg()
	if r2.paths, _, err = pathsSince(sc.srv, paths0); err != nil {
		return r1, r2, 0, err
	}
	r2.push, r2.pushFails, first = rec2.Result()
	r2.fig = recv.figures(lt)
	if o.trace != "" {
		if f, err := os.OpenFile(o.trace, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			recv.trace(f, strconv.Itoa(sc.dests), lt)
			_ = f.Close()
		}
	}
	if r2.pushFails > 0 {
		return r1, r2, 0, fmt.Errorf("latency: %d pushes failed; first: %v", r2.pushFails, first)
	}
	peak, err := bench.PeakRSS(pid)
	return r1, r2, peak, err
}

const (
	sectionBegin = "<!-- loaddriver:delivery:begin -->"
	sectionEnd   = "<!-- loaddriver:delivery:end -->"
)

func render(rows []result, rss []string, dups, bad int, o options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %d cores (%s), command `make bench-delivery` (%s).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), runtime.GOARCH, strings.Join(os.Args[1:], " "))
	b.WriteString("| destinations | phase | offered load | events | deliveries received / expected | sustained deliveries/s | latency p50 | p95 | p99 | max | push call p50 / p99 |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %s | %s | %d | %d / %d | %.0f | %s ms | %s ms | %s ms | %s ms | %s / %s ms |\n",
			r.dests, r.phase, r.offered, r.events, r.fig.received, r.expected, r.fig.sustained,
			bench.Ms(r.fig.latency.P50), bench.Ms(r.fig.latency.P95), bench.Ms(r.fig.latency.P99), bench.Ms(r.fig.latency.Max),
			bench.Ms(r.push.P50), bench.Ms(r.push.P99))
	}
	fmt.Fprintf(&b, "\nServer peak RSS (VmHWM): %s. Duplicate deliveries seen: %d; unreadable bodies: %d.\n\n", strings.Join(rss, "; "), dups, bad)
	b.WriteString("CPU during each phase (average cores busy):\n\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "- %d destination(s), %s: %s; machine load average %s → %s\n", r.dests, r.phase, r.cpu, r.load[0], r.load[1])
	}
	b.WriteString("\nEvents fanned out in each phase, by path (`outreachd_delivery_fanout_events_total`: handoff = right after their commit, outbox = by the outbox consumer; every event counts, also those no destination selected, such as the enrichment's):\n\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "- %d destination(s), %s: %s\n", r.dests, r.phase, r.paths)
	}
	return b.String()
}

// pathsSince reads the server's fan-out path counters and describes what was added since before.
func pathsSince(s *server, before map[string]float64) (string, map[string]float64, error) {
	now, err := s.fanoutPaths()
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("handoff %.0f, outbox %.0f", now["handoff"]-before["handoff"], now["outbox"]-before["outbox"]), now, nil
}

// writeSection replaces the text between the loaddriver markers of path (appending a marked
// section when there is none), so re-running the driver updates the document in place.
func writeSection(path, body string) error {
	raw, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	doc := string(raw)
	section := sectionBegin + "\n" + body + sectionEnd
	i, j := strings.Index(doc, sectionBegin), strings.Index(doc, sectionEnd)
	if i >= 0 && j > i {
		doc = doc[:i] + section + doc[j+len(sectionEnd):]
	} else {
		doc = strings.TrimRight(doc, "\n") + "\n\n" + section + "\n"
	}
	return os.WriteFile(path, []byte(doc), 0o644)
}

// runSeed leaves a database with one campaign of o.seed prospects, made through the API.
func runSeed(bin, base string, o options) {
	ctx := context.Background()
	db, err := createDatabase(ctx, base)
	check(err)
	srv, err := startServer(bin, db.url)
	check(err)
	defer srv.stop()
	org, err := adminString(bin, db.url, "org_id", "org", "create", "--name", "Seeded", "--rate-limit-per-minute", "1000000")
	check(err)
	key, err := adminString(bin, db.url, "key", "key", "create", "--org", org, "--scope", "read_write")
	check(err)
	cmp, err := bench.NewClient(srv.url, key).CreateCampaign(ctx, "Seeded campaign")
	check(err)
	check(bench.SeedProspects(ctx, db.url, org, cmp, o.seed))
	fmt.Printf("{\"database_url\":%q,\"org_id\":%q,\"campaign_id\":%q,\"key\":%q}\n", db.url, org, cmp, key)
}
