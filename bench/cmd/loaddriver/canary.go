package main

import (
	"context"
	"fmt"
	"io"
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
type canary struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	took   []time.Duration
	at     []time.Time
}

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
	c := &canary{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
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
			fmt.Fprintf(w, "canary %d %.1f\n", c.at[i].UnixMilli(), float64(d.Microseconds())/1000)
		}
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

// phaseStages reads the stages of the first attempts at campaign's prospect_added deliveries;
// ok is false when the server does not track commit timestamps.
func (d *database) phaseStages(ctx context.Context, campaign string) (s stages, ok bool, err error) {
	c, err := d.commitClock(ctx)
	if err != nil || c == nil {
		return s, false, err
	}
	defer c.Close(context.Background())
	rows, err := c.Query(ctx, `
		SELECT extract(epoch FROM pg_xact_commit_timestamp(p.xmin) - d.emitted_at),
		       extract(epoch FROM a.at - pg_xact_commit_timestamp(p.xmin)), a.duration_ms
		FROM deliveries d
		JOIN delivery_payloads p ON p.event_id = d.event_id
		JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1
		WHERE d.event_kind = 'prospect_added'
		  AND convert_from(p.payload, 'UTF8')::jsonb #>> '{data,campaign,id}' = $1`, campaign)
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
