package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

// The benchmarks of the lead push and GET /prospects, run by `make bench` (-benchtime=1x: every
// benchmark does a fixed amount of work once and reports its own figures with b.ReportMetric).
// Each starts the built binary on a fresh database, creates the organization and campaign
// through the admin CLI and the API, and seeds the campaign with SeedSize prospects before
// measuring.
//
// Knobs (environment): BENCH_SEED (prospects seeded, default 100000), BENCH_PUSH_CALLS (100-lead
// calls per client count, default 200), BENCH_RATE (GET /prospects requests per second, default
// 200), BENCH_DURATION (per GET /prospects variant, default 20s).

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}

// seeded is a running server whose organization holds one campaign of seed prospects.
type seeded struct {
	srv        *testenv.Server
	dbURL      string
	pid        int
	client     *Client
	campaignID string
}

func startSeeded(b *testing.B) seeded {
	b.Helper()
	n := envInt("BENCH_SEED", 100000)
	dbURL := testenv.DatabaseURL(b)
	srv := testenv.StartServer(b, dbURL, "RATE_LIMIT_PER_MINUTE=1000000")
	org := testenv.NewOrg(b, srv, "--rate-limit-per-minute", "1000000")
	c := NewClient(srv.URL, org.WriteKey)
	ctx := context.Background()
	cmp, err := c.CreateCampaign(ctx, "Bench seeded campaign")
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	if err := SeedProspects(ctx, dbURL, org.ID, cmp, n); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d prospects in %s", n, time.Since(t0).Round(time.Millisecond))
	pid, err := findServerPID(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		b.Fatal(err)
	}
	return seeded{srv: srv, dbURL: dbURL, pid: pid, client: c, campaignID: cmp}
}

func (s seeded) reportRSS(b *testing.B) {
	b.Helper()
	hwm, err := PeakRSS(s.pid)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MB")
}

// BenchmarkLeadPush measures POST /campaigns/{id}/leads with 100 new leads per call into a
// campaign that already holds the seeded prospects, with 1 and 4 clients calling back to back.
// The enrichment worker runs as in production and works through the pushed leads meanwhile.
func BenchmarkLeadPush(b *testing.B) {
	s := startSeeded(b)
	calls := envInt("BENCH_PUSH_CALLS", 200)
	var next atomic.Int64
	for _, clients := range []int{1, 4} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			var rec Recorder
			var leads atomic.Int64
			cpu := StartCPU(s.pid, s.dbURL)
			start := time.Now()
			for b.Loop() {
				var wg sync.WaitGroup
				for range clients {
					wg.Go(func() {
						for range calls / clients {
							from := int(next.Add(100)) - 100
							t0 := time.Now()
							if err := s.client.PushLeads(context.Background(), s.campaignID, "push", from, 100); err != nil {
								rec.Fail(err)
								continue
							}
							rec.Add(time.Since(t0))
							leads.Add(100)
						}
					})
				}
				wg.Wait()
			}
			elapsed := time.Since(start)
			cpu.Stop()
			sum, fails, first := rec.Result()
			if fails > 0 {
				b.Fatalf("%d of %d pushes failed; first: %v", fails, fails+sum.N, first)
			}
			b.ReportMetric(float64(leads.Load())/elapsed.Seconds(), "leads/s")
			b.ReportMetric(float64(sum.P50)/1e6, "call-p50-ms")
			b.ReportMetric(float64(sum.P99)/1e6, "call-p99-ms")
			s.reportRSS(b)
			b.Logf("%d leads in %s; %s; load average %s", leads.Load(), elapsed.Round(time.Millisecond), cpu, LoadAvg())
		})
	}
}

// BenchmarkProspectsList measures GET /prospects (limit 50) over the seeded campaign:
//
//   - depth/offset=N: one client, back to back, at a fixed offset — what one page costs as a
//     function of how deep it is (OFFSET makes PostgreSQL walk every skipped row);
//   - open/<filter>/first20pages: the offered rate (BENCH_RATE, default 200/s) for BENCH_DURATION,
//     open loop (requests leave on schedule whether or not earlier ones have answered, latency
//     counts from the scheduled moment), offsets uniformly random over the first 1,000 rows;
//   - open/<filter>/anywhere: the same with offsets uniformly random over the whole result, for
//     BENCH_UNIFORM_DURATION (default 10s), each request given up after 5 s (counted, not fatal);
//   - capacity/<filter>/anywhere: 4 clients back to back for 10 s, the rate the box sustains for
//     uniformly random offsets.
func BenchmarkProspectsList(b *testing.B) {
	s := startSeeded(b)
	rate := float64(envInt("BENCH_RATE", 200))
	d := envDuration("BENCH_DURATION", 20*time.Second)
	du := envDuration("BENCH_UNIFORM_DURATION", 10*time.Second)
	filters := []struct{ name, query string }{
		{"unfiltered", ""},
		{"campaign_id", "campaign_id=" + s.campaignID},
		{"status", "status=connection_sent"},
		{"campaign_id+status", "campaign_id=" + s.campaignID + "&status=connected"},
	}
	ctx := context.Background()
	totals := map[string]int{}
	for _, f := range filters {
		var first struct {
			Pagination struct{ Total int } `json:"pagination"`
		}
		if err := s.client.Do(ctx, http.MethodGet, "/api/v1/prospects?limit=1&"+f.query, nil, &first); err != nil {
			b.Fatal(err)
		}
		if first.Pagination.Total < 1100 {
			b.Fatalf("%s: only %d prospects match; the seed is too small", f.name, first.Pagination.Total)
		}
		totals[f.name] = first.Pagination.Total
	}
	// page fetches one page and checks it is full and counted right.
	page := func(ctx context.Context, query string, off, total int) error {
		var p struct {
			Data       []struct{ ID string } `json:"data"`
			Pagination struct{ Total int }   `json:"pagination"`
		}
		if err := s.client.Do(ctx, http.MethodGet, fmt.Sprintf("/api/v1/prospects?limit=50&offset=%d&%s", off, query), nil, &p); err != nil {
			return err
		}
		if len(p.Data) != min(50, total-off) || p.Pagination.Total != total {
			return fmt.Errorf("offset %d: %d rows, total %d (want %d, %d)", off, len(p.Data), p.Pagination.Total, min(50, total-off), total)
		}
		return nil
	}
	report := func(b *testing.B, rec *Recorder, cpu *CPUShare, fatal bool) {
		sum, fails, firstErr := rec.Result()
		if fails > 0 && fatal {
			b.Fatalf("%d of %d requests failed; first: %v", fails, fails+sum.N, firstErr)
		}
		b.ReportMetric(float64(sum.N)/cpu.Wall.Seconds(), "req/s")
		b.ReportMetric(float64(sum.P50)/1e6, "p50-ms")
		b.ReportMetric(float64(sum.P95)/1e6, "p95-ms")
		b.ReportMetric(float64(sum.P99)/1e6, "p99-ms")
		b.ReportMetric(float64(sum.Max)/1e6, "max-ms")
		b.ReportMetric(float64(fails), "failed")
		s.reportRSS(b)
		b.Logf("%d answered, %d failed (first: %v); %s; load average %s", sum.N, fails, firstErr, cpu, LoadAvg())
	}

	total := totals["unfiltered"]
	for _, off := range []int{0, 1000, 10000, 50000, total - 50} {
		b.Run(fmt.Sprintf("depth/offset=%d", off), func(b *testing.B) {
			var rec Recorder
			cpu := StartCPU(s.pid, s.dbURL)
			for b.Loop() {
				for range 40 {
					t0 := time.Now()
					if err := page(ctx, "", off, total); err != nil {
						rec.Fail(err)
						continue
					}
					rec.Add(time.Since(t0))
				}
			}
			cpu.Stop()
			report(b, &rec, cpu, true)
		})
	}
	for _, f := range filters {
		b.Run("open/"+f.name+"/first20pages", func(b *testing.B) {
			var rec Recorder
			cpu := StartCPU(s.pid, s.dbURL)
			for b.Loop() {
				OpenLoop(ctx, rate, d, func(ctx context.Context, _ int, at time.Time) {
					if err := page(ctx, f.query, rand.IntN(1000-49), totals[f.name]); err != nil {
						rec.Fail(err)
						return
					}
					rec.Add(time.Since(at))
				})
			}
			cpu.Stop()
			report(b, &rec, cpu, true)
		})
	}
	for _, f := range filters {
		b.Run("open/"+f.name+"/anywhere", func(b *testing.B) {
			var rec Recorder
			cpu := StartCPU(s.pid, s.dbURL)
			for b.Loop() {
				OpenLoop(ctx, rate, du, func(ctx context.Context, _ int, at time.Time) {
					ctx, cancel := context.WithDeadline(ctx, at.Add(5*time.Second))
					defer cancel()
					if err := page(ctx, f.query, rand.IntN(totals[f.name]-49), totals[f.name]); err != nil {
						rec.Fail(err)
						return
					}
					rec.Add(time.Since(at))
				})
			}
			cpu.Stop()
			report(b, &rec, cpu, false)
		})
		b.Run("capacity/"+f.name+"/anywhere", func(b *testing.B) {
			var rec Recorder
			cpu := StartCPU(s.pid, s.dbURL)
			for b.Loop() {
				deadline := time.Now().Add(10 * time.Second)
				var wg sync.WaitGroup
				for range 4 {
					wg.Go(func() {
						for time.Now().Before(deadline) {
							t0 := time.Now()
							if err := page(ctx, f.query, rand.IntN(totals[f.name]-49), totals[f.name]); err != nil {
								rec.Fail(err)
								continue
							}
							rec.Add(time.Since(t0))
						}
					})
				}
				wg.Wait()
			}
			cpu.Stop()
			report(b, &rec, cpu, true)
		})
	}
}
