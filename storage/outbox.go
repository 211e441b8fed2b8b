package storage

import (
	"context"
	stdsql "database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// EventsTopic is the one outbox topic: every domain event of every organization goes through it,
// in commit order; the delivery hub's fan-out consumes it.
const EventsTopic = "events"

// Outbox message metadata keys.
const (
	MetaOrgID     = "org_id"
	MetaEventKind = "event"
	MetaEmittedAt = "emitted_at" // RFC 3339 with nanoseconds, for commit-to-delivery lag
)

// outboxTable is the outbox table (migration 015).
const outboxTable = "outreachd_outbox"

// OutboxSchema is the watermill-sql schema of the outbox: the queue schema (migration 015 says
// why), selecting with SKIP LOCKED under READ COMMITTED so concurrent consumers take disjoint
// batches and a row is taken as soon as its transaction commits. Publishers and the subscriber
// must use the same value.
func OutboxSchema() wsql.SchemaAdapter {
	return outboxSchema{wsql.PostgreSQLQueueSchema{
		SubscribeBatchSize:        500,
		GenerateMessagesTableName: func(string) string { return outboxTable },
	}}
}

// OutboxOffsets is the offsets adapter matching OutboxSchema: acknowledging marks the batch's
// rows acked (they are pruned an hour later, PruneOutbox).
func OutboxOffsets() wsql.OffsetsAdapter {
	return wsql.PostgreSQLQueueOffsetsAdapter{GenerateMessagesTableName: func(string) string { return outboxTable }}
}

type outboxSchema struct{ wsql.PostgreSQLQueueSchema }

// SelectQuery is the queue schema's select with SKIP LOCKED: rows another consumer holds are left
// to it instead of waited for (and, under REPEATABLE READ, failed on).
func (s outboxSchema) SelectQuery(p wsql.SelectQueryParams) (wsql.Query, error) {
	q, err := s.PostgreSQLQueueSchema.SelectQuery(p)
	if err != nil {
		return q, err
	}
	if !strings.HasSuffix(strings.TrimSpace(q.Query), "FOR UPDATE") {
		return q, fmt.Errorf("outbox: unexpected select query %q", q.Query)
	}
	q.Query = strings.TrimSpace(q.Query) + " SKIP LOCKED"
	return q, nil
}

// SubscribeIsolationLevel is READ COMMITTED: with SKIP LOCKED a batch needs no snapshot beyond
// its select, and a row acknowledged by another consumer after it started is simply not seen.
func (outboxSchema) SubscribeIsolationLevel() stdsql.IsolationLevel { return stdsql.LevelReadCommitted }

// OutboxRowOf is a row the outbox subscriber read, as the fan-out uses it.
func OutboxRowOf(r wsql.Row) OutboxRow {
	m := r.Msg
	return OutboxRow{UUID: m.UUID, Payload: m.Payload, EmittedAt: m.Metadata.Get(MetaEmittedAt),
		OrgID: m.Metadata.Get(MetaOrgID), Kind: m.Metadata.Get(MetaEventKind)}
}

// publishBatch bounds one INSERT's parameter count (4 per message, PostgreSQL allows 65535).
const publishBatch = 1000

func publishEvents(ctx context.Context, tx pgx.Tx, events []outreach.Event) error {
	if len(events) == 0 {
		return nil
	}
	pub, err := wsql.NewPublisher(wsql.TxFromPgx(tx), wsql.PublisherConfig{SchemaAdapter: OutboxSchema()}, watermill.NopLogger{})
	if err != nil {
		return fmt.Errorf("outbox publisher: %w", err)
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	msgs := make([]*message.Message, 0, len(events))
	for _, ev := range events {
		if err := ev.Validate(); err != nil {
			return fmt.Errorf("outbox: event %s: %w", ev.Kind, err)
		}
		body, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("outbox: encode %s: %w", ev.Kind, err)
		}
		m := message.NewMessageWithContext(ctx, ev.ID, body)
		m.Metadata.Set(MetaOrgID, ev.OrgID)
		m.Metadata.Set(MetaEventKind, string(ev.Kind))
		m.Metadata.Set(MetaEmittedAt, now)
		msgs = append(msgs, m)
	}
	for start := 0; start < len(msgs); start += publishBatch {
		end := min(start+publishBatch, len(msgs))
		if err := pub.Publish(EventsTopic, msgs[start:end]...); err != nil {
			return fmt.Errorf("outbox: publish: %w", err)
		}
	}
	return nil
}

// OutboxEvents reads the events of one organization from the outbox in the order they were
// written, delivered or not (acknowledged rows are kept for an hour); tests and operators use it
// to see what a change emitted.
func (s *Store) OutboxEvents(ctx context.Context, orgID string) ([]outreach.Event, error) {
	rows, err := s.pool.Query(ctx, `SELECT uuid, payload FROM `+outboxTable+`
		WHERE metadata->>'org_id' = $1 ORDER BY "offset"`, orgID)
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

// PruneOutbox deletes acknowledged outbox rows written before cutoff, looking at the oldest
// 10,000 rows per call (one primary-key range, so the cost is bounded whatever the table holds);
// it returns how many it deleted, and a caller that got 10,000 may call again.
func (s *Store) PruneOutbox(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM `+outboxTable+` WHERE "offset" IN (
		SELECT "offset" FROM `+outboxTable+` ORDER BY "offset" LIMIT 10000) AND acked AND created_at < $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("prune outbox: %w", err)
	}
	return tag.RowsAffected(), nil
}
