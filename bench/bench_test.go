package bench

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

func TestPercentile(t *testing.T) {
	t.Parallel()
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // reversed: Percentile must sort
	}
	cases := []struct {
		name string
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"p50 of 1..100", ms(hundred...), 50, 50 * time.Millisecond},
		{"p99 of 1..100", ms(hundred...), 99, 99 * time.Millisecond},
		{"p100 of 1..100", ms(hundred...), 100, 100 * time.Millisecond},
		{"p95 of four", ms(1, 2, 3, 40), 95, 40 * time.Millisecond},
		{"p50 of four", ms(4, 3, 2, 1), 50, 2 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Percentile(c.in, c.p); got != c.want {
				t.Fatalf("Percentile(%v, %v) = %v, want %v", c.in, c.p, got, c.want)
			}
		})
	}
}

// TestOpenLoopKeepsSchedule: calls that block must not delay the ones scheduled after them, and
// the scheduled time handed to each call is start + i/rate.
func TestOpenLoopKeepsSchedule(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	var maxLag atomic.Int64
	start := time.Now()
	n := OpenLoop(context.Background(), 100, 500*time.Millisecond, func(_ context.Context, i int, at time.Time) {
		calls.Add(1)
		want := start.Add(time.Duration(i) * 10 * time.Millisecond)
		if d := at.Sub(want); d < -5*time.Millisecond || d > 5*time.Millisecond {
			t.Errorf("call %d scheduled at %v, want about %v", i, at.Sub(start), want.Sub(start))
		}
		if lag := time.Since(at); lag > time.Duration(maxLag.Load()) {
			maxLag.Store(int64(lag))
		}
		time.Sleep(200 * time.Millisecond) // a slow server
	})
	if n != 50 || calls.Load() != 50 {
		t.Fatalf("made %d calls (%d ran), want 50", n, calls.Load())
	}
	// A closed loop with one worker would have needed 50 x 200 ms.
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("took %v: slow calls held back later ones", el)
	}
}

// TestSeedAndServerProcess seeds a small campaign and checks, through the API, that the rows
// are what the benchmarks assume (counted, listed with a full person block, statuses mixed),
// and that the server process and its memory figures are found.
func TestSeedAndServerProcess(t *testing.T) {
	t.Parallel()
	dbURL := testenv.DatabaseURL(t)
	srv := testenv.StartServer(t, dbURL)
	org := testenv.NewOrg(t, srv, "--rate-limit-per-minute", "1000")
	c := NewClient(srv.URL, org.WriteKey)
	ctx := context.Background()
	cmp, err := c.CreateCampaign(ctx, "Seeded")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	if err := SeedProspects(ctx, dbURL, org.ID, cmp, n); err != nil {
		t.Fatal(err)
	}
	if err := SeedProspects(ctx, dbURL, org.ID, cmp, 10); err == nil {
		t.Fatal("seeding the same campaign twice succeeded")
	}

	var page struct {
		Data []struct {
			ID            string  `json:"id"`
			CampaignID    string  `json:"campaign_id"`
			Company       *string `json:"company"`
			FollowerCount *int    `json:"follower_count"`
			CreatedAt     string  `json:"created_at"`
		} `json:"data"`
		Pagination struct{ Total int } `json:"pagination"`
	}
	if err := c.Do(ctx, http.MethodGet, "/api/v1/prospects?limit=200&campaign_id="+cmp, nil, &page); err != nil {
		t.Fatal(err)
	}
	if page.Pagination.Total != n || len(page.Data) != 200 {
		t.Fatalf("total %d, page %d rows; want %d, 200", page.Pagination.Total, len(page.Data), n)
	}
	for i, p := range page.Data {
		if p.Company == nil || p.FollowerCount == nil || p.CampaignID != cmp {
			t.Fatalf("row %d: person block not filled: %+v", i, p)
		}
		if i > 0 && p.CreatedAt > page.Data[i-1].CreatedAt {
			t.Fatalf("row %d created %s after row %d (%s): not newest first", i, p.CreatedAt, i-1, page.Data[i-1].CreatedAt)
		}
	}

	var camp struct {
		Data struct {
			ProspectCounts map[string]int `json:"prospect_counts"`
		} `json:"data"`
	}
	if err := c.Do(ctx, http.MethodGet, "/api/v1/campaigns/"+cmp, nil, &camp); err != nil {
		t.Fatal(err)
	}
	for _, s := range SeedStatuses {
		if got, want := camp.Data.ProspectCounts[s.Status], n*s.Parts/100; got != want {
			t.Errorf("prospect_counts[%s] = %d, want %d", s.Status, got, want)
		}
	}

	pid, err := findServerPID(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	hwm, err := PeakRSS(pid)
	if err != nil || hwm < 1<<20 {
		t.Fatalf("PeakRSS(%d) = %d, %v", pid, hwm, err)
	}
	rss, err := RSS(pid)
	if err != nil || rss > hwm {
		t.Fatalf("RSS(%d) = %d (peak %d), %v", pid, rss, hwm, err)
	}
	cpu := StartCPU(pid, dbURL)
	for range 300 {
		if err := c.Do(ctx, http.MethodGet, "/api/v1/prospects?limit=200&offset=500", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	cpu.Stop()
	if cpu.Server <= 0 || cpu.DB <= 0 || cpu.Wall <= 0 {
		t.Fatalf("300 listings used no CPU? %s", cpu)
	}
	if _, err := findServerPID("127.0.0.1:1"); err == nil {
		t.Fatal("found a server on port 1")
	}
}
