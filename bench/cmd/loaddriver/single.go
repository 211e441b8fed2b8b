package main

import (
	"context"
	"fmt"
	"time"

	"outreachd/bench"
)

// oneAtATime commits o.single events one after the other, each once the last one arrived: by the
// API (a one-lead push, prospect_added) or by the operator CLI in its own process (`admin campaign
// set-status --status active`, campaign_started). Each event is its own campaign at the receiver.
func oneAtATime(ctx context.Context, bin string, sc *scenario, recv *receiver, o options, byCLI bool) (result, error) {
	r := result{dests: 1, phase: "one at a time (own organization)", offered: "API: one-lead push", events: o.single, expected: o.single}
	if byCLI {
		r.offered = "operator CLI (another process): campaign set-status active"
	}
	var campaigns []string
	var rec, fromCommit bench.Recorder
	commits, err := sc.db.commitClock(ctx)
	if err != nil {
		return r, err
	}
	if commits != nil {
		defer commits.Close(context.Background())
	}
	lag0, err := sc.srv.lagTotals()
	if err != nil {
		return r, err
	}
	for i := range o.single {
		c, err := sc.single.CreateCampaign(ctx, fmt.Sprintf("single %v %d", byCLI, i))
		if err != nil {
			return r, err
		}
		campaigns = append(campaigns, c)
		t0 := time.Now()
		if byCLI {
			_, err = adminString(bin, sc.db.url, "campaign_id", "campaign", "set-status", "--campaign", c, "--status", "active")
		} else {
			err = sc.single.PushLeads(ctx, c, "one-"+c, 0, 1)
		}
		if err != nil {
			return r, err
		}
		rec.Add(time.Since(t0))
		if recv.waitFor(c, 1, 10*time.Second) != 1 {
			return r, fmt.Errorf("one at a time: the event of campaign %s did not arrive", c)
		}
		if commits != nil {
			delivery, arrived := recv.firstOf(c)
			var committed time.Time
			// The event's outbox row was written by the transaction that committed it.
			if err := commits.QueryRow(ctx, `SELECT pg_xact_commit_timestamp(e.xmin) FROM deliveries d
				JOIN watermill_events e ON e.uuid = d.event_id WHERE d.id = $1`, delivery).Scan(&committed); err != nil {
				return r, fmt.Errorf("one at a time: commit timestamp of delivery %s: %w", delivery, err)
			}
			fromCommit.Add(arrived.Sub(committed))
		}
	}
	r.fromCommit, _, _ = fromCommit.Result()
	r.push, r.pushFails, _ = rec.Result()
	r.fig = recv.figuresOf(campaigns)
	// The recorder observes the lag when it records the 2xx: wait until every one is counted.
	for deadline := time.Now().Add(10 * time.Second); ; {
		lag1, err := sc.srv.lagTotals()
		if err != nil {
			return r, err
		}
		if n := lag1.count - lag0.count; n >= float64(o.single) || time.Now().After(deadline) {
			if n > 0 {
				r.serverLag = time.Duration((lag1.sum - lag0.sum) / n * float64(time.Second))
			}
			return r, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}
