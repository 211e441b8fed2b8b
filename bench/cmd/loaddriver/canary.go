package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/bench"
)

// canaryEvery is how often the commit canary commits.
const canaryEvery = 10 * time.Millisecond

// canary is a writer unrelated to outreachd on the same PostgreSQL server: every canaryEvery, on a
// connection of its own, it inserts one row into a table of its own and commits synchronously,
// timing the round trip. Every synchronous commit on the server waits for the same WAL flush, so a
// push that stalled while the canary's one-row commit stalled too was waiting for the server's
// commit path (the disk), not for anything outreachd's statements or its hub did.
//
// Beside it, every vacuumEvery it looks for autovacuum workers in the same database: a pass over
// a table with many indexes after a burst takes a core of two for seconds.
type canary struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	took   []time.Duration
	at     []time.Time
	vacuum []vacuumSample
}

// vacuumSample is one sight of an autovacuum worker: when, and what it was doing (pg_stat_activity's
// query, such as "autovacuum: VACUUM public.prospects").
type vacuumSample struct {
	at   time.Time
	what string
}

// vacuumEvery is how often the canary looks for autovacuum workers.
const vacuumEvery = 100 * time.Millisecond

// startCanary creates the canary's table in the database of dbURL and starts committing.
func startCanary(dbURL string) (*canary, error) {
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("canary: connect: %w", err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS loaddriver_canary (n bigint NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`); err != nil {
		cancel()
		_ = conn.Close(context.Background())
		return nil, fmt.Errorf("canary: create its table: %w", err)
	}
	watch, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		cancel()
		_ = conn.Close(context.Background())
		return nil, fmt.Errorf("canary: connect: %w", err)
	}
	c := &canary{cancel: cancel, done: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(func() { c.watchVacuum(ctx, watch) })
	go func() {
		defer close(c.done)
		defer wg.Wait()
		defer conn.Close(context.Background())
		t := time.NewTicker(canaryEvery)
		defer t.Stop()
		for n := int64(0); ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			t0 := time.Now()
			if _, err := conn.Exec(ctx, `INSERT INTO loaddriver_canary (n) VALUES ($1)`, n); err != nil {
				return // the context ended, or the server went away: the figures stop here
			}
			c.mu.Lock()
			c.took, c.at = append(c.took, time.Since(t0)), append(c.at, t0)
			c.mu.Unlock()
		}
	}()
	return c, nil
}

// watchVacuum records the autovacuum workers of the database every vacuumEvery until ctx ends.
func (c *canary) watchVacuum(ctx context.Context, conn *pgx.Conn) {
	defer conn.Close(context.Background())
	t := time.NewTicker(vacuumEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rows, err := conn.Query(ctx, `SELECT query FROM pg_stat_activity
			WHERE backend_type = 'autovacuum worker' AND datname = current_database()`)
		if err != nil {
			return
		}
		now := time.Now()
		what, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return
		}
		c.mu.Lock()
		for _, w := range what {
			c.vacuum = append(c.vacuum, vacuumSample{now, w})
		}
		c.mu.Unlock()
	}
}

// vacuumSeen is, per autovacuum activity seen, for how long (samples × vacuumEvery), in the
// order first seen.
func (c *canary) vacuumSeen() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var order []string
	n := map[string]int{}
	for _, v := range c.vacuum {
		if n[v.what] == 0 {
			order = append(order, v.what)
		}
		n[v.what]++
	}
	var b strings.Builder
	for i, w := range order {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.1f s", strings.TrimPrefix(w, "autovacuum: "), (time.Duration(n[w]) * vacuumEvery).Seconds())
	}
	return b.String()
}

// stop ends the canary and summarizes its commits; slow counts those over slowAbove.
func (c *canary) stop(slowAbove time.Duration) (sum bench.Summary, slow int) {
	c.cancel()
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.took {
		if d > slowAbove {
			slow++
		}
	}
	return bench.Summarize(append([]time.Duration(nil), c.took...)), slow
}

// trace writes the canary's commits over above as "canary <start, Unix ms> <ms>" lines.
func (c *canary) trace(w io.Writer, above time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, d := range c.took {
		if d > above {
			traceLine(w, "canary", c.at[i], d)
		}
	}
	for _, v := range c.vacuum {
		fmt.Fprintf(w, "vacuum %d %s\n", v.at.UnixMilli(), strings.ReplaceAll(strings.TrimPrefix(v.what, "autovacuum: "), " ", "_"))
	}
}

// stages is where a latency phase's time went, per delivery's first attempt, from the database:
// the envelope's stamp to the COMMIT of the transaction that wrote the event (the rest of the
// push's transaction: outbox, fan-out, COMMIT), the COMMIT to the start of the attempt (wake-up,
// claim, a free slot of the destination), and the attempt itself (the send and the receiver's
// answer, as the hub recorded it).
type stages struct {
	toCommit, toSend, send bench.Summary
}

// phaseStages reads the stages of the first attempts at campaign's prospect_added deliveries
// (the commit timestamp is the event's outbox row's); ok is false when the server does not track
// commit timestamps.
func (d *database) phaseStages(ctx context.Context, campaign string) (s stages, ok bool, err error) {
	c, err := d.commitClock(ctx)
	if err != nil || c == nil {
		return s, false, err
	}
	defer c.Close(context.Background())
	rows, err := c.Query(ctx, `
		SELECT extract(epoch FROM pg_xact_commit_timestamp(e.xmin) - d.emitted_at),
		       extract(epoch FROM a.at - pg_xact_commit_timestamp(e.xmin)), a.duration_ms
		FROM deliveries d
		JOIN watermill_events e ON e.uuid = d.event_id
		JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1
		WHERE d.event_kind = 'prospect_added' AND e.payload::jsonb #>> '{data,campaign,id}' = $1`, campaign)
	if err != nil {
		return s, false, fmt.Errorf("stages: %w", err)
	}
	var toCommit, toSend, send []time.Duration
	for rows.Next() {
		var a, b float64
		var ms int
		if err := rows.Scan(&a, &b, &ms); err != nil {
			return s, false, fmt.Errorf("stages: %w", err)
		}
		toCommit = append(toCommit, time.Duration(a*float64(time.Second)))
		toSend = append(toSend, time.Duration(b*float64(time.Second)))
		send = append(send, time.Duration(ms)*time.Millisecond)
	}
	if err := rows.Err(); err != nil {
		return s, false, fmt.Errorf("stages: %w", err)
	}
	return stages{bench.Summarize(toCommit), bench.Summarize(toSend), bench.Summarize(send)}, len(send) > 0, nil
}
