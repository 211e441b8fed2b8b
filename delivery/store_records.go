package delivery

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// The hub's records: attempts written in batches with their deliveries' new states, the figures
// behind /metrics and the duplicate rule's pruning. The hub's design is in
// docs/decisions/delivery.md.

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
	// LastOfChunk is the id of the dispatch queue chunk (ClaimedDelivery.QueueID) the delivery
	// was claimed through when this record finishes the last of the chunk's deliveries the
	// caller claimed: the chunk goes with the record. "" otherwise.
	LastOfChunk string
	// ThrottledMS is set when the destination's rate limit held the attempt back: from when it
	// came due to its start.
	ThrottledMS *int

	// The delivery's new state (ignored for tests).
	Status string
	// Succeeded reports a 2xx; the destination's consecutive_failures resets on it.
	Succeeded bool
}

// RecordAttempts writes a batch of attempts and their deliveries' new states in one transaction,
// and keeps each destination's consecutive_failures (reset by a success, else counted up; test
// sends do not count). Attempts of destinations deleted meanwhile are dropped. A delivery is
// only moved forward: a late record of an attempt someone already superseded does not overwrite
// its state.
func (s *Store) RecordAttempts(ctx context.Context, recs []AttemptRecord) error {
	if len(recs) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	newRecordArrays(recs).queue(b)
	queueFailureCounts(b, recs)
	tx, err := s.async.Begin(ctx)
	if err != nil {
		return fmt.Errorf("record attempts: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("record attempts: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("record attempts: commit: %w", err)
	}
	return nil
}

// recordArrays are a batch of attempt records as the arguments of the statements that write
// them: one element per record in each array (nil pointers are NULLs), and the chunks finished.
type recordArrays struct {
	delID, errText, excerpt, webhookID             []*string
	destID, orgID, evID, evKind, trig, url, status []string
	attempt, code, dur                             []int32
	throttled                                      []*int32
	at                                             []time.Time
	next                                           []*time.Time
	chunksDone                                     []string
}

func newRecordArrays(recs []AttemptRecord) recordArrays {
	n := len(recs)
	a := recordArrays{
		delID: make([]*string, n), errText: make([]*string, n), excerpt: make([]*string, n), webhookID: make([]*string, n),
		destID: make([]string, n), orgID: make([]string, n), evID: make([]string, n), evKind: make([]string, n),
		trig: make([]string, n), url: make([]string, n), status: make([]string, n),
		attempt: make([]int32, n), code: make([]int32, n), dur: make([]int32, n), throttled: make([]*int32, n),
		at: make([]time.Time, n), next: make([]*time.Time, n),
	}
	for i, r := range recs {
		if r.DeliveryID != "" {
			a.delID[i] = &recs[i].DeliveryID
		}
		if r.WebhookID != "" {
			a.webhookID[i] = &recs[i].WebhookID
		}
		if r.Error != "" {
			a.errText[i] = &recs[i].Error
		}
		if r.ResponseExcerpt != "" {
			a.excerpt[i] = &recs[i].ResponseExcerpt
		}
		a.destID[i], a.orgID[i], a.evID[i], a.evKind[i], a.trig[i], a.url[i] = r.DestinationID, r.OrgID, r.EventID, r.EventKind, r.Trigger, r.URL
		a.status[i] = r.Status
		a.attempt[i], a.code[i], a.dur[i] = int32(r.Attempt), int32(r.StatusCode), int32(r.DurationMS)
		a.at[i], a.next[i] = r.At, r.NextAttemptAt
		if r.ThrottledMS != nil {
			ms := int32(min(*r.ThrottledMS, math.MaxInt32))
			a.throttled[i] = &ms
		}
		if r.LastOfChunk != "" {
			a.chunksDone = append(a.chunksDone, r.LastOfChunk)
		}
	}
	return a
}

// queue adds to b the statements that write the attempts, move their deliveries forward and keep
// the dispatch queue, in that order.
func (a recordArrays) queue(b *pgx.Batch) {
	b.Queue(`INSERT INTO delivery_attempts (delivery_id, destination_id, org_id, event_id, event_kind, attempt,
		trigger, at, url, status_code, error, duration_ms, response_excerpt, next_attempt_at, webhook_id, throttled_ms)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[],
			$8::timestamptz[], $9::text[], $10::int[], $11::text[], $12::int[], $13::text[], $14::timestamptz[], $15::text[],
			$16::int[])
			AS a(delivery_id, destination_id, org_id, event_id, event_kind, attempt, trigger, at, url, status_code,
			     error, duration_ms, response_excerpt, next_attempt_at, webhook_id, throttled_ms)
		-- An attempt whose destination (and so its delivery) was purged while it was in flight has
		-- nothing left to belong to. The destinations are looked up once each, not per attempt;
		-- the delivery needs no look-up of its own: it goes only with its destination's purge, or
		-- by retention, which never takes a pending delivery, and this one was claimed pending.
		WHERE a.destination_id IN (SELECT d.id FROM destinations d WHERE d.id = ANY($2::text[]))`,
		a.delID, a.destID, a.orgID, a.evID, a.evKind, a.attempt, a.trig, a.at, a.url, a.code, a.errText, a.dur, a.excerpt, a.next, a.webhookID,
		a.throttled)
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
		a.delID, a.status, a.attempt, a.next, a.at, a.code, a.errText)
	// The dispatch queue: a finished delivery's own row goes; a retry moves its own row, or gets
	// one when it was queued in a chunk (its first attempt), as long as the delivery is still
	// pending at that attempt (the UPDATE above ran first: a late record of an attempt someone
	// already superseded queues nothing); a chunk whose last claimed delivery this is goes.
	b.Queue(`WITH u AS (
			SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[], $5::text[])
				AS u(id, status, attempt, next, destination_id)
			WHERE u.id IS NOT NULL
		), del AS (
			DELETE FROM delivery_queue q USING u
			WHERE q.id = u.id AND u.status <> 'pending' AND q.attempts < u.attempt
		), chunks AS (
			DELETE FROM delivery_queue q WHERE q.id = ANY($6::text[])
		)
		INSERT INTO delivery_queue AS q (id, destination_id, attempts, next_attempt_at, delivery_ids)
		SELECT u.id, u.destination_id, u.attempt, coalesce(u.next, now()), ARRAY[u.id] FROM u
		WHERE u.status = 'pending'
		  AND EXISTS (SELECT 1 FROM deliveries d WHERE d.id = u.id AND d.status = 'pending' AND d.attempts = u.attempt)
		ON CONFLICT (id) DO UPDATE SET attempts = EXCLUDED.attempts, next_attempt_at = EXCLUDED.next_attempt_at
			WHERE q.attempts < EXCLUDED.attempts`,
		a.delID, a.status, a.attempt, a.next, a.destID, a.chunksDone)
}

// queueFailureCounts adds to b the statement that keeps the consecutive_failures of the
// destinations of recs: a success resets the count (to the failures recorded after it in the
// batch), a failure counts up; test sends do not count. Nothing when recs are all tests.
func queueFailureCounts(b *pgx.Batch, recs []AttemptRecord) {
	type health struct {
		reset bool
		add   int32
	}
	perDest := map[string]*health{}
	var order []string
	for _, r := range recs {
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
	if len(order) == 0 {
		return
	}
	hIDs, hReset, hAdd := make([]string, 0, len(order)), make([]bool, 0, len(order)), make([]int32, 0, len(order))
	for _, id := range order {
		hIDs, hReset, hAdd = append(hIDs, id), append(hReset, perDest[id].reset), append(hAdd, perDest[id].add)
	}
	b.Queue(`UPDATE destinations d SET consecutive_failures =
			CASE WHEN h.reset THEN h.add ELSE d.consecutive_failures + h.add END
		FROM unnest($1::text[], $2::bool[], $3::int[]) AS h(id, reset, add)
		-- A healthy destination's count stays 0: no new row version for every batch it gets.
		WHERE d.id = h.id AND NOT (h.reset AND h.add = 0 AND d.consecutive_failures = 0)`,
		hIDs, hReset, hAdd)
}

// DeliveryQueueStats is what the hub's gauges show.
type DeliveryQueueStats struct {
	// Pending counts pending deliveries (due, leased or waiting for a retry). A chunk in flight
	// counts all it lists until its last delivery is recorded, so while chunks are being sent the
	// figure is high by at most their finished deliveries (at most what the hubs hold).
	Pending   int
	Due       int            // pending and due now
	OldestDue time.Duration  // how long the longest-waiting due delivery is past its due time
	FailingBy map[string]int // destination kind -> destinations with consecutive_failures > 0
}

// QueueStats counts the queue and the failing destinations (consecutive_failures > 0) by kind.
func (s *Store) QueueStats(ctx context.Context) (DeliveryQueueStats, error) {
	st := DeliveryQueueStats{FailingBy: map[string]int{}}
	var oldest float64
	// The dispatch queue lists the pending deliveries (and, in chunks in flight, some finished
	// ones): one scan of it.
	err := s.pool.QueryRow(ctx, `SELECT coalesce(sum(n), 0)::int, coalesce(sum(n) FILTER (WHERE due <= now()), 0)::int,
		coalesce(extract(epoch FROM now() - min(due) FILTER (WHERE due <= now())), 0)::float8
		FROM (SELECT next_attempt_at AS due, destination_id, cardinality(delivery_ids) AS n FROM delivery_queue) q
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

// PruneDeliveryDedupe deletes the duplicate rule's rows whose every window ended before cutoff, a
// bounded batch at a time, and the keys of the rule's older form likewise (migration 085). Once
// none of those is left (seen by the call after the one that deleted the last), the fan-out stops
// consulting them.
func (s *Store) PruneDeliveryDedupe(ctx context.Context, cutoff time.Time) (int64, error) {
	var n int64
	var legacyEmpty bool
	err := s.pool.QueryRow(ctx, `WITH a AS (
			DELETE FROM delivery_dedupe WHERE ctid IN (
				SELECT ctid FROM delivery_dedupe WHERE last_expires_at < $1 LIMIT 10000)
			RETURNING 1
		), b AS (
			DELETE FROM delivery_dedupe_legacy WHERE ctid IN (
				SELECT ctid FROM delivery_dedupe_legacy WHERE expires_at < $1 LIMIT 10000)
			RETURNING 1
		)
		SELECT (SELECT count(*) FROM a) + (SELECT count(*) FROM b), NOT EXISTS (SELECT 1 FROM delivery_dedupe_legacy)`,
		cutoff).Scan(&n, &legacyEmpty)
	if err != nil {
		return 0, fmt.Errorf("prune delivery dedupe: %w", err)
	}
	if legacyEmpty {
		s.legacyDedupe.Store(false)
	}
	return n, nil
}
