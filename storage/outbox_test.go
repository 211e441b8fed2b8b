package storage_test

import (
	"context"
	"testing"
	"time"

	"outreachd/internal/testenv"
)

// A database the old fan-out (watermill-sql's default schema, consumer group "fanout") had
// partly processed keeps every event it had not processed when migration 015 moves the outbox to
// the queue schema, in order, and loses none.
func TestOutboxQueueMigrationKeepsUnprocessedEvents(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Back to the schema before 015: the old tables, three events in two transactions, and an
	// offsets row saying the first transaction's event was processed.
	exec(`DROP TABLE outreachd_outbox`)
	exec(`DELETE FROM schema_migrations WHERE version = '015_outbox_queue'`)
	exec(`CREATE TABLE watermill_events ("offset" bigserial, uuid varchar(36) NOT NULL,
		created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP, payload json, metadata json,
		transaction_id xid8 NOT NULL, PRIMARY KEY (transaction_id, "offset"))`)
	exec(`CREATE TABLE watermill_offsets_events (consumer_group varchar(255) NOT NULL PRIMARY KEY,
		offset_acked bigint, last_processed_transaction_id xid8 NOT NULL)`)
	exec(`INSERT INTO watermill_events (uuid, payload, metadata, transaction_id)
		VALUES ('done', '{}', '{"org_id":"o"}', '10'), ('a', '{}', '{"org_id":"o"}', '11'), ('b', '{}', '{"org_id":"o"}', '11')`)
	exec(`INSERT INTO watermill_offsets_events VALUES ('fanout', 1, '10')`)

	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := st.Pool().Query(ctx, `SELECT uuid, acked FROM outreachd_outbox ORDER BY "offset"`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id string
		var acked bool
		if err := rows.Scan(&id, &acked); err != nil {
			t.Fatal(err)
		}
		if acked {
			t.Errorf("%s arrived acknowledged", id)
		}
		got = append(got, id)
	}
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("moved %v, want [a b]", got)
	}
	var old *string
	if err := st.Pool().QueryRow(ctx, `SELECT to_regclass('watermill_events')::text`).Scan(&old); err != nil || old != nil {
		t.Fatalf("old outbox table left behind (%v, %v)", old, err)
	}
}

// PruneOutbox deletes acknowledged rows older than the cutoff and nothing else.
func TestPruneOutbox(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	_, err := st.Pool().Exec(ctx, `INSERT INTO outreachd_outbox (uuid, acked, created_at) VALUES
		('old-acked', true, now() - interval '2 hours'), ('old-todo', false, now() - interval '2 hours'),
		('new-acked', true, now())`)
	if err != nil {
		t.Fatal(err)
	}
	n, err := st.PruneOutbox(ctx, time.Now().Add(-time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d (%v), want 1", n, err)
	}
	var left []string
	rows, _ := st.Pool().Query(ctx, `SELECT uuid FROM outreachd_outbox ORDER BY "offset"`)
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		left = append(left, s)
	}
	if len(left) != 2 || left[0] != "old-todo" || left[1] != "new-acked" {
		t.Fatalf("left %v", left)
	}
}
