package delivery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// This file holds how the delivery hub claims due deliveries from the dispatch queue
// (migrations 082 and 084), hands back what it will not attempt, and finds the next due time.

// ClaimedDelivery is a delivery leased to this process for one attempt.
type ClaimedDelivery struct {
	ID string
	// QueueID is the dispatch queue row the delivery was claimed through: the delivery's own id,
	// or the id of the chunk the fan-out queued it in (migration 084), whose other members the
	// claim returned beside it.
	QueueID     string
	OrgID       string
	EventID     string
	EventKind   string
	Payload     []byte
	Attempts    int // attempts made before this one
	MaxAttempts int
	EmittedAt   time.Time
	Trigger     string
	Target      DeliveryTarget
	// Due is when the delivery's attempt came due (for a first attempt, when its event was
	// committed): throttled_ms counts from it.
	Due time.Time
	// NotBefore is the start the destination's rate limit gave the attempt (throttle.go); zero
	// when the destination has none. Throttled reports that it was later than the claim: the
	// limit held the attempt back.
	NotBefore time.Time
	Throttled bool
	// TraceParent is the W3C traceparent of the span that committed the event, "" when none was
	// recorded (trace.go).
	TraceParent string
}

// ChunkID is the id of the chunk the delivery was claimed through, "" when it was claimed through a
// row of its own.
func (c ClaimedDelivery) ChunkID() string {
	if c.QueueID == c.ID {
		return ""
	}
	return c.QueueID
}

// ClaimDueParams selects what ClaimDue may take.
type ClaimDueParams struct {
	Retries bool          // false: first attempts only; true: retries only (separate budgets)
	Limit   int           // at most this many deliveries (the claim's first queue row is taken whole)
	Lease   time.Duration // the claimed rows come due again after this, if nobody records them
	// Skip lists destinations left out of this claim (the caller's saturated local queues).
	Skip []string
	// PerDestination, when positive, caps what one claim takes of a destination: PerDestination
	// minus what the caller already holds queued for it (Queued), so one claim of many rows
	// never piles more onto one destination than the caller can send within the lease.
	PerDestination int
	Queued         map[string]int
}

// claimFirstSQL and claimRetrySQL are ClaimDue's statement for each budget (claimSQL with the
// budget's condition on the queue row), built once.
var claimFirstSQL, claimRetrySQL = fmt.Sprintf(claimSQL, `d.attempts = 0`, throttleGrantSQL, targetColumns),
	fmt.Sprintf(claimSQL, `d.attempts > 0`, throttleGrantSQL, targetColumns)

// claimSQL is ClaimDue's statement: %s is the budget's condition on the queue row, then
// throttleGrantSQL, then targetColumns. $8 is the throttle's horizon and $9 its spacing
// (throttle.go).
const claimSQL = `
WITH c AS (
    SELECT d.id, d.destination_id, d.next_attempt_at AS due, cardinality(d.delivery_ids) AS n FROM delivery_queue d
    WHERE %s AND d.next_attempt_at <= now()
      AND d.destination_id <> ALL($1::text[])
      AND EXISTS (SELECT 1 FROM destinations e WHERE e.id = d.destination_id AND e.enabled)
    ORDER BY d.next_attempt_at
    LIMIT $7
    FOR UPDATE OF d SKIP LOCKED
), t AS (
    -- Running totals of deliveries, in due order: per destination (dn) and over the claim (tn).
    SELECT c.*, sum(c.n) OVER (PARTITION BY c.destination_id ORDER BY c.due, c.id) AS dn,
           sum(c.n) OVER (ORDER BY c.due, c.id) AS tn FROM c
), r0 AS (
    -- What fits: per destination its room, over the claim the limit.
    SELECT t.id, t.due, t.destination_id, t.n, t.dn FROM t
    LEFT JOIN unnest($4::text[], $5::int[]) AS q(dest, n) ON q.dest = t.destination_id
    WHERE (t.dn <= $6 - coalesce(q.n, 0) OR (t.dn = t.n AND q.n IS NULL))
      AND (t.tn <= $2 OR t.tn = t.n)
), %s, r AS (
    -- What is taken: of a throttled destination, what its budget granted.
    SELECT r0.id, r0.due, g.next_start AS slots_end FROM r0 LEFT JOIN g ON g.destination_id = r0.destination_id
    WHERE g.destination_id IS NULL OR r0.dn <= g.granted
), p AS (
    -- The rows of throttled destinations their budget had no room for: due again when it may
    -- have (when the slot the row's last delivery would get comes within the horizon), so that
    -- claims do not read them again and again while they wait.
    UPDATE delivery_queue q SET next_attempt_at = greatest(now(), g.next_start - $8::interval + (t.dn - g.granted) * g.slot)
    FROM t JOIN g ON g.destination_id = t.destination_id
    WHERE q.id = t.id AND t.dn > g.granted
    RETURNING 1
), u AS (
    -- The lease; a throttled row's covers the wait for its last slot too.
    UPDATE delivery_queue q SET next_attempt_at = greatest(now(), coalesce(r.slots_end, now())) + $3::interval
    FROM r WHERE q.id = r.id
    RETURNING q.id, q.attempts, q.delivery_ids, r.due
), d AS (
    SELECT u.due, u.id AS queue_id, d.id, d.org_id, d.event_id, d.event_kind, d.attempts, d.max_attempts, d.emitted_at,
           d.next_trigger, d.destination_id, d.next_attempt_at AS own_due,
           row_number() OVER (PARTITION BY d.event_id) AS en,
           row_number() OVER (PARTITION BY d.destination_id) AS dn
    FROM u CROSS JOIN LATERAL unnest(u.delivery_ids) WITH ORDINALITY AS m(id, n)
    LEFT JOIN deliveries d ON d.id = m.id AND d.status = 'pending' AND d.attempts = u.attempts
    WHERE d.id IS NOT NULL OR m.n = 1
)
-- An event's payload and a destination's columns come once per claim, on the first row that
-- needs them (en, dn = 1): the condition on the outer row is a one-time filter of each lateral
-- read (OFFSET 0 keeps it one), so the other rows read nothing. With 10 destinations a claim
-- held each payload ten times. Every queue row claimed comes back at least once: one whose first
-- delivery is no longer pending also once without a delivery (id NULL). A throttled
-- destination's rows carry its grant: the first slot, the spacing and the time of the grant.
-- Every row, and the one row there is when nothing was taken, says how many rows waiting for
-- their budget were put back (deferred).
SELECT pc.deferred, d.due, d.queue_id, d.id, d.org_id, d.event_id, d.event_kind, pl.payload, pl.traceparent,
       d.attempts, d.max_attempts, d.emitted_at, d.next_trigger, d.destination_id, d.own_due,
       g.next_start - g.granted * g.slot, g.slot, g.at, t.*
FROM (SELECT count(*)::int AS deferred FROM p) pc
LEFT JOIN d ON true
LEFT JOIN g ON g.destination_id = d.destination_id
LEFT JOIN LATERAL (SELECT p.payload, p.traceparent FROM delivery_payloads p WHERE d.en = 1 AND p.event_id = d.event_id OFFSET 0) pl ON true
LEFT JOIN LATERAL (SELECT %s FROM destinations dst WHERE d.dn = 1 AND dst.id = d.destination_id OFFSET 0) t ON true`

// ClaimDue leases up to Limit due pending deliveries of enabled destinations, oldest due first,
// skipping rows other processes hold and the destinations in Skip, and at most the room
// PerDestination leaves of each destination. It walks the partial index of its budget in the
// dispatch queue (delivery_queue_due_first / delivery_queue_due_retry, migration 082), reads up
// to claimRows queue rows and takes them in due order while their deliveries fit the budget's and each
// destination's room (a row is a delivery or a chunk of several, migration 084; the first row of
// the claim, and the first of a destination with nothing queued, is taken whatever its size, so
// a chunk larger than the room cannot be left behind); the rest stay due for the next claim. The
// lease moves only the narrow queue row; the deliveries a row lists are read, not written —
// those still pending at the row's attempts, each payload and destination once per claim (claimed
// rows of one event share the payload's bytes: nothing may write to them). A chunk whose
// deliveries are all finished (its last record was lost) is deleted. The deliveries come back
// oldest due first.
func (s *Store) ClaimDue(ctx context.Context, p ClaimDueParams) ([]ClaimedDelivery, error) {
	query := claimFirstSQL
	if p.Retries {
		query = claimRetrySQL
	}
	// Empty, not nil: pgx sends a nil slice as NULL, and "x <> ALL(NULL)" is never true.
	skip, queuedIDs, queuedN := []string{}, []string{}, []int32{}
	skip = append(skip, p.Skip...)
	for id, n := range p.Queued {
		queuedIDs, queuedN = append(queuedIDs, id), append(queuedN, int32(n))
	}
	perDest := p.PerDestination
	if perDest <= 0 {
		perDest = p.Limit
	}
	var got []claimRow
	var finished map[string]bool
	// A claim that read only rows of throttled destinations without room put them back (due when
	// their budget may have room) and took nothing; the rows behind them may be due for others,
	// so it reads on, a few times at most, rather than report that nothing is due.
	for range claimPasses {
		rows, err := s.async.Query(ctx, query,
			skip, p.Limit, p.Lease, queuedIDs, queuedN, perDest, claimRows(p, s.policy.Load().QueueChunk),
			throttleHorizon, throttleSpacing)
		if err != nil {
			return nil, fmt.Errorf("claim deliveries: %w", err)
		}
		var deferred int
		got, finished, deferred, err = scanClaims(rows)
		if err != nil {
			return nil, err
		}
		if len(got) > 0 || len(finished) > 0 || deferred == 0 {
			break
		}
	}
	// Best effort: the deliveries are claimed already, and a chunk this fails to drop is found and
	// dropped by a claim after its lease.
	_ = s.dropFinishedChunks(ctx, finished)
	slices.SortStableFunc(got, func(a, b claimRow) int { return a.at.Compare(b.at) })
	out := make([]ClaimedDelivery, len(got))
	slot := map[string]int{} // the next slot of each throttled destination's grant
	for i, g := range got {
		out[i] = g.c
		if g.grant.spacing > 0 {
			k := slot[g.c.Target.ID]
			slot[g.c.Target.ID] = k + 1
			out[i].NotBefore = g.grant.first.Add(time.Duration(k) * g.grant.spacing)
			out[i].Throttled = out[i].NotBefore.After(g.grant.at)
		}
	}
	return out, nil
}

// claimPasses bounds how many times ClaimDue runs its statement when a run only put back rows
// of throttled destinations.
const claimPasses = 4

// claimRow is one delivery a claim returned, with the due time of its queue row and, for a
// throttled destination, the slots its budget granted.
type claimRow struct {
	at    time.Time
	c     ClaimedDelivery
	grant grant
}

// grant is the slots a claim took of a throttled destination's budget: granted of them, spacing
// apart from first, taken at at (the database's clock).
type grant struct {
	first, at time.Time
	spacing   time.Duration
}

// scanClaims reads claimSQL's rows: the deliveries (each with its payload and destination, read
// once per claim and shared between the rows that need them; one whose destination or payload
// was removed meanwhile is left out, having nothing to send) and, per queue row claimed, whether
// none of its deliveries is pending (true).
func scanClaims(rows pgx.Rows) (got []claimRow, finished map[string]bool, deferred int, err error) {
	defer rows.Close()
	type scanned struct {
		claimRow
		destID string
	}
	var all []scanned
	payloads, targets, traceParents := map[string][]byte{}, map[string]DeliveryTarget{}, map[string]string{}
	finished = map[string]bool{}
	for rows.Next() {
		var g scanned
		var t targetRow
		var queueID, id, org, evID, evKind, trigger, destID, traceParent *string
		var attempts, maxAttempts *int
		var at, emitted, due, first, grantAt *time.Time
		var spacing *time.Duration
		dest := []any{&deferred, &at, &queueID, &id, &org, &evID, &evKind, &g.c.Payload, &traceParent, &attempts,
			&maxAttempts, &emitted, &trigger, &destID, &due, &first, &spacing, &grantAt}
		if err := rows.Scan(t.scan(dest)...); err != nil {
			return nil, nil, 0, err
		}
		if queueID == nil { // nothing was taken
			continue
		}
		g.at, g.c.QueueID = *at, *queueID
		if id == nil { // a queue row whose first delivery is no longer pending
			if _, seen := finished[g.c.QueueID]; !seen {
				finished[g.c.QueueID] = true
			}
			continue
		}
		finished[g.c.QueueID] = false
		g.c.ID, g.c.OrgID, g.c.EventID, g.c.EventKind, g.c.Trigger, g.destID = *id, *org, *evID, *evKind, *trigger, *destID
		g.c.Attempts, g.c.MaxAttempts, g.c.EmittedAt = *attempts, *maxAttempts, *emitted
		if due != nil {
			g.c.Due = *due
		}
		if spacing != nil && first != nil && grantAt != nil {
			g.grant = grant{first: *first, at: *grantAt, spacing: *spacing}
		}
		if g.c.Payload != nil {
			payloads[g.c.EventID] = g.c.Payload
		}
		if traceParent != nil {
			traceParents[g.c.EventID] = *traceParent
		}
		if t.id != nil {
			targets[g.destID] = t.target()
		}
		all = append(all, g)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, 0, err
	}
	for _, g := range all {
		pl, okP := payloads[g.c.EventID]
		t, okT := targets[g.destID]
		if okP && okT {
			g.c.Payload, g.c.Target, g.c.TraceParent = pl, t, traceParents[g.c.EventID]
			got = append(got, g.claimRow)
		}
	}
	return got, finished, deferred, nil
}

// claimRows is how many queue rows a claim reads, and locks, for up to p.Limit deliveries. Every
// row read is locked (a WAL record and a dirtied page each) before the running totals cut the
// claim to its limit; reading Limit rows when most of them are chunks of chunk deliveries locked
// dozens of rows to take a few in a burst to many destinations (measured: docs/performance.md,
// "Design choices and their measurements"). A first-attempt claim therefore reads enough chunks for its limit and a few more (rows of one
// delivery at the head, a chunk the room cuts); retries are rows of one delivery each. A claim
// still takes at least one row whenever one is due: a destination not skipped has room for a
// chunk (the hub leaves out the saturated ones).
func claimRows(p ClaimDueParams, chunk int) int {
	if p.Retries || chunk <= 1 {
		return p.Limit
	}
	return min(p.Limit, (p.Limit+chunk-1)/chunk+claimRowsSpare)
}

// claimRowsSpare is how many rows a first-attempt claim reads beyond its limit's worth of chunks.
const claimRowsSpare = 4

// dropFinishedChunks deletes the chunks a claim found with no delivery left to send: their last
// deliveries were recorded, but not the chunk's removal (the process that claimed them stopped
// before it, or that record was lost). A chunk is removed only while it still lists no pending
// delivery at its attempts.
func (s *Store) dropFinishedChunks(ctx context.Context, claimed map[string]bool) error {
	var ids []string
	for id, done := range claimed {
		if done {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	_, err := s.async.Exec(ctx, `DELETE FROM delivery_queue q WHERE q.id = ANY($1::text[])
		AND NOT EXISTS (SELECT 1 FROM unnest(q.delivery_ids) m(id) JOIN deliveries d ON d.id = m.id
		                WHERE d.status = 'pending' AND d.attempts = q.attempts)`, ids)
	if err != nil {
		return fmt.Errorf("claim deliveries: drop finished chunks: %w", err)
	}
	return nil
}

// targetRow scans targetColumns, also where a row carries none (all NULL: the claim reads each
// destination once).
type targetRow struct {
	id, org, name, kind, url, channel, token, secret, previous *string
	events                                                     []string
	enabled                                                    *bool
}

func (t *targetRow) scan(dest []any) []any {
	return append(dest, &t.id, &t.org, &t.name, &t.kind, &t.url, &t.channel, &t.token, &t.secret,
		&t.events, &t.enabled, &t.previous)
}

func (t *targetRow) target() DeliveryTarget {
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return DeliveryTarget{ID: s(t.id), OrgID: s(t.org), Name: s(t.name), Kind: s(t.kind), URL: s(t.url),
		SlackChannel: s(t.channel), SlackTokenSealed: s(t.token), SecretSealed: s(t.secret),
		PreviousSecretSealed: s(t.previous), Events: kinds(t.events), Enabled: t.enabled != nil && *t.enabled}
}

// ReleaseClaims hands back the queue rows (ClaimedDelivery.QueueID) of claimed deliveries this
// process will not attempt (queued locally at shutdown): they come due at once instead of after
// their lease, and a chunk among them gives the next claim only its deliveries still pending.
// Only rows still leased (next_attempt_at in the future) are touched.
func (s *Store) ReleaseClaims(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.async.Exec(ctx, `UPDATE delivery_queue SET next_attempt_at = now()
		WHERE id = ANY($1::text[]) AND next_attempt_at > now()`, ids)
	if err != nil {
		return fmt.Errorf("release claims: %w", err)
	}
	return nil
}

// NextDue returns when the earliest pending delivery of a budget (first attempts or retries)
// comes due, skipping the destinations listed and disabled ones; ok is false when none is pending.
func (s *Store) NextDue(ctx context.Context, retries bool, skip []string) (at time.Time, ok bool, err error) {
	cond := `attempts = 0`
	if retries {
		cond = `attempts > 0`
	}
	if skip == nil {
		skip = []string{}
	}
	// Walks the budget's partial index in due order and stops at the first row that counts; a
	// min() over a join read every pending row.
	err = s.async.QueryRow(ctx, `SELECT d.next_attempt_at FROM delivery_queue d
		WHERE d.`+cond+` AND d.destination_id <> ALL($1::text[])
		  AND EXISTS (SELECT 1 FROM destinations dst WHERE dst.id = d.destination_id AND dst.enabled)
		ORDER BY d.next_attempt_at LIMIT 1`, skip).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	return at, true, nil
}
