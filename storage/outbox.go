package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// The outbox is the record of every domain event committed, written through watermill-sql's
// publisher inside the business transaction (Store.InTx), in commit order. Deliveries do not
// wait for anyone to read it: the same transaction writes them (Deliveries). It is what an operator
// or a test reads to see what a change emitted, what retention ages out (RETENTION_OUTBOX), and
// the stream a Watermill subscriber would forward to a broker (docs/scaling.md).

// EventsTopic is the one outbox topic: every domain event of every organization.
const EventsTopic = "events"

// Outbox message metadata keys.
const (
	MetaOrgID     = "org_id"
	MetaEventKind = "event"
	MetaEmittedAt = "emitted_at" // RFC 3339 with nanoseconds, for commit-to-delivery lag
)

// OutboxSchema is the watermill-sql schema of the outbox. Any subscriber must use the same value.
func OutboxSchema() wsql.SchemaAdapter {
	return wsql.DefaultPostgreSQLSchema{SubscribeBatchSize: 500}
}

// OutboxOffsets is the offsets adapter matching OutboxSchema.
func OutboxOffsets() wsql.OffsetsAdapter { return wsql.DefaultPostgreSQLOffsetsAdapter{} }

// publishBatch bounds one INSERT's parameter count (4 per message, PostgreSQL allows 65535).
const publishBatch = 1000

// publishEvents writes events to the outbox in tx and returns their encoded payloads (what
// receivers get) and the time they were stamped as emitted.
func publishEvents(ctx context.Context, tx pgx.Tx, events []outreach.Event) (bodies [][]byte, emitted time.Time, err error) {
	if len(events) == 0 {
		return nil, time.Time{}, nil
	}
	pub, err := wsql.NewPublisher(wsql.TxFromPgx(tx), wsql.PublisherConfig{SchemaAdapter: OutboxSchema()}, watermill.NopLogger{})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("outbox publisher: %w", err)
	}
	emitted = time.Now().UTC()
	now := emitted.Format(time.RFC3339Nano)
	msgs := make([]*message.Message, 0, len(events))
	bodies = make([][]byte, 0, len(events))
	for _, ev := range events {
		if err := ev.Validate(); err != nil {
			return nil, time.Time{}, fmt.Errorf("outbox: event %s: %w", ev.Kind, err)
		}
		body, err := json.Marshal(ev)
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("outbox: encode %s: %w", ev.Kind, err)
		}
		m := message.NewMessageWithContext(ctx, ev.ID, body)
		m.Metadata.Set(MetaOrgID, ev.OrgID)
		m.Metadata.Set(MetaEventKind, string(ev.Kind))
		m.Metadata.Set(MetaEmittedAt, now)
		msgs = append(msgs, m)
		bodies = append(bodies, body)
	}
	for start := 0; start < len(msgs); start += publishBatch {
		end := min(start+publishBatch, len(msgs))
		if err := pub.Publish(EventsTopic, msgs[start:end]...); err != nil {
			return nil, time.Time{}, fmt.Errorf("outbox: publish: %w", err)
		}
	}
	return bodies, emitted, nil
}

// initOutbox creates the outbox table once at start-up (watermill refuses to do it inside a
// business transaction).
func (s *Store) initOutbox(ctx context.Context) error {
	sub, err := wsql.NewSubscriber(wsql.BeginnerFromPgx(s.pool), wsql.SubscriberConfig{
		SchemaAdapter:  OutboxSchema(),
		OffsetsAdapter: OutboxOffsets(),
	}, watermill.NopLogger{})
	if err != nil {
		return fmt.Errorf("outbox subscriber: %w", err)
	}
	defer sub.Close()
	if err := sub.SubscribeInitialize(EventsTopic); err != nil {
		return fmt.Errorf("initialize outbox: %w", err)
	}
	return s.catchUpLegacyFanout(ctx)
}

// legacyFanoutGroup is the consumer group with which versions before the in-transaction fan-out
// read the outbox to write deliveries.
const legacyFanoutGroup = "fanout"

// outboxOffsetsTable is watermill-sql's offsets table for EventsTopic (DefaultPostgreSQLOffsetsAdapter).
const outboxOffsetsTable = `"watermill_offsets_events"`

// catchUpLegacyFanout writes the deliveries of the events an earlier version committed and its
// outbox consumer had not read yet when it stopped, through the same Deliveries as every business
// transaction (so with the same rules and ids), then forgets that consumer's position: after an
// upgrade, no committed event is left without its deliveries. Stop every process of the earlier
// version first (docs/operations.md). A database that never ran one has no such position, and
// this reads nothing. It reads and clears the outbox's own bookkeeping, which is why it is here
// and not in the hub.
func (s *Store) catchUpLegacyFanout(ctx context.Context) error {
	return s.InTx(ctx, func(tx *Tx) error {
		rows, err := tx.Query(ctx, `SELECT e.uuid, e.payload, coalesce(e.metadata->>$2, '')
			FROM watermill_events e JOIN `+outboxOffsetsTable+` o ON o.consumer_group = $1
			WHERE (e.transaction_id, e."offset") > (o.last_processed_transaction_id, o.offset_acked)
			ORDER BY e.transaction_id, e."offset"
			-- Two processes starting at once: the second waits here until the first has committed
			-- (and deleted the position), then reads nothing.
			FOR UPDATE OF o`, legacyFanoutGroup, MetaEmittedAt)
		if err != nil {
			return fmt.Errorf("unread outbox events: %w", err)
		}
		var events []outreach.Event
		var bodies [][]byte
		var at []string
		for rows.Next() {
			var ev outreach.Event
			var body []byte
			var emitted string
			if err := rows.Scan(&ev.ID, &body, &emitted); err != nil {
				rows.Close()
				return err
			}
			if json.Unmarshal(body, &ev) != nil || !ev.Kind.Valid() {
				continue // never deliverable; the earlier version skipped such rows too
			}
			events, bodies, at = append(events, ev), append(bodies, body), append(at, emitted)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i := range events {
			emitted, err := time.Parse(time.RFC3339Nano, at[i])
			if err != nil {
				emitted = time.Now()
			}
			// Not announced: the dispatchers find these deliveries by their poll once they run.
			if _, err := s.fanOut(ctx, tx.Tx, events[i:i+1], bodies[i:i+1], emitted); err != nil {
				return fmt.Errorf("fan out event %s of an earlier version: %w", events[i].ID, err)
			}
		}
		_, err = tx.Exec(ctx, `DELETE FROM `+outboxOffsetsTable+` WHERE consumer_group = $1`, legacyFanoutGroup)
		return err
	})
}

// OutboxEvents reads the events of one organization from the outbox in commit order; tests and
// operators use it to see what a change emitted before anything delivers it.
func (s *Store) OutboxEvents(ctx context.Context, orgID string) ([]outreach.Event, error) {
	rows, err := s.pool.Query(ctx, `SELECT uuid, payload FROM watermill_events
		WHERE metadata->>'org_id' = $1 ORDER BY transaction_id, "offset"`, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []outreach.Event
	for rows.Next() {
		var id string
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			return nil, err
		}
		var ev outreach.Event
		if err := json.Unmarshal(body, &ev); err != nil {
			return nil, fmt.Errorf("decode outbox row: %w", err)
		}
		ev.ID = id
		out = append(out, ev)
	}
	return out, rows.Err()
}

// RecentOutboxBodies returns the payloads of the organization's latest events, newest first: at
// most n, found among the outbox's last recentOutboxScan rows (the outbox has no index by
// organization, which every business transaction would pay for, so the look is bounded and an
// organization with little traffic on a busy installation may get fewer). It is what the
// application's filter preview counts matches in.
func (s *Store) RecentOutboxBodies(ctx context.Context, orgID string, n int) ([][]byte, error) {
	rows, err := s.pool.Query(ctx, `SELECT e.payload FROM (
			SELECT payload, metadata FROM watermill_events ORDER BY transaction_id DESC, "offset" DESC LIMIT $3
		) e WHERE e.metadata->>'org_id' = $1 LIMIT $2`, orgID, n, recentOutboxScan)
	if err != nil {
		return nil, fmt.Errorf("recent outbox events: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[[]byte])
}

// recentOutboxScan bounds how many of the outbox's latest rows RecentOutboxBodies reads.
const recentOutboxScan = 20000

// PruneOutbox removes outbox rows written before cutoff, at most limit in one short statement on
// the asynchronous pool (a removal lost in a database crash is done again), and reports how many
// went and whether the pass is done. The outbox is the record of every event committed; nothing
// reads it to deliver (deliveries are written in the event's own transaction), so age alone
// decides. It reads the limit oldest rows in key order, which is commit order: the first row
// younger than the cutoff ends the pass. The delivery hub's retention worker drives it beside its
// own tables' (RETENTION_OUTBOX); the table and its schema are the outbox's, so its SQL is here.
func (s *Store) PruneOutbox(ctx context.Context, cutoff time.Time, limit int) (deleted int64, done bool, err error) {
	err = s.async.QueryRow(ctx, `
WITH head AS (
    SELECT transaction_id, "offset", created_at FROM watermill_events
    ORDER BY transaction_id, "offset" LIMIT $1
), gone AS (
    DELETE FROM watermill_events e USING head h
    WHERE e.transaction_id = h.transaction_id AND e."offset" = h."offset" AND h.created_at::timestamptz < $2
    RETURNING 1
)
SELECT (SELECT count(*) FROM gone),
       (SELECT count(*) FROM head) < $1 OR EXISTS (SELECT 1 FROM head WHERE created_at::timestamptz >= $2)`,
		limit, cutoff).Scan(&deleted, &done)
	if err != nil {
		return 0, false, fmt.Errorf("prune outbox: %w", err)
	}
	return deleted, done, nil
}
