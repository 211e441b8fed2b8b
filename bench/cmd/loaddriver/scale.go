package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"outreachd/bench"
)

// The scale run (-mode scale): for each count in -instances, that many `outreachd serve`
// processes on one fresh database, one destination at the receiver, and a burst of -burst events
// pushed by -clients pushers spread over the instances. It reports how the deliveries divided
// between the instances (each one's outreachd_delivery_attempts_total), whether any webhook-id
// arrived twice, the sustained rate and latency, and what one delivery cost PostgreSQL over the
// burst: rows written, WAL bytes, commits and statements (pg_stat_database, pg_current_wal_lsn and,
// when the server preloads it, pg_stat_statements), each divided by the deliveries.

type scaleRow struct {
	instances int
	fig       phaseFigures
	expected  int
	perInst   []float64
	dups      int
	cost      pgCost
}

// pgCost is what the database did during a phase.
type pgCost struct {
	rows, wal, commits, statements float64 // statements < 0: pg_stat_statements not available
}

func runScale(bin, base string, o options, counts []int) {
	recv, err := startReceiver()
	check(err)
	defer recv.close()
	// The baseline: the same pushes to an organization without destinations, so what the
	// business transactions cost alone can be told from what delivery adds.
	fmt.Fprintf(os.Stderr, "== baseline: 1 instance, no destination\n")
	baseline, err := scaleOnce(bin, base, o, recv, 1, false)
	check(err)
	rows := []scaleRow{baseline}
	for _, n := range counts {
		fmt.Fprintf(os.Stderr, "== %d instance(s)\n", n)
		r, err := scaleOnce(bin, base, o, recv, n, true)
		check(err)
		rows = append(rows, r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s, command `go run ./bench/cmd/loaddriver %s`: %d events pushed by %d clients (100 leads per call, spread over the instances), 1 destination.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), bench.Machine(), strings.Join(os.Args[1:], " "), o.burstEvents, o.clients)
	b.WriteString("The first row pushes the same events to an organization without destinations: its costs are per event, what the business transactions (and the engine's background work on the new leads) cost without any delivery.\n\n")
	b.WriteString("| serve instances | deliveries received / expected | duplicates | sustained deliveries/s | latency p50 / p99 | attempts made by each instance | per delivery (per event for the baseline): rows written | WAL bytes | commits | statements |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		per := make([]string, len(r.perInst))
		for i, v := range r.perInst {
			per[i] = fmt.Sprintf("%.0f", v)
		}
		stmts := "n/a"
		if r.cost.statements >= 0 {
			stmts = fmt.Sprintf("%.2f", r.cost.statements)
		}
		label := fmt.Sprint(r.instances)
		if r.expected == 0 {
			label = "1, no destination (baseline)"
		}
		fmt.Fprintf(&b, "| %s | %d / %d | %d | %.0f | %s / %s ms | %s | %.1f | %.0f | %.3f | %s |\n", label, r.fig.received, r.expected, r.dups,
			r.fig.sustained, bench.Ms(r.fig.latency.P50), bench.Ms(r.fig.latency.P99), strings.Join(per, " / "),
			r.cost.rows, r.cost.wal, r.cost.commits, stmts)
	}
	fmt.Print(b.String())
}

func scaleOnce(bin, base string, o options, recv *receiver, n int, withDestination bool) (scaleRow, error) {
	ctx := context.Background()
	r := scaleRow{instances: n}
	db, err := createDatabase(ctx, base)
	if err != nil {
		return r, err
	}
	defer func() {
		if !o.keep {
			db.drop()
		}
	}()
	srvs, clients, err := scaleSetUp(bin, db, recv, n, withDestination)
	defer func() {
		for _, s := range srvs {
			s.stop()
		}
	}()
	if err != nil {
		return r, err
	}
	if err := scaleWarmUp(ctx, db, recv, clients, withDestination); err != nil {
		return r, err
	}
	camp, err := clients[0].CreateCampaign(ctx, "scale burst")
	if err != nil {
		return r, err
	}
	before := make([]float64, n)
	for i, s := range srvs {
		if before[i], err = attemptsMade(s); err != nil {
			return r, err
		}
	}
	dups0, _ := recv.anomalies()
	cost0, err := readCost(ctx, db.url)
	if err != nil {
		return r, err
	}
	calls := (o.burstEvents + 99) / 100
	if withDestination {
		r.expected = calls * 100
	}
	if err := pushSpread(ctx, clients, o.clients, camp, "scale-"+db.name, calls*100); err != nil {
		return r, err
	}
	if withDestination {
		recv.waitFor(camp, r.expected, 60*time.Second)
	}
	// The attempts are recorded in batches after the sends: wait until nothing is pending.
	if _, err := db.settle(ctx, time.Minute); err != nil {
		return r, err
	}
	cost1, err := readCost(ctx, db.url)
	if err != nil {
		return r, err
	}
	r.fig = recv.figures(camp)
	dups1, _ := recv.anomalies()
	r.dups = dups1 - dups0
	for i, s := range srvs {
		v, err := attemptsMade(s)
		if err != nil {
			return r, err
		}
		r.perInst = append(r.perInst, v-before[i])
	}
	d := float64(r.fig.received)
	if !withDestination {
		d = float64(calls * 100)
	}
	r.cost = cost1.per(cost0, d)
	return r, nil
}

// per is what happened between before and c, divided by n.
func (c pgCost) per(before pgCost, n float64) pgCost {
	out := pgCost{rows: (c.rows - before.rows) / n, wal: (c.wal - before.wal) / n, commits: (c.commits - before.commits) / n, statements: -1}
	if before.statements >= 0 && c.statements >= 0 {
		out.statements = (c.statements - before.statements) / n
	}
	return out
}

// scaleWarmUp pushes 100 leads through every instance (connections, caches, first pages) and
// waits for their deliveries and the background work they cause.
func scaleWarmUp(ctx context.Context, db *database, recv *receiver, clients []*bench.Client, withDestination bool) error {
	warm, err := clients[0].CreateCampaign(ctx, "warm-up")
	if err != nil {
		return err
	}
	for i, c := range clients {
		if err := c.PushLeads(ctx, warm, fmt.Sprintf("warm-%d-%s", i, db.name), 0, 100); err != nil {
			return err
		}
	}
	if want := 100 * len(clients); withDestination {
		if got := recv.waitFor(warm, want, 30*time.Second); got != want {
			return fmt.Errorf("warm-up: %d of %d deliveries arrived", got, want)
		}
	}
	_, err = db.settle(ctx, 5*time.Minute)
	return err
}

// readCost reads the database's totals: rows inserted, updated and deleted, the WAL position, the
// commits, and the statements executed when pg_stat_statements is loaded. They include the
// background work of the service during the phase (the engine's enrichment of the pushed leads),
// so they are an upper bound of what delivery alone costs.
func readCost(ctx context.Context, dbURL string) (pgCost, error) {
	c, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return pgCost{}, err
	}
	defer c.Close(context.Background())
	// Statistics are sent by backends at the end of transactions, with a short delay.
	if _, err := c.Exec(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
		time.Sleep(time.Second)
	}
	time.Sleep(1200 * time.Millisecond)
	var pc pgCost
	err = c.QueryRow(ctx, `SELECT (tup_inserted + tup_updated + tup_deleted)::float8, xact_commit::float8,
		(pg_current_wal_lsn() - '0/0')::float8 FROM pg_stat_database WHERE datname = current_database()`).Scan(&pc.rows, &pc.commits, &pc.wal)
	if err != nil {
		return pc, err
	}
	pc.statements = -1
	if _, err := c.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err == nil {
		var calls float64
		if err := c.QueryRow(ctx, `SELECT coalesce(sum(calls), 0)::float8 FROM pg_stat_statements
			WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&calls); err == nil {
			pc.statements = calls
		}
	}
	return pc, nil
}

// metricFamilies reads a server's /metrics.
func (s *server) metricFamilies() (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(s.url + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(resp.Body)
}

// attemptsMade is the sum of an instance's outreachd_delivery_attempts_total.
func attemptsMade(s *server) (float64, error) {
	families, err := s.metricFamilies()
	if err != nil {
		return 0, err
	}
	var sum float64
	if f := families["outreachd_delivery_attempts_total"]; f != nil {
		for _, m := range f.GetMetric() {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum, nil
}

// scaleSetUp starts n serve instances on db and an organization with one destination at the
// receiver (none without withDestination), and returns a client of each instance. The servers
// it started are returned also on failure, for the caller to stop.
func scaleSetUp(bin string, db *database, recv *receiver, n int, withDestination bool) ([]*server, []*bench.Client, error) {
	var srvs []*server
	for range n {
		s, err := startServer(bin, db.url, "RATE_LIMIT_PER_MINUTE=1000000")
		if err != nil {
			return srvs, nil, err
		}
		srvs = append(srvs, s)
	}
	org, err := adminString(bin, db.url, "org_id", "org", "create", "--name", "Scale", "--rate-limit-per-minute", "1000000")
	if err != nil {
		return srvs, nil, err
	}
	key, err := adminString(bin, db.url, "key", "key", "create", "--org", org, "--scope", "read_write")
	if err != nil {
		return srvs, nil, err
	}
	if withDestination {
		if _, err := adminString(bin, db.url, "destination_id", "destination", "create", "--org", org,
			"--url", recv.url("/"+db.name), "--events", "prospect_added", "--secret", "scale-secret", "--name", "receiver"); err != nil {
			return srvs, nil, err
		}
	}
	clients := make([]*bench.Client, n)
	for i, s := range srvs {
		clients[i] = bench.NewClient(s.url, key)
	}
	return srvs, clients, nil
}

// pushSpread pushes leads new leads (one prospect_added event each; their handles start with
// prefix) to camp in 100-lead calls from pushers goroutines, spread over clients.
func pushSpread(ctx context.Context, clients []*bench.Client, pushers int, camp, prefix string, leads int) error {
	calls := (leads + 99) / 100
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	for w := range pushers {
		c := clients[w%len(clients)]
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= calls {
					return
				}
				if err := c.PushLeads(ctx, camp, prefix, i*100, min(100, leads-i*100)); err != nil {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		return fmt.Errorf("%d pushes failed", f)
	}
	return nil
}

// lagTotals are the sum and count of a server's outreachd_delivery_lag_seconds.
type lagTotals struct{ sum, count float64 }

func (s *server) lagTotals() (lagTotals, error) {
	families, err := s.metricFamilies()
	if err != nil {
		return lagTotals{}, err
	}
	var t lagTotals
	if f := families["outreachd_delivery_lag_seconds"]; f != nil {
		for _, m := range f.GetMetric() {
			t.sum += m.GetHistogram().GetSampleSum()
			t.count += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return t, nil
}
