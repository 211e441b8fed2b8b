package storage

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// The fan-out: a business transaction that emits events also writes their deliveries, one per
// enabled destination of the organization that selected the event's kind, before it commits.
// An event and its deliveries therefore exist together or not at all, whichever process commits
// it (serve, the operator CLI, a second instance), and there is no consumer to wait for: after
// the commit the store sends one NOTIFY deliveries (outside the transaction, coalesced), and the
// dispatchers of every process claim the new rows with FOR UPDATE SKIP LOCKED. The design and its
// measurements are in docs/decisions/delivery.md.

// FanoutPolicy is what the fan-out writes into each delivery: the attempts it gets (the length
// of the delivery hub's retry schedule) and the window within which identical payloads to one
// destination collapse.
type FanoutPolicy struct {
	Attempts     int
	DedupeWindow time.Duration
}

func (p *FanoutPolicy) setDefaults() {
	if p.Attempts <= 0 {
		p.Attempts = 4
	}
	if p.DedupeWindow <= 0 {
		p.DedupeWindow = 24 * time.Hour
	}
}

// SetFanoutPolicy replaces the policy the fan-out writes with; the delivery hub sets it from its
// own configuration when it is built, so the rows it claims carry its retry schedule's length.
func (s *Store) SetFanoutPolicy(p FanoutPolicy) {
	p.setDefaults()
	s.policy.Store(&p)
}

// FanoutCounts are this process's fan-out totals since it started, for the hub's metrics.
type FanoutCounts struct {
	Events    int64 // events committed
	Created   int64 // deliveries written
	Collapsed int64 // deliveries not written: an identical payload within the window
}

type fanoutCounters struct{ events, created, collapsed atomic.Int64 }

// FanoutCounts reads the fan-out totals.
func (s *Store) FanoutCounts() FanoutCounts {
	return FanoutCounts{Events: s.counts.events.Load(), Created: s.counts.created.Load(), Collapsed: s.counts.collapsed.Load()}
}

// fanoutTarget is a destination as the fan-out matches events against it.
type fanoutTarget struct {
	id     string
	events []outreach.EventKind
}

// fanOut writes the deliveries of events (bodies are their outbox payloads) in tx and reports
// whether any was written. Most events of most organizations go nowhere: one indexed read of the
// organizations' enabled destinations, and an event no destination selected costs nothing more.
func (s *Store) fanOut(ctx context.Context, tx pgx.Tx, events []outreach.Event, bodies [][]byte, emitted time.Time) (InsertResult, error) {
	orgs := make([]string, 0, 1)
	for _, ev := range events {
		if len(orgs) == 0 || orgs[len(orgs)-1] != ev.OrgID {
			orgs = append(orgs, ev.OrgID)
		}
	}
	dests, err := fanoutTargets(ctx, tx, orgs)
	if err != nil || len(dests) == 0 {
		return InsertResult{}, err
	}
	policy := s.policy.Load()
	var nds []NewDeliveries
	for i, ev := range events {
		var nd NewDeliveries
		var identity []byte
		for _, d := range dests[ev.OrgID] {
			if !ev.Kind.Matches(d.events) {
				continue
			}
			if identity == nil {
				if identity, err = ev.Identity(); err != nil {
					return InsertResult{}, fmt.Errorf("fan-out: identity of %s: %w", ev.Kind, err)
				}
				nd = NewDeliveries{EventID: ev.ID, EventKind: string(ev.Kind), OrgID: ev.OrgID, Payload: bodies[i],
					EmittedAt: emitted, MaxAttempts: policy.Attempts, DedupeWindow: policy.DedupeWindow}
			}
			nd.IDs = append(nd.IDs, outreach.DeliveryID(ev.ID, d.id))
			nd.Destinations = append(nd.Destinations, d.id)
			nd.DedupeKeys = append(nd.DedupeKeys, outreach.DedupeKey(d.id, identity))
		}
		if len(nd.IDs) > 0 {
			nds = append(nds, nd)
		}
	}
	return InsertDeliveryBatch(ctx, tx, nds)
}

// fanoutTargets reads the enabled destinations of orgs, by organization, in the order they were
// created.
func fanoutTargets(ctx context.Context, tx pgx.Tx, orgs []string) (map[string][]fanoutTarget, error) {
	rows, err := tx.Query(ctx, `SELECT id, org_id, events FROM destinations
		WHERE org_id = ANY($1::text[]) AND enabled AND deleted_at IS NULL ORDER BY created_at, id`, orgs)
	if err != nil {
		return nil, fmt.Errorf("fan-out destinations: %w", err)
	}
	defer rows.Close()
	out := map[string][]fanoutTarget{}
	for rows.Next() {
		var id, org string
		var events []string
		if err := rows.Scan(&id, &org, &events); err != nil {
			return nil, err
		}
		out[org] = append(out[org], fanoutTarget{id: id, events: kinds(events)})
	}
	return out, rows.Err()
}
