package delivery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"outreachd/outreach"
)

// The fan-out: a business transaction that emits events also writes their deliveries, one per
// enabled destination of the organization that selected the event's kind, before it commits
// (storage.Store.InTx calls Store.FanOut). An event and its deliveries therefore exist together or
// not at all, whichever process commits it (serve, the operator CLI, a second instance), and there
// is no consumer to wait for: after the commit the store sends one NOTIFY deliveries (outside the
// transaction, coalesced), and the dispatchers of every process claim the new rows with FOR
// UPDATE SKIP LOCKED. The design and its measurements are in docs/decisions/delivery.md.

// FanoutPolicy is what the fan-out writes into each delivery: the attempts it gets (the length
// of the delivery hub's retry schedule) and the window within which identical payloads to one
// destination collapse; and how many deliveries of one destination share a dispatch queue row
// (the hub's sends in flight per destination, so that one chunk fits the room a claim looks
// for: migration 084).
type FanoutPolicy struct {
	Attempts     int
	DedupeWindow time.Duration
	QueueChunk   int
}

func (p *FanoutPolicy) setDefaults() {
	if p.Attempts <= 0 {
		p.Attempts = 4
	}
	if p.DedupeWindow <= 0 {
		p.DedupeWindow = 24 * time.Hour
	}
	if p.QueueChunk <= 0 {
		p.QueueChunk = DefaultQueueChunk
	}
}

// DefaultQueueChunk is the most deliveries of one destination a fan-out queues in one dispatch
// queue row, unless the hub sets its own (delivery.Config.PerDestination, whose default it is).
const DefaultQueueChunk = 32

// SetFanoutPolicy replaces the policy the fan-out writes with; NewHub sets it from the hub's own
// configuration, so the rows it claims carry its retry schedule's length.
func (s *Store) SetFanoutPolicy(p FanoutPolicy) {
	p.setDefaults()
	s.policy.Store(&p)
}

// FanoutCounts are this process's fan-out totals since it started, for the hub's metrics.
type FanoutCounts struct {
	Events    int64 // events committed
	Created   int64 // deliveries written
	Collapsed int64 // deliveries not written: an identical payload within the window
	Filtered  int64 // deliveries not written: the destination selected the kind, its filter did not match
}

type fanoutCounters struct{ events, created, collapsed, filtered atomic.Int64 }

// FanoutCounts reads the fan-out totals.
func (s *Store) FanoutCounts() FanoutCounts {
	return FanoutCounts{Events: s.counts.events.Load(), Created: s.counts.created.Load(), Collapsed: s.counts.collapsed.Load(),
		Filtered: s.counts.filtered.Load()}
}

// fanoutTarget is a destination as the fan-out matches events against it.
type fanoutTarget struct {
	id        string
	events    []outreach.EventKind
	hasFilter bool
	updatedAt time.Time        // the row's version, under which its compiled filter is kept
	filter    *outreach.Filter // set by resolveFilters when hasFilter
	rate      *int             // rate_limit_per_second
}

// fanOut writes the deliveries of events (bodies are their outbox payloads; traceParent is the
// span that commits them, "" for none) in tx and reports what it wrote, collapsed and filtered
// out. Most events of most organizations go nowhere: one indexed read of the organizations'
// enabled destinations, and an event no destination selected costs nothing more. An event goes
// to a destination that selected its kind when the destination has no filter or its filter
// matches (fanout_filters.go): a filtered-out event costs no delivery.
func (s *Store) fanOut(ctx context.Context, tx pgx.Tx, events []outreach.Event, bodies [][]byte, emitted time.Time, traceParent string) (InsertResult, error) {
	orgs := make([]string, 0, 1)
	for _, ev := range events {
		if len(orgs) == 0 || orgs[len(orgs)-1] != ev.OrgID {
			orgs = append(orgs, ev.OrgID)
		}
	}
	dests, filtered, err := fanoutTargets(ctx, tx, orgs)
	if err != nil || len(dests) == 0 {
		return InsertResult{}, err
	}
	if filtered {
		if err := s.resolveFilters(ctx, tx, dests); err != nil {
			return InsertResult{}, err
		}
	}
	policy := s.policy.Load()
	var nds []NewDeliveries
	var dropped int
	// The queue row size of each throttled destination that gets a delivery, when its limit is
	// below a row's size: a row holds at most its limit's deliveries, about a second of its
	// slots, so that one claim never takes (and one process never holds) much more than a second
	// of a slow destination's starts. nil when there is none.
	var smaller map[string]int
	for i, ev := range events {
		var nd NewDeliveries
		env := eventEnvelope{body: bodies[i]}
		for _, d := range dests[ev.OrgID] {
			if !ev.Kind.Matches(d.events) {
				continue
			}
			if ok, err := env.matches(d.filter); err != nil {
				return InsertResult{}, err
			} else if !ok {
				dropped++
				continue
			}
			if nd.Identity == nil {
				identity, err := ev.Identity()
				if err != nil {
					return InsertResult{}, fmt.Errorf("fan-out: identity of %s: %w", ev.Kind, err)
				}
				nd = NewDeliveries{EventID: ev.ID, EventKind: string(ev.Kind), OrgID: ev.OrgID, Payload: bodies[i],
					EmittedAt: emitted, MaxAttempts: policy.Attempts, DedupeWindow: policy.DedupeWindow,
					QueueChunk: policy.QueueChunk, Identity: identity, TraceParent: traceParent}
			}
			nd.IDs = append(nd.IDs, outreach.DeliveryID(ev.ID, d.id))
			nd.Destinations = append(nd.Destinations, d.id)
			if d.rate != nil && *d.rate < policy.QueueChunk {
				if smaller == nil {
					smaller = map[string]int{}
				}
				smaller[d.id] = *d.rate
			}
		}
		if len(nd.IDs) > 0 {
			nds = append(nds, nd)
		}
	}
	if len(nds) > 0 {
		nds[0].SmallerChunks = smaller
	}
	res, err := s.InsertDeliveryBatch(ctx, tx, nds)
	res.Filtered = dropped
	return res, err
}

const fanoutTargetsSQL = `SELECT id, org_id, events, filter IS NOT NULL, updated_at, rate_limit_per_second FROM destinations
		WHERE org_id = ANY($1::text[]) AND enabled AND deleted_at IS NULL ORDER BY created_at, id`

// fanoutTargets reads the enabled destinations of orgs, by organization, in the order they were
// created; filtered reports whether any of them has a filter.
func fanoutTargets(ctx context.Context, tx pgx.Tx, orgs []string) (out map[string][]fanoutTarget, filtered bool, err error) {
	rows, err := tx.Query(ctx, fanoutTargetsSQL, orgs)
	if err != nil {
		return nil, false, fmt.Errorf("fan-out destinations: %w", err)
	}
	defer rows.Close()
	out = map[string][]fanoutTarget{}
	for rows.Next() {
		var t fanoutTarget
		var org string
		var events []string
		if err := rows.Scan(&t.id, &org, &events, &t.hasFilter, &t.updatedAt, &t.rate); err != nil {
			return nil, false, err
		}
		t.events = kinds(events)
		filtered = filtered || t.hasFilter
		out[org] = append(out[org], t)
	}
	return out, filtered, rows.Err()
}

// NewDeliveries is one event's fan-out: one delivery per destination.
type NewDeliveries struct {
	EventID      string
	EventKind    string
	OrgID        string
	Payload      []byte
	EmittedAt    time.Time
	MaxAttempts  int
	DedupeWindow time.Duration
	QueueChunk   int // deliveries of one destination per dispatch queue row (0: DefaultQueueChunk)
	// SmallerChunks are the destinations whose deliveries go in smaller rows than QueueChunk, and
	// their size: throttled ones, whose row should not hold more than a second of their limit
	// (throttleChunk).
	SmallerChunks map[string]int
	// Identity is what makes two payloads identical for the duplicate rule
	// (outreach.Event.Identity).
	Identity     []byte
	IDs          []string // delivery ids, parallel to Destinations
	Destinations []string
	// TraceParent is the W3C traceparent of the span that commits the event ("" for none), kept
	// with its payload for the attempts' spans to link to (trace.go).
	TraceParent string
}

// InsertResult is what InsertDeliveryBatch wrote (and, for a fan-out, what it filtered out).
type InsertResult struct {
	Created   int // deliveries written
	Collapsed int // deliveries not written: an identical payload was seen within the window
	Filtered  int // deliveries not written: the destination's filter did not match the event
}

// InsertDeliveryBatch writes the deliveries of many events in tx in one statement, all due now:
// a destination that got an identical payload within the window gets nothing (the payload
// collapses into the earlier delivery, also when the earlier one is in the same batch); the rest
// get a pending delivery, queued in chunks of up to QueueChunk deliveries per destination (the
// first element's; migration 084). The duplicate rule keeps one row per payload (migration 085);
// while keys of the rule's older form may remain (Store.legacyDedupe), they are consulted too. It
// sends no notification: a NOTIFY inside a business transaction takes PostgreSQL's one notify lock
// at commit and holds it through the WAL flush, serializing every committing transaction of the
// cluster (migration 013); the store notifies after the commit instead. The window is the first
// element's DedupeWindow. A batch of more than customPlanAbove deliveries leaves plan_cache_mode =
// force_custom_plan set for the rest of tx.
func (s *Store) InsertDeliveryBatch(ctx context.Context, tx pgx.Tx, nds []NewDeliveries) (InsertResult, error) {
	legacy := s.legacyDedupe.Load()
	var res InsertResult
	// One array element per delivery (the event's columns repeated), and the payloads once per
	// event: no join between the two inputs, whose sizes the planner cannot know (it estimated
	// one row and joined them in a nested loop, quadratic in the deliveries of a statement).
	var (
		ids, dests, evID, evKind, evOrg []string
		keys, legacyKeys                [][]byte
		emitted                         []time.Time
		maxAttempts                     []int32
		bodyID, traceParents            []string
		body                            [][]byte
	)
	seen := map[string]bool{}
	for _, nd := range nds {
		if len(nd.IDs) == 0 {
			continue
		}
		// ON CONFLICT DO UPDATE may not touch one row twice in a statement: an identical payload
		// inside the batch collapses here, the first one wins (identical payloads are of one
		// organization and kind, so they select the same destinations).
		if len(nd.Identity) == 0 {
			// Every identity-less event would share one key and collapse into the first.
			return InsertResult{}, fmt.Errorf("insert deliveries: event %s has no payload identity", nd.EventID)
		}
		key := outreach.PayloadKey(nd.Identity)
		if seen[string(key)] {
			res.Collapsed += len(nd.IDs)
			continue
		}
		seen[string(key)] = true
		bodyID, body = append(bodyID, nd.EventID), append(body, nd.Payload)
		traceParents = append(traceParents, nd.TraceParent)
		for i := range nd.IDs {
			ids, dests, keys = append(ids, nd.IDs[i]), append(dests, nd.Destinations[i]), append(keys, key)
			evID, evKind, evOrg = append(evID, nd.EventID), append(evKind, nd.EventKind), append(evOrg, nd.OrgID)
			emitted, maxAttempts = append(emitted, nd.EmittedAt), append(maxAttempts, int32(nd.MaxAttempts))
			if legacy {
				legacyKeys = append(legacyKeys, outreach.DedupeKey(nd.Destinations[i], nd.Identity))
			}
		}
	}
	if len(ids) == 0 {
		return res, nil
	}
	chunk := nds[0].QueueChunk
	if chunk <= 0 {
		chunk = DefaultQueueChunk
	}
	if !slices.ContainsFunc(traceParents, func(tp string) bool { return tp != "" }) {
		traceParents = nil // NULL: no text to send or store
	}
	args := []any{ids, dests, keys, evID, evKind, evOrg, emitted, maxAttempts, bodyID, body, nds[0].DedupeWindow, chunk, traceParents}
	if legacy {
		args = append(args, legacyKeys)
	}
	small := len(nds[0].SmallerChunks) > 0
	if small {
		var smallIDs []string
		var smallSizes []int32
		for id, n := range nds[0].SmallerChunks {
			smallIDs, smallSizes = append(smallIDs, id), append(smallSizes, int32(max(n, 1)))
		}
		args = append(args, smallIDs, smallSizes)
	}
	query := insertDeliveriesSQL[statementVariant(legacy, small)]
	var err error
	if len(ids) <= customPlanAbove {
		err = tx.QueryRow(ctx, query, args...).Scan(&res.Created)
	} else {
		// One round trip. The setting lasts until tx ends; in a business transaction
		// (storage.Store.InTx) the fan-out is the last statement before the commit.
		b := &pgx.Batch{}
		b.Queue(`SET LOCAL plan_cache_mode = force_custom_plan`)
		b.Queue(query, args...).QueryRow(func(row pgx.Row) error { return row.Scan(&res.Created) })
		err = tx.SendBatch(ctx, b).Close()
	}
	if err != nil {
		return InsertResult{}, fmt.Errorf("insert deliveries of %d events: %w", len(bodyID), err)
	}
	res.Collapsed += len(ids) - res.Created
	return res, nil
}

// customPlanAbove is the batch size above which the fan-out's statement is planned for its
// arguments (plan_cache_mode = force_custom_plan) rather than run from its cached plan. After five
// executions PostgreSQL keeps a generic plan for a prepared statement, and this one's estimated
// every unnest at 10 rows and joined the batch's deliveries to the dedupe keys it kept in a
// nested loop, quadratic in the deliveries of a batch, which made the writes a small part of the
// statement's time. Planned with its arrays' real lengths it hash-joins. That join is now an
// anti-join with the usually empty set of collapsed payloads, linear under either plan
// (TestLargeFanoutStaysLinearOnAWarmConnection), and custom plans above the threshold are kept as
// a guard for the statement's other joins; below it, planning would cost more (BenchmarkFanout)
// than any join of so few rows (measured: docs/performance.md, "The fan-out statement").
const customPlanAbove = 200

// insertDeliveriesSQL holds InsertDeliveryBatch's statement in its variants (statementVariant,
// arguments in the order it passes them): with $14, the keys of the duplicate rule's older form
// (per destination), whose deliveries collapse too; with two more arrays, the destinations queued
// in smaller rows and their sizes (NewDeliveries.SmallerChunks). A batch with neither runs the
// first.
var insertDeliveriesSQL = [4]string{fanoutStatement(false, false), fanoutStatement(true, false),
	fanoutStatement(false, true), fanoutStatement(true, true)}

// statementVariant is the index in insertDeliveriesSQL of a batch's statement.
func statementVariant(legacy, small bool) int {
	v := 0
	if legacy {
		v++
	}
	if small {
		v += 2
	}
	return v
}

// fanoutStatement is the fan-out, with or without the keys of the duplicate rule's older form,
// and with or without the destinations queued in smaller rows.
func fanoutStatement(legacy, small bool) string {
	legacyArray, legacyColumn, legacyFilter := "", "", ""
	next := 14
	if legacy {
		legacyArray, legacyColumn, legacyFilter = ", $14::bytea[]", ", legacy_key", `
      AND NOT EXISTS (SELECT 1 FROM delivery_dedupe_legacy l WHERE l.destination_id = i.destination_id
                      AND l.dedupe_key = i.legacy_key AND l.expires_at > now())`
		next++
	}
	chunkSize, smallJoin := "$12", ""
	if small {
		chunkSize = "coalesce(s.size, $12)"
		smallJoin = fmt.Sprintf(`
                 LEFT JOIN unnest($%d::text[], $%d::int[]) AS s(dest, size) ON s.dest = ins.destination_id`, next, next+1)
	}
	return `
WITH input AS (
    -- Only destinations that still exist and are not deleted: one deleted since the caller read
    -- the list gets nothing.
    SELECT i.* FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[], $5::text[], $6::text[],
                           $7::timestamptz[], $8::int[]` + legacyArray + `)
        AS i(delivery_id, destination_id, payload_key, event_id, event_kind, org_id, emitted_at, max_attempts` + legacyColumn + `)
    WHERE EXISTS (SELECT 1 FROM destinations dst WHERE dst.id = i.destination_id AND dst.deleted_at IS NULL)` + legacyFilter + `
), kept AS (
    -- One row per payload: a new one lists every destination; one seen before (within some
    -- destination's window) adds the destinations it does not cover (migration 085).
    INSERT INTO delivery_dedupe AS dd (payload_key, destination_ids, expires_at, added, last_expires_at)
    SELECT payload_key, dests, array_fill(now() + $11::interval, ARRAY[cardinality(dests)]), dests, now() + $11::interval
    FROM (SELECT payload_key, array_agg(destination_id ORDER BY destination_id) AS dests FROM input GROUP BY payload_key) ev
    -- In key order, so two transactions writing the same keys (the same fact committed twice at
    -- once) take them in the same order and cannot deadlock.
    ORDER BY payload_key
    ON CONFLICT (payload_key) DO UPDATE SET (destination_ids, expires_at, added, last_expires_at) =
        (SELECT m.* FROM delivery_dedupe_merge(dd.destination_ids, dd.expires_at, EXCLUDED.destination_ids,
                                               EXCLUDED.last_expires_at) m)
    -- partial: some destination of the row kept the payload from an earlier write. Every
    -- destination of this batch that collapsed is such a one (a destination the row lists and the
    -- write did not add), so the rows without it need no further look.
    RETURNING dd.payload_key, dd.added, cardinality(dd.added) < cardinality(dd.destination_ids) AS partial
), collapsed AS MATERIALIZED (
    -- Usually empty, so the test below is linear in the batch whatever plan the statement runs
    -- from: a join of the batch with every kept row was quadratic under the generic plan that
    -- batches of up to customPlanAbove deliveries run from (1.2 ms of a 100-event fan-out).
    SELECT payload_key, added FROM kept WHERE partial
), ins AS (
    INSERT INTO deliveries (id, org_id, destination_id, event_id, event_kind, dedupe_key,
                            max_attempts, next_attempt_at, emitted_at)
    SELECT i.delivery_id, i.org_id, i.destination_id, i.event_id, i.event_kind, i.payload_key,
           i.max_attempts, now(), i.emitted_at
    FROM input i
    WHERE NOT EXISTS (SELECT 1 FROM collapsed c WHERE c.payload_key = i.payload_key
                      AND NOT (i.destination_id = ANY(c.added)))
    ON CONFLICT (event_id, destination_id) DO NOTHING
    RETURNING id, destination_id, event_id, next_attempt_at
), q AS (
    -- One queue row per chunk of up to $12 deliveries of one destination (migration 084), fewer
    -- for the destinations listed as queued in smaller rows.
    INSERT INTO delivery_queue (id, destination_id, attempts, next_attempt_at, delivery_ids)
    SELECT 'c:' || min(id), destination_id, 0, min(next_attempt_at), array_agg(id ORDER BY id)
    FROM (SELECT id, destination_id, next_attempt_at,
                 (row_number() OVER (PARTITION BY destination_id ORDER BY id) - 1) / ` + chunkSize + ` AS chunk
          FROM ins` + smallJoin + `) x
    GROUP BY destination_id, chunk
), body AS (
    INSERT INTO delivery_payloads (event_id, payload, traceparent)
    SELECT b.event_id, b.payload, nullif(b.traceparent, '')
    FROM unnest($9::text[], $10::bytea[], $13::text[]) AS b(event_id, payload, traceparent)
    WHERE b.event_id IN (SELECT event_id FROM ins)
    ON CONFLICT (event_id) DO NOTHING
)
SELECT count(*)::int FROM ins`
}

// Prepare prepares the fan-out's statements on a new connection of the business pool, before any
// transaction uses it (storage.Deliveries; the pool's AfterConnect): their parse and the loading
// of the tables' catalog entries then happen when the connection opens, not inside the first
// business transaction that commits an event. That transaction is what a one-shot process such
// as the operator CLI runs, and its deliveries arrive sooner for it (measured: docs/performance.md,
// "The CLI path"). pgx runs a statement prepared under its own SQL text as the name whenever that
// text is queried.
func (s *Store) Prepare(ctx context.Context, conn *pgx.Conn) error {
	// The variants for filters and throttled destinations are prepared on first use: each
	// statement prepared here delays a one-shot process (docs/performance.md, "Alternatives
	// measured and not kept").
	for _, q := range []string{fanoutTargetsSQL, insertDeliveriesSQL[0], insertDeliveriesSQL[1]} {
		if _, err := conn.Prepare(ctx, q, q); err != nil {
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "42703") {
				// A database not migrated yet (its first connection runs the migrations): the
				// statements are prepared on first use instead.
				return nil
			}
			return fmt.Errorf("prepare the fan-out's statements: %w", err)
		}
	}
	return nil
}
