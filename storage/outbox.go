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

// EventsTopic is the one outbox topic: every domain event of every organization goes through it,
// in commit order; the delivery hub's fan-out consumes it.
const EventsTopic = "events"

// Outbox message metadata keys.
const (
	MetaOrgID     = "org_id"
	MetaEventKind = "event"
	MetaEmittedAt = "emitted_at" // RFC 3339 with nanoseconds, for commit-to-delivery lag
)

// OutboxSchema is the watermill-sql schema of the outbox. Subscribers must use the same value.
func OutboxSchema() wsql.SchemaAdapter {
	return wsql.DefaultPostgreSQLSchema{SubscribeBatchSize: 500}
}

// OutboxOffsets is the offsets adapter matching OutboxSchema.
func OutboxOffsets() wsql.OffsetsAdapter { return wsql.DefaultPostgreSQLOffsetsAdapter{} }

// OutboxRowOf is a row the outbox subscriber read, as the fan-out uses it.
func OutboxRowOf(r wsql.Row) OutboxRow { return outboxRowOf(r.Msg) }

func outboxRowOf(m *message.Message) OutboxRow {
	return OutboxRow{UUID: m.UUID, Payload: m.Payload, EmittedAt: m.Metadata.Get(MetaEmittedAt),
		OrgID: m.Metadata.Get(MetaOrgID), Kind: m.Metadata.Get(MetaEventKind)}
}

// publishBatch bounds one INSERT's parameter count (4 per message, PostgreSQL allows 65535).
const publishBatch = 1000

// publishEvents writes events to the outbox in tx and returns them as the fan-out reads them.
func publishEvents(ctx context.Context, tx pgx.Tx, events []outreach.Event) ([]OutboxRow, error) {
	if len(events) == 0 {
		return nil, nil
	}
	pub, err := wsql.NewPublisher(wsql.TxFromPgx(tx), wsql.PublisherConfig{SchemaAdapter: OutboxSchema()}, watermill.NopLogger{})
	if err != nil {
		return nil, fmt.Errorf("outbox publisher: %w", err)
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	msgs := make([]*message.Message, 0, len(events))
	rows := make([]OutboxRow, 0, len(events))
	for _, ev := range events {
		if err := ev.Validate(); err != nil {
			return nil, fmt.Errorf("outbox: event %s: %w", ev.Kind, err)
		}
		body, err := json.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("outbox: encode %s: %w", ev.Kind, err)
		}
		m := message.NewMessageWithContext(ctx, ev.ID, body)
		m.Metadata.Set(MetaOrgID, ev.OrgID)
		m.Metadata.Set(MetaEventKind, string(ev.Kind))
		m.Metadata.Set(MetaEmittedAt, now)
		msgs = append(msgs, m)
		rows = append(rows, outboxRowOf(m))
	}
	for start := 0; start < len(msgs); start += publishBatch {
		end := min(start+publishBatch, len(msgs))
		if err := pub.Publish(EventsTopic, msgs[start:end]...); err != nil {
			return nil, fmt.Errorf("outbox: publish: %w", err)
		}
	}
	return rows, nil
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
	return nil
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
