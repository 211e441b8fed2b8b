package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// This file holds the delivery hub's queries: claiming due deliveries, recording attempts in
// batches and the figures behind /metrics (the fan-out is in fanout.go, the operator actions and
// views of one delivery in delivery_operator.go). The hub's design is in
// docs/decisions/delivery.md; package delivery is the only caller.

// Delivery statuses (deliveries.status).
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// Attempt triggers (delivery_attempts.trigger).
const (
	TriggerScheduled = "scheduled"
	TriggerManual    = "manual"
	TriggerTest      = "test"
)

// NotifyDeliveries is the channel that wakes dispatchers when deliveries become due now.
const NotifyDeliveries = "deliveries"

// DeliveryTarget is a destination as the dispatcher sends to it, read at claim time so a changed
// URL or secret applies to the next attempt.
type DeliveryTarget struct {
	ID               string
	OrgID            string
	Name             string
	Kind             string // https | slack
	URL              string
	SlackChannel     string
	SlackTokenSealed string // "" when none
	SecretSealed     string // "" when none
	// PreviousSecretSealed is a replaced secret still inside its overlap window ("" when none):
	// it signs beside SecretSealed.
	PreviousSecretSealed string
	Events               []outreach.EventKind
	Enabled              bool
}

const targetColumns = `dst.id, dst.org_id, dst.name, dst.kind, dst.url, coalesce(dst.slack_channel, ''),
	coalesce(dst.slack_token_sealed, ''), coalesce(dst.secret_sealed, ''), dst.events, dst.enabled,
	CASE WHEN dst.previous_secret_expires_at > now() THEN coalesce(dst.previous_secret_sealed, '') ELSE '' END`

func kinds(events []string) []outreach.EventKind {
	out := make([]outreach.EventKind, len(events))
	for i, e := range events {
		out[i] = outreach.EventKind(e)
	}
	return out
}

// DeliveryTargetByID reads one destination; orgID "" means any organization (the operator CLI).
func (s *Store) DeliveryTargetByID(ctx context.Context, orgID, destinationID string) (DeliveryTarget, error) {
	var t targetRow
	err := s.pool.QueryRow(ctx, `SELECT `+targetColumns+` FROM destinations dst
		WHERE dst.id = $1 AND ($2 = '' OR dst.org_id = $2) AND dst.deleted_at IS NULL`, destinationID, orgID).Scan(t.scan(nil)...)
	if err != nil {
		return DeliveryTarget{}, notFound(err, "destination "+destinationID)
	}
	return t.target(), nil
}

// ClaimedDelivery is a delivery leased to this process for one attempt.
type ClaimedDelivery struct {
	ID          string
	OrgID       string
	EventID     string
	EventKind   string
	Payload     []byte
	Attempts    int // attempts made before this one
	MaxAttempts int
	EmittedAt   time.Time
	Trigger     string
	Target      DeliveryTarget
}

// ClaimDueParams selects what ClaimDue may take.
type ClaimDueParams struct {
	Retries bool          // false: first attempts only; true: retries only (separate budgets)
	Limit   int           // at most this many
	Lease   time.Duration // the claimed rows come due again after this, if nobody records them
	// Skip lists destinations left out of this claim (the caller's saturated local queues).
	Skip []string
	// PerDestination, when positive, caps what one claim takes of a destination: PerDestination
	// minus what the caller already holds queued for it (Queued), so one claim of many rows
	// never piles more onto one destination than the caller can send within the lease.
	PerDestination int
	Queued         map[string]int
}

// ClaimDue leases up to Limit due pending deliveries of enabled destinations, oldest due first,
// skipping rows other processes hold and the destinations in Skip, and at most the room
// PerDestination leaves of each destination. It walks the partial index of its budget in the
// dispatch queue (delivery_queue_due_first / delivery_queue_due_retry, migration 082), reads Limit
// rows and takes the ones within each destination's room; the rest stay due for the next claim.
// The lease moves only the narrow queue row; the delivery and its payload are read, not written,
// each payload and destination once per claim (claimed rows of one event share the payload's
// bytes: nothing may write to them). The rows come back oldest due first.
func (s *Store) ClaimDue(ctx context.Context, p ClaimDueParams) ([]ClaimedDelivery, error) {
	cond := `d.attempts = 0`
	if p.Retries {
		cond = `d.attempts > 0`
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
	rows, err := s.async.Query(ctx, `
WITH c AS (
    SELECT d.delivery_id AS id, d.destination_id, d.next_attempt_at AS due FROM delivery_queue d
    WHERE `+cond+` AND d.next_attempt_at <= now()
      AND d.destination_id <> ALL($1::text[])
      AND EXISTS (SELECT 1 FROM destinations e WHERE e.id = d.destination_id AND e.enabled)
    ORDER BY d.next_attempt_at
    LIMIT $2
    FOR UPDATE OF d SKIP LOCKED
), r AS (
    SELECT c.id, c.due FROM (
        SELECT c.*, row_number() OVER (PARTITION BY c.destination_id ORDER BY c.due) AS n FROM c) c
    LEFT JOIN unnest($4::text[], $5::int[]) AS q(dest, n) ON q.dest = c.destination_id
    WHERE c.n <= $6 - coalesce(q.n, 0)
), u AS (
    UPDATE delivery_queue q SET next_attempt_at = now() + $3::interval
    FROM r WHERE q.delivery_id = r.id
    RETURNING q.delivery_id, r.due
), d AS (
    SELECT u.due, d.id, d.org_id, d.event_id, d.event_kind, d.attempts, d.max_attempts, d.emitted_at,
           d.next_trigger, d.destination_id,
           row_number() OVER (PARTITION BY d.event_id) AS en,
           row_number() OVER (PARTITION BY d.destination_id) AS dn
    FROM u JOIN deliveries d ON d.id = u.delivery_id
)
-- An event's payload and a destination's columns come once per claim, on the first row that
-- needs them (en, dn = 1): the condition on the outer row is a one-time filter of each lateral
-- read (OFFSET 0 keeps it one), so the other rows read nothing. With 10 destinations a claim
-- held each payload ten times.
SELECT d.due, d.id, d.org_id, d.event_id, d.event_kind, pl.payload, d.attempts, d.max_attempts, d.emitted_at,
       d.next_trigger, d.destination_id, t.*
FROM d
LEFT JOIN LATERAL (SELECT p.payload FROM delivery_payloads p WHERE d.en = 1 AND p.event_id = d.event_id OFFSET 0) pl ON true
LEFT JOIN LATERAL (SELECT `+targetColumns+` FROM destinations dst WHERE d.dn = 1 AND dst.id = d.destination_id OFFSET 0) t ON true`,
		skip, p.Limit, p.Lease, queuedIDs, queuedN, perDest)
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	defer rows.Close()
	type due struct {
		at     time.Time
		c      ClaimedDelivery
		destID string
	}
	var got []due
	payloads, targets := map[string][]byte{}, map[string]DeliveryTarget{}
	for rows.Next() {
		var g due
		var t targetRow
		dest := []any{&g.at, &g.c.ID, &g.c.OrgID, &g.c.EventID, &g.c.EventKind, &g.c.Payload, &g.c.Attempts,
			&g.c.MaxAttempts, &g.c.EmittedAt, &g.c.Trigger, &g.destID}
		if err := rows.Scan(t.scan(dest)...); err != nil {
			return nil, err
		}
		if g.c.Payload != nil {
			payloads[g.c.EventID] = g.c.Payload
		}
		if t.id != nil {
			targets[g.destID] = t.target()
		}
		got = append(got, g)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(got, func(a, b due) int { return a.at.Compare(b.at) })
	out := make([]ClaimedDelivery, 0, len(got))
	for _, g := range got {
		pl, okP := payloads[g.c.EventID]
		t, okT := targets[g.destID]
		if !okP || !okT {
			continue // destination or payload removed meanwhile: nothing to send (as an inner join would)
		}
		g.c.Payload, g.c.Target = pl, t
		out = append(out, g.c)
	}
	return out, nil
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

// ReleaseClaims hands back claimed deliveries this process will not attempt (queued locally at
// shutdown): they come due at once instead of after their lease. Only rows still pending and
// still leased (next_attempt_at in the future) are touched.
func (s *Store) ReleaseClaims(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.async.Exec(ctx, `UPDATE delivery_queue SET next_attempt_at = now()
		WHERE delivery_id = ANY($1::text[]) AND next_attempt_at > now()`, ids)
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
	// min() over a join read every pending row (15 ms a call with 2,000 deliveries in flight).
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

// AttemptRecord is one attempt as delivery_attempts keeps it, plus the state its delivery moves to.
type AttemptRecord struct {
	DeliveryID      string // "" for a test send, which belongs to no delivery
	WebhookID       string // a test send's webhook-id (its delivery_id in the attempt log)
	DestinationID   string
	OrgID           string
	EventID         string
	EventKind       string
	Attempt         int
	Trigger         string
	At              time.Time
	URL             string
	StatusCode      int
	Error           string
	DurationMS      int
	ResponseExcerpt string
	NextAttemptAt   *time.Time // when the delivery is retried; nil when it is finished

	// The delivery's new state (ignored for tests).
	Status string
	// Succeeded reports a 2xx; the destination's consecutive_failures resets on it.
	Succeeded bool
}

// RecordAttempts writes a batch of attempts and their deliveries' new states in one transaction,
// and keeps each destination's consecutive_failures (reset by a success, else counted up; test
// sends do not count). Attempts of destinations deleted meanwhile are dropped. A delivery is
// only moved forward: a late record of an attempt someone already superseded does not overwrite
// its state. (Over 80 lines: three statements of one batch, each read best whole.)
func (s *Store) RecordAttempts(ctx context.Context, recs []AttemptRecord) error {
	if len(recs) == 0 {
		return nil
	}
	n := len(recs)
	var (
		delID, destID, orgID, evID, evKind, trig, url, errText, excerpt, status = make([]*string, n),
			make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n),
			make([]string, n), make([]*string, n), make([]*string, n), make([]string, n)
		attempt, code, dur = make([]int32, n), make([]int32, n), make([]int32, n)
		at, next           = make([]time.Time, n), make([]*time.Time, n)
		webhookID          = make([]*string, n)
	)
	type health struct {
		reset bool
		add   int32
	}
	perDest := map[string]*health{}
	var order []string
	for i, r := range recs {
		if r.DeliveryID != "" {
			delID[i] = &recs[i].DeliveryID
		}
		if r.WebhookID != "" {
			webhookID[i] = &recs[i].WebhookID
		}
		destID[i], orgID[i], evID[i], evKind[i], trig[i], url[i] = r.DestinationID, r.OrgID, r.EventID, r.EventKind, r.Trigger, r.URL
		if r.Error != "" {
			errText[i] = &recs[i].Error
		}
		if r.ResponseExcerpt != "" {
			excerpt[i] = &recs[i].ResponseExcerpt
		}
		status[i] = r.Status
		attempt[i], code[i], dur[i] = int32(r.Attempt), int32(r.StatusCode), int32(r.DurationMS)
		at[i], next[i] = r.At, r.NextAttemptAt
		if r.Trigger == TriggerTest {
			continue
		}
		h := perDest[r.DestinationID]
		if h == nil {
			h = &health{}
			perDest[r.DestinationID] = h
			order = append(order, r.DestinationID)
		}
		if r.Succeeded {
			h.reset, h.add = true, 0
		} else {
			h.add++
		}
	}
	hIDs, hReset, hAdd := make([]string, 0, len(order)), make([]bool, 0, len(order)), make([]int32, 0, len(order))
	for _, id := range order {
		hIDs, hReset, hAdd = append(hIDs, id), append(hReset, perDest[id].reset), append(hAdd, perDest[id].add)
	}

	tx, err := s.async.Begin(ctx)
	if err != nil {
		return fmt.Errorf("record attempts: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO delivery_attempts (delivery_id, destination_id, org_id, event_id, event_kind, attempt,
		trigger, at, url, status_code, error, duration_ms, response_excerpt, next_attempt_at, webhook_id)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[],
			$8::timestamptz[], $9::text[], $10::int[], $11::text[], $12::int[], $13::text[], $14::timestamptz[], $15::text[])
			AS a(delivery_id, destination_id, org_id, event_id, event_kind, attempt, trigger, at, url, status_code,
			     error, duration_ms, response_excerpt, next_attempt_at, webhook_id)
		-- An attempt whose destination (and so its delivery) was deleted while it was in flight has
		-- nothing left to belong to; recording it would fail the whole batch on the foreign key.
		WHERE EXISTS (SELECT 1 FROM destinations d WHERE d.id = a.destination_id)
		  AND (a.delivery_id IS NULL OR EXISTS (SELECT 1 FROM deliveries x WHERE x.id = a.delivery_id))`,
		delID, destID, orgID, evID, evKind, attempt, trig, at, url, code, errText, dur, excerpt, next, webhookID)
	b.Queue(`UPDATE deliveries d SET status = u.status, attempts = u.attempt, next_attempt_at = u.next,
			next_trigger = 'scheduled', updated_at = now(),
			delivered_at = CASE WHEN u.status = 'succeeded' THEN u.at ELSE d.delivered_at END,
			-- NULL unless given up, so a success leaves it as it was and the row is rewritten HOT
			-- (migration 083).
			failed_at = CASE WHEN u.status = 'failed' THEN u.at END,
			last_status_code = u.code, last_error = u.err
		FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::int[], $7::text[])
			AS u(id, status, attempt, next, at, code, err)
		WHERE u.id IS NOT NULL AND d.id = u.id AND d.attempts < u.attempt`,
		delID, status, attempt, next, at, code, errText)
	b.Queue(`WITH u AS (
			SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[]) AS u(id, status, attempt, next)
			WHERE u.id IS NOT NULL
		), del AS (
			DELETE FROM delivery_queue q USING u
			WHERE q.delivery_id = u.id AND u.status <> 'pending' AND q.attempts < u.attempt
		)
		UPDATE delivery_queue q SET attempts = u.attempt, next_attempt_at = coalesce(u.next, now())
		FROM u WHERE q.delivery_id = u.id AND u.status = 'pending' AND q.attempts < u.attempt`,
		delID, status, attempt, next)
	if len(hIDs) > 0 {
		b.Queue(`UPDATE destinations d SET consecutive_failures =
				CASE WHEN h.reset THEN h.add ELSE d.consecutive_failures + h.add END
			FROM unnest($1::text[], $2::bool[], $3::int[]) AS h(id, reset, add)
			-- A healthy destination's count stays 0: no new row version for every batch it gets.
			WHERE d.id = h.id AND NOT (h.reset AND h.add = 0 AND d.consecutive_failures = 0)`,
			hIDs, hReset, hAdd)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("record attempts: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("record attempts: commit: %w", err)
	}
	return nil
}

// DeliveryQueueStats is what the hub's gauges show.
type DeliveryQueueStats struct {
	Pending   int            // pending deliveries (due, leased or waiting for a retry)
	Due       int            // pending and due now
	OldestDue time.Duration  // how long the longest-waiting due delivery is past its due time
	FailingBy map[string]int // destination kind -> destinations with consecutive_failures > 0
}

// QueueStats counts the queue and the failing destinations (consecutive_failures > 0) by kind.
func (s *Store) QueueStats(ctx context.Context) (DeliveryQueueStats, error) {
	st := DeliveryQueueStats{FailingBy: map[string]int{}}
	var oldest float64
	// The dispatch queue holds the pending deliveries only: one scan of it.
	err := s.pool.QueryRow(ctx, `SELECT count(*)::int, (count(*) FILTER (WHERE due <= now()))::int,
		coalesce(extract(epoch FROM now() - min(due) FILTER (WHERE due <= now())), 0)::float8
		FROM (SELECT next_attempt_at AS due, destination_id FROM delivery_queue) q
		WHERE EXISTS (SELECT 1 FROM destinations dst WHERE dst.id = q.destination_id)`).Scan(&st.Pending, &st.Due, &oldest)
	if err != nil {
		return st, fmt.Errorf("queue stats: %w", err)
	}
	st.OldestDue = time.Duration(oldest * float64(time.Second))
	rows, err := s.pool.Query(ctx, `SELECT kind, count(*)::int FROM destinations
		WHERE enabled AND consecutive_failures > 0 GROUP BY kind`)
	if err != nil {
		return st, fmt.Errorf("failing destinations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var n int
		if err := rows.Scan(&kind, &n); err != nil {
			return st, err
		}
		st.FailingBy[kind] = n
	}
	return st, rows.Err()
}

// PruneDeliveryDedupe deletes dedupe keys that expired before cutoff, a bounded batch at a time.
func (s *Store) PruneDeliveryDedupe(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM delivery_dedupe WHERE ctid IN (
		SELECT ctid FROM delivery_dedupe WHERE expires_at < $1 LIMIT 10000)`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("prune delivery dedupe: %w", err)
	}
	return tag.RowsAffected(), nil
}
