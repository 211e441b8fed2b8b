// Command loaddriver measures the event-delivery hub end to end (`make bench-delivery`): it
// builds and starts the real outreachd on a fresh database, configures destinations through the
// admin CLI that point at a local receiver, pushes leads through the real API (each new lead
// commits one prospect_added event in the push's transaction), and measures at the receiver
// the sustained deliveries per second and the commit-to-receipt latency, in the regimes
// integrators push in: a burst of -burst events from -clients concurrent 100-lead pushers, then
// a steady open-loop rate for each of -rates in -batch-lead calls, then single events committed
// one at a time by the API and by the operator CLI (another process), to compare the two.
//
// Latency is receipt time minus the envelope's `timestamp`, which the service stamps (in
// milliseconds) while building the event inside the committing transaction, just before
// COMMIT: it slightly over-states commit-to-receipt by the rest of that transaction and by the
// millisecond truncation, never under-states it. Sender and receiver share one clock.
//
// Each latency phase also reports where its time went, from the database (the stamp to the
// COMMIT, the COMMIT to the attempt's start, the attempt; needs track_commit_timestamp), and a
// commit canary: a one-row synchronous commit of an unrelated table on the same server every
// 10 ms, which shows when the server's commit path itself stalled (canary.go).
//
// -mode seed instead leaves a database with one campaign of -seed prospects and prints its URL,
// for looking at query plans by hand.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"outreachd/bench"
)

type options struct {
	dests         []int
	burstEvents   int
	clients       int
	rates         []int
	rate          int // soak
	single        int
	duration      time.Duration
	batch         int
	doc           string
	keep          bool
	trace         string
	seed          int
	hold          time.Duration
	throttle      int // the throttle phase: the throttled destination's rate limit (0 skips)
	throttleBurst int
	// soak mode
	svg             string
	retention       time.Duration
	retentionOutbox time.Duration
}

func main() {
	var o options
	mode := flag.String("mode", "delivery", "delivery (the load test), scale (several serve instances on one database), soak (a long steady run on a private cluster) or seed (leave a seeded database)")
	instances := flag.String("instances", "1,3", "scale: serve instance counts to measure, comma-separated")
	dests := flag.String("dests", "1,10", "destination counts to measure, comma-separated")
	flag.IntVar(&o.burstEvents, "burst", 50000, "events of the burst phase (0 skips it), pushed 100 leads per call")
	flag.IntVar(&o.clients, "clients", 32, "concurrent pushers in the burst phase")
	rates := flag.String("rates", "200,1000", "events per second offered in the latency phases, comma-separated (\"\" skips them)")
	flag.IntVar(&o.rate, "rate", 500, "soak: events per second offered")
	flag.IntVar(&o.throttle, "throttle", 50, "delivery: the throttle phase's throttled destination's rate_limit_per_second (0 skips the phase)")
	flag.IntVar(&o.throttleBurst, "throttle-burst", 2000, "delivery: events of the throttle phase's bursts")
	flag.IntVar(&o.single, "single", 20, "events committed one at a time by the API and by the CLI, each after the last arrived (0 skips)")
	flag.DurationVar(&o.duration, "duration", 20*time.Second, "length of each latency phase (soak: of the whole run, 30m)")
	flag.StringVar(&o.svg, "svg", "", "soak: write the per-minute curves to this SVG file (e.g. docs/soak.svg)")
	flag.DurationVar(&o.retention, "retention", 2*time.Minute, "soak: RETENTION_ATTEMPTS of the server (deliveries, attempts, payloads)")
	flag.DurationVar(&o.retentionOutbox, "retention-outbox", time.Minute, "soak: RETENTION_OUTBOX of the server")
	flag.IntVar(&o.batch, "batch", 100, "leads (events) per API call in the latency phases")
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
	for _, s := range strings.Split(*rates, ",") {
		if strings.TrimSpace(s) == "" {
			continue // -rates "" skips the latency phases
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fatalf("-rates: %q is not a positive rate", s)
		}
		o.rates = append(o.rates, n)
	}
	if *mode == "soak" {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
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
	if o.batch < 1 || o.clients < 1 || o.burstEvents < 0 || o.single < 0 || o.duration <= 0 {
		fatalf("-batch and -clients must be positive, -burst and -single not negative, -duration positive")
	}
	runOnDatabase(*mode, *instances, o)
}

// runOnDatabase runs the modes that create their databases on the server of DATABASE_URL.
func runOnDatabase(mode, instances string, o options) {
	base := os.Getenv("DATABASE_URL")
	if base == "" {
		fatalf("DATABASE_URL is not set (make bench-delivery sets it from scripts/db.sh)")
	}
	root, err := moduleRoot()
	check(err)
	bin, err := buildBinary(root)
	check(err)
	switch mode {
	case "delivery":
		runDelivery(bin, base, o)
	case "seed":
		runSeed(bin, base, o)
	case "scale":
		var counts []int
		for _, s := range strings.Split(instances, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 || n > 8 {
				fatalf("-instances: %q is not a count from 1 to 8", s)
			}
			counts = append(counts, n)
		}
		runScale(bin, base, o, counts)
	default:
		fatalf("-mode must be delivery, scale, soak or seed, got %q", mode)
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
	// single is a second organization with one destination selecting prospect_added and
	// campaign_started, for the one-event-at-a-time phases (API and CLI).
	single    *bench.Client
	singleOrg string
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
	if sc.singleOrg, err = adminString(bin, db.url, "org_id", "org", "create", "--name", "One at a time"); err != nil {
		return sc, err
	}
	skey, err := adminString(bin, db.url, "key", "key", "create", "--org", sc.singleOrg, "--scope", "read_write")
	if err != nil {
		return sc, err
	}
	if _, err := adminString(bin, db.url, "destination_id", "destination", "create", "--org", sc.singleOrg,
		"--url", recv.url("/"+db.name+"/single"), "--events", "prospect_added,campaign_started", "--name", "receiver"); err != nil {
		return sc, err
	}
	sc.single = bench.NewClient(srv.url, skey)
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
	// serverLag is the mean of the server's outreachd_delivery_lag_seconds over the phase: from
	// the delivery's emitted_at (stamped just before the fan-out and COMMIT) to the 2xx.
	serverLag time.Duration
	// fromCommit is, per event of the one-at-a-time phases, the time from the COMMIT of the
	// transaction that wrote the event (PostgreSQL's commit timestamp of its outbox row) to its
	// arrival; empty when the server does not track commit timestamps.
	fromCommit bench.Summary
	// canary is the latency phase's commit canary (canary.go): one-row synchronous commits of an
	// unrelated table on the same server, every 10 ms; canarySlow counts those over slowPush.
	canary     bench.Summary
	canarySlow int
	vacuum     string // the autovacuum workers seen during a latency phase, and for how long
	// stages is where a latency phase's time went (canary.go); nil without commit timestamps.
	stages *stages
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
		rs, peak, err := measure(bin, sc, recv, o)
		sc.tearDown(o.keep)
		if err != nil {
			fatalf("%d destinations: %v (server log: %s)", d, err, sc.srv.log)
		}
		rows = append(rows, rs...)
		rss = append(rss, fmt.Sprintf("%d destination(s): %s MB", d, bench.MB(peak)))
	}
	var throttled string
	if o.throttle > 0 {
		fmt.Fprintf(os.Stderr, "== a throttled destination beside an unthrottled one\n")
		throttled, err = runThrottle(bin, base, recv, o)
		check(err)
	}
	dups, bad := recv.anomalies()
	report := render(rows, rss, dups, bad, o)
	fmt.Print(report, "\n", throttled)
	if o.doc != "" {
		if len(rows) > 0 { // a run of the throttle phase alone leaves the other section as it was
			check(writeSection(o.doc, report))
		}
		if throttled != "" {
			check(writeMarkedSection(o.doc, throttleBegin, throttleEnd, throttled))
		}
		fmt.Fprintf(os.Stderr, "wrote the results into %s\n", o.doc)
	}
}

// measure runs the warm-up, the burst, a latency phase per rate and the one-at-a-time phases on
// one scenario, and returns their rows and the server's peak RSS.
func measure(bin string, sc *scenario, recv *receiver, o options) ([]result, int64, error) {
	ctx := context.Background()
	pid := sc.srv.pid()
	newCampaign := func(name string) (string, error) { return sc.client.CreateCampaign(ctx, name) }
	var rows []result

	// Warm-up: connections, caches, the first pages of every table.
	warm, err := newCampaign("warm-up")
	if err != nil {
		return nil, 0, err
	}
	if err := sc.client.PushLeads(ctx, warm, "warm-"+sc.db.name, 0, 100); err != nil {
		return nil, 0, err
	}
	if n := recv.waitFor(warm, 100*sc.dests, 30*time.Second); n != 100*sc.dests {
		return nil, 0, fmt.Errorf("warm-up: %d of %d deliveries arrived", n, 100*sc.dests)
	}

	// Burst: as fast as o.clients pushers can push, 100 leads per call.
	if o.burstEvents > 0 {
		r, err := burst(ctx, sc, recv, o, pid)
		rows = append(rows, r)
		if err != nil {
			return rows, 0, err
		}
	}

	// Latency: a steady offered rate, open loop, once the previous phase's background work
	// (enrichment of its leads, their lead_accepted events) is done.
	for _, rate := range o.rates {
		r, err := steady(ctx, sc, recv, o, pid, rate)
		rows = append(rows, r)
		if err != nil {
			return rows, 0, err
		}
	}

	// One event at a time, committed by the API and by the operator CLI (another process), in an
	// organization of its own with one destination: measured once, with the first scenario.
	if o.single > 0 && sc.dests == o.dests[0] {
		if _, err := sc.db.settle(ctx, 5*time.Minute); err != nil {
			return rows, 0, err
		}
		for _, byCLI := range []bool{false, true} {
			r, err := oneAtATime(ctx, bin, sc, recv, o, byCLI)
			rows = append(rows, r)
			if err != nil {
				return rows, 0, err
			}
		}
	}
	peak, err := bench.PeakRSS(pid)
	return rows, peak, err
}

func burst(ctx context.Context, sc *scenario, recv *receiver, o options, pid int) (result, error) {
	tp, err := sc.client.CreateCampaign(ctx, "burst")
	if err != nil {
		return result{}, err
	}
	calls := (o.burstEvents + 99) / 100
	r := result{dests: sc.dests, phase: "burst", offered: fmt.Sprintf("%d clients × 100 leads/call, as fast as they can", o.clients),
		events: calls * 100, expected: calls * 100 * sc.dests}
	var rec bench.Recorder
	var next atomic.Int64
	r.load[0] = bench.LoadAvg()
	r.cpu = bench.StartCPU(pid, sc.db.url)
	pushStart := time.Now()
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
	took := time.Since(pushStart)
	fmt.Fprintf(os.Stderr, "%d destination(s): burst of %d events pushed in %s (%.0f events/s)\n", sc.dests, calls*100,
		took.Round(time.Millisecond), float64(calls*100)/took.Seconds())
	return r, r.finish(recv, &rec, tp)
}

// finish waits for the phase's deliveries to arrive (or stop arriving for a minute) and fills in
// its figures; an error reports failed pushes.
func (r *result) finish(recv *receiver, rec *bench.Recorder, campaign string) error {
	recv.waitFor(campaign, r.expected, 60*time.Second)
	r.cpu.Stop()
	r.load[1] = bench.LoadAvg()
	var first error
	r.push, r.pushFails, first = rec.Result()
	r.fig = recv.figures(campaign)
	if r.pushFails > 0 {
		return fmt.Errorf("%s: %d pushes failed; first: %v", r.phase, r.pushFails, first)
	}
	return nil
}

func steady(ctx context.Context, sc *scenario, recv *receiver, o options, pid, rate int) (result, error) {
	settled, err := sc.db.settle(ctx, 5*time.Minute)
	if err != nil {
		return result{}, err
	}
	fmt.Fprintf(os.Stderr, "%d destination(s): background work of the previous phase took %s more to finish\n", sc.dests, settled.Round(time.Millisecond))
	lt, err := sc.client.CreateCampaign(ctx, fmt.Sprintf("latency %d/s", rate))
	if err != nil {
		return result{}, err
	}
	callsPerSec := float64(rate) / float64(o.batch)
	var rec bench.Recorder
	r := result{dests: sc.dests, phase: "latency", offered: fmt.Sprintf("%d events/s (%d lead(s)/call)", rate, o.batch)}
	if o.hold > 0 {
		r.offered += fmt.Sprintf(", a %s transaction elsewhere every second", o.hold)
		stopHold, err := holdTransactions(sc.db.base, o.hold)
		if err != nil {
			return r, err
		}
		defer stopHold()
	}
	cn, err := startCanary(sc.db.url)
	if err != nil {
		return r, err
	}
	var slowMu sync.Mutex
	var slowAt []time.Time // the pushes over slowPush, for the trace: when each started
	var slowTook []time.Duration
	r.load[0] = bench.LoadAvg()
	r.cpu = bench.StartCPU(pid, sc.db.url)
	made := bench.OpenLoop(ctx, callsPerSec, o.duration, func(ctx context.Context, i int, at time.Time) {
		if err := sc.client.PushLeads(ctx, lt, fmt.Sprintf("lt%d-%s", rate, sc.db.name), i*o.batch, o.batch); err != nil {
			rec.Fail(err)
			return
		}
		took := time.Since(at)
		rec.Add(took)
		if took > slowPush {
			slowMu.Lock()
			slowAt, slowTook = append(slowAt, at), append(slowTook, took)
			slowMu.Unlock()
		}
	})
	r.events, r.expected = made*o.batch, made*o.batch*sc.dests
	err = r.finish(recv, &rec, lt)
	r.canary, r.canarySlow = cn.stop(slowPush)
	r.vacuum = cn.vacuumSeen()
	if st, ok, serr := sc.db.phaseStages(ctx, lt); serr != nil {
		fmt.Fprintf(os.Stderr, "%d destination(s): %v\n", sc.dests, serr)
	} else if ok {
		r.stages = &st
	}
	if o.trace != "" {
		if f, err := os.OpenFile(o.trace, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			recv.trace(f, strconv.Itoa(sc.dests), lt)
			for i, at := range slowAt {
				traceLine(f, "push", at, slowTook[i])
			}
			cn.trace(f, slowPush)
			_ = f.Close()
		}
	}
	return r, err
}

// slowPush is the push call, and the canary commit, that the trace lists and the report counts as
// slow: the latency bar at 200 events/s.
const slowPush = 25 * time.Millisecond

const (
	sectionBegin = "<!-- loaddriver:delivery:begin -->"
	sectionEnd   = "<!-- loaddriver:delivery:end -->"
)

func render(rows []result, rss []string, dups, bad int, o options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s, command `make bench-delivery` (%s).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), bench.Machine(), strings.Join(os.Args[1:], " "))
	b.WriteString("| destinations | phase | offered load | events | deliveries received / expected | sustained deliveries/s | latency p50 | p95 | p99 | max | push call p50 / p99 |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %s | %s | %d | %d / %d | %.0f | %s ms | %s ms | %s ms | %s ms | %s / %s ms |\n",
			r.dests, r.phase, r.offered, r.events, r.fig.received, r.expected, r.fig.sustained,
			bench.Ms(r.fig.latency.P50), bench.Ms(r.fig.latency.P95), bench.Ms(r.fig.latency.P99), bench.Ms(r.fig.latency.Max),
			bench.Ms(r.push.P50), bench.Ms(r.push.P99))
	}
	fmt.Fprintf(&b, "\nServer peak RSS (VmHWM): %s. Duplicate deliveries seen: %d; unreadable bodies: %d.\n\n", strings.Join(rss, "; "), dups, bad)
	for _, r := range rows {
		if r.serverLag > 0 {
			fmt.Fprintf(&b, "- one at a time, %s: %s ms mean from emitted_at (stamped in the committing transaction before its fan-out and COMMIT) to the 2xx (the server's outreachd_delivery_lag_seconds)\n",
				r.offered, bench.Ms(r.serverLag))
		}
		if r.fromCommit.N > 0 {
			fmt.Fprintf(&b, "- one at a time, %s: from the COMMIT of the event's transaction (PostgreSQL's commit timestamp) to its arrival, p50 %s ms, p99 %s ms\n",
				r.offered, bench.Ms(r.fromCommit.P50), bench.Ms(r.fromCommit.P99))
		}
	}
	for _, r := range rows {
		if st := r.stages; st != nil {
			fmt.Fprintf(&b, "- where the time went, %d destination(s), %s, p50 / p99 of the first attempts: stamp to COMMIT %s / %s ms, COMMIT to the attempt's start %s / %s ms, the attempt (send and answer, whole ms) %s / %s ms\n",
				r.dests, r.offered, bench.Ms(st.toCommit.P50), bench.Ms(st.toCommit.P99), bench.Ms(st.toSend.P50), bench.Ms(st.toSend.P99),
				bench.Ms(st.send.P50), bench.Ms(st.send.P99))
		}
		if r.canary.N > 0 {
			fmt.Fprintf(&b, "- commit canary during %d destination(s), %s (a one-row synchronous commit of an unrelated table on the same server every 10 ms): p50 %s ms, p99 %s ms, max %s ms; %d of %d over %s ms\n",
				r.dests, r.offered, bench.Ms(r.canary.P50), bench.Ms(r.canary.P99), bench.Ms(r.canary.Max), r.canarySlow, r.canary.N, bench.Ms(slowPush))
			vacuum := r.vacuum
			if vacuum == "" {
				vacuum = "none"
			}
			fmt.Fprintf(&b, "- autovacuum in the database during %d destination(s), %s (sampled every 100 ms): %s\n", r.dests, r.offered, vacuum)
		}
	}
	b.WriteString("\n")
	b.WriteString("CPU during each phase (average cores busy):\n\n")
	for _, r := range rows {
		if r.cpu == nil {
			continue // the one-at-a-time phases are idle by design
		}
		fmt.Fprintf(&b, "- %d destination(s), %s (%s): %s; machine load average %s → %s\n", r.dests, r.phase, r.offered, r.cpu, r.load[0], r.load[1])
	}
	return b.String()
}

// writeSection replaces the text between the delivery markers of path (appending a marked
// section when there is none), so re-running the driver updates the document in place.
func writeSection(path, body string) error {
	return writeMarkedSection(path, sectionBegin, sectionEnd, body)
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
