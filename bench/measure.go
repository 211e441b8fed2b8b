// Package bench measures outreachd the way its users meet it: the built binary, a real
// PostgreSQL, requests over local HTTP. It holds the shared measuring tools (open-loop pacing,
// percentiles, process memory and CPU from /proc, a fast prospect seeder) used by the Go
// benchmarks of this folder and by the delivery load driver in bench/cmd/loaddriver.
//
// It must not be imported by the service itself, and it never asserts a timing: figures are
// measured and written down in docs/performance.md, not checked by tests.
package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// BusiestSecond is the most of at that fall within one second (windows [t, t+1s) starting at
// each time: the busiest window always starts at one): what a receiver limiting requests per
// second would count at worst.
func BusiestSecond(at []time.Time) int {
	at = slices.Clone(at)
	slices.SortFunc(at, time.Time.Compare)
	most := 0
	for i := range at {
		j, _ := slices.BinarySearchFunc(at, at[i].Add(time.Second), time.Time.Compare)
		most = max(most, j-i)
	}
	return most
}

// Percentile returns the p-th percentile (0 < p ≤ 100) of ds by the nearest-rank method; it
// sorts ds in place. An empty slice gives 0.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	if !slices.IsSorted(ds) {
		slices.Sort(ds)
	}
	rank := int(math.Ceil(p / 100 * float64(len(ds))))
	rank = min(max(rank, 1), len(ds))
	return ds[rank-1]
}

// Summary is the usual set of percentiles of one series.
type Summary struct {
	N                       int
	P50, P95, P99, Max, Avg time.Duration
}

// Summarize computes a Summary of ds (sorted in place).
func Summarize(ds []time.Duration) Summary {
	s := Summary{N: len(ds)}
	if len(ds) == 0 {
		return s
	}
	slices.Sort(ds)
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	s.P50, s.P95, s.P99 = Percentile(ds, 50), Percentile(ds, 95), Percentile(ds, 99)
	s.Max, s.Avg = ds[len(ds)-1], sum/time.Duration(len(ds))
	return s
}

// Ms renders d in milliseconds with one decimal.
func Ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64)
}

// Recorder collects latencies from many goroutines.
type Recorder struct {
	mu     sync.Mutex
	ds     []time.Duration
	errors int
	first  error
}

// Add records one latency.
func (r *Recorder) Add(d time.Duration) {
	r.mu.Lock()
	r.ds = append(r.ds, d)
	r.mu.Unlock()
}

// Fail records one failed operation; the first error is kept for the report.
func (r *Recorder) Fail(err error) {
	r.mu.Lock()
	r.errors++
	if r.first == nil {
		r.first = err
	}
	r.mu.Unlock()
}

// Result returns the summary, the number of failures and the first failure.
func (r *Recorder) Result() (Summary, int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Summarize(slices.Clone(r.ds)), r.errors, r.first
}

// OpenLoop calls fn at a fixed rate for d, each call in its own goroutine, and waits for all of
// them. The i-th call is scheduled at start + i/rate whatever happened to earlier calls, and fn
// receives that scheduled time: measuring latency from it (not from when the call actually
// left) counts the time a request spent waiting behind slow ones, so a stalled server shows in
// the percentiles instead of silently lowering the offered rate (no coordinated omission).
// It returns how many calls were made.
func OpenLoop(ctx context.Context, rate float64, d time.Duration, fn func(ctx context.Context, i int, scheduled time.Time)) int {
	interval := time.Duration(float64(time.Second) / rate)
	n := int(d / interval)
	start := time.Now()
	var wg sync.WaitGroup
	i := 0
	for ; i < n; i++ {
		at := start.Add(time.Duration(i) * interval)
		if wait := time.Until(at); wait > 0 {
			select {
			case <-ctx.Done():
				wg.Wait()
				return i
			case <-time.After(wait):
			}
		}
		wg.Add(1)
		go func(i int, at time.Time) {
			defer wg.Done()
			fn(ctx, i, at)
		}(i, at)
	}
	wg.Wait()
	return i
}

// PeakRSS returns the peak resident set size (VmHWM) of process pid in bytes.
func PeakRSS(pid int) (int64, error) {
	return procStatusKB(pid, "VmHWM:")
}

// RSS returns the current resident set size (VmRSS) of process pid in bytes.
func RSS(pid int) (int64, error) {
	return procStatusKB(pid, "VmRSS:")
}

func procStatusKB(pid int, field string) (int64, error) {
	return procFieldKB(fmt.Sprintf("/proc/%d/status", pid), field)
}

// procFieldKB reads a "Field: N kB" line of a /proc file, in bytes.
func procFieldKB(path, field string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s of %s: %w", field, path, err)
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("%s not in %s", field, path)
}

// Machine describes this machine for a report, e.g. "2 cores (amd64, AMD EPYC 7B13, 23.5 GiB)":
// its cores, architecture, CPU model and memory, leaving out what /proc does not tell. Figures
// compare only within one machine, so every report names its own.
func Machine() string {
	parts := []string{runtime.GOARCH}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				parts = append(parts, strings.TrimSpace(v))
				break
			}
		}
	}
	if mem, err := procFieldKB("/proc/meminfo", "MemTotal:"); err == nil {
		parts = append(parts, strconv.FormatFloat(float64(mem)/(1<<30), 'f', 1, 64)+" GiB")
	}
	return fmt.Sprintf("%d cores (%s)", runtime.NumCPU(), strings.Join(parts, ", "))
}

// MB renders bytes as mebibytes with one decimal.
func MB(b int64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) }

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// CPUTime returns the user+system CPU time process pid has used so far.
func CPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name in field 2 may hold spaces; fields after its closing parenthesis are fixed.
	s := string(b)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: short", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad times", pid)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// CPUShare is where CPU went during one measured period: the server process, the PostgreSQL
// backends connected to the benchmark's database, and this process. Backends are sampled every
// 250 ms, so one that exits keeps the CPU it had at its last sample; WAL writer, checkpointer and
// other databases' backends are not counted.
type CPUShare struct {
	Wall             time.Duration
	Server, DB, Self time.Duration
	serverPid        int
	s0, self0        time.Duration
	started          time.Time
	stop             chan struct{}
	done             chan struct{}
	mu               sync.Mutex
	first, last      map[int]time.Duration
}

// StartCPU takes the first readings and starts sampling the backends of dbURL's database (none
// when dbURL is empty).
func StartCPU(serverPid int, dbURL string) *CPUShare {
	c := &CPUShare{serverPid: serverPid, started: time.Now(), stop: make(chan struct{}), done: make(chan struct{}),
		first: map[int]time.Duration{}, last: map[int]time.Duration{}}
	c.s0, _ = CPUTime(serverPid)
	c.self0, _ = CPUTime(os.Getpid())
	go c.sample(dbURL)
	return c
}

func (c *CPUShare) sample(dbURL string) {
	defer close(c.done)
	if dbURL == "" {
		return
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	initial := true
	for {
		rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
		if err == nil {
			pids, _ := pgx.CollectRows(rows, pgx.RowTo[int32])
			c.mu.Lock()
			for _, pid := range pids {
				t, err := CPUTime(int(pid))
				if err != nil {
					continue
				}
				if _, seen := c.first[int(pid)]; !seen {
					// A backend seen at the first sample has a past; one born later starts at 0.
					if initial {
						c.first[int(pid)] = t
					} else {
						c.first[int(pid)] = 0
					}
				}
				c.last[int(pid)] = t
			}
			c.mu.Unlock()
		}
		initial = false
		select {
		case <-c.stop:
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Stop takes the last readings.
func (c *CPUShare) Stop() {
	close(c.stop)
	<-c.done
	c.Wall = time.Since(c.started)
	s1, _ := CPUTime(c.serverPid)
	c.Server = s1 - c.s0
	self1, _ := CPUTime(os.Getpid())
	c.Self = self1 - c.self0
	c.mu.Lock()
	defer c.mu.Unlock()
	for pid, t := range c.last {
		if now, err := CPUTime(pid); err == nil {
			t = now
		}
		c.DB += t - c.first[pid]
	}
}

// String renders the shares as cores used on average over the period.
func (c *CPUShare) String() string {
	if c.Wall <= 0 {
		return "n/a"
	}
	cores := func(d time.Duration) string {
		return strconv.FormatFloat(d.Seconds()/c.Wall.Seconds(), 'f', 2, 64)
	}
	return fmt.Sprintf("outreachd %s cores, its postgres backends %s cores, load generator %s cores over %.1fs",
		cores(c.Server), cores(c.DB), cores(c.Self), c.Wall.Seconds())
}

// LoadAvg returns the 1-minute load average of the machine ("?" when unreadable): figures
// measured while other work ran on the same cores are not comparable, so reports carry it.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}
