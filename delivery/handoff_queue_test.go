package delivery

import (
	"fmt"
	"testing"
	"time"

	"outreachd/storage"
)

func rowsN(prefix string, n int) []storage.OutboxRow {
	rows := make([]storage.OutboxRow, n)
	for i := range rows {
		rows[i].UUID = fmt.Sprintf("%s%d", prefix, i)
	}
	return rows
}

// The hand-off queue is bounded (what does not fit is left to the outbox consumer), hands events
// out oldest first in bounded batches, and remembers what it fanned out until the outbox consumer
// reads it or it is old.
func TestHandoffQueue(t *testing.T) {
	q := newHandoff()
	if !q.offer(rowsN("a", handoffQueue-1)) {
		t.Fatal("an offer within the bound was refused")
	}
	if q.offer(rowsN("b", 2)) {
		t.Fatal("an offer past the bound was taken; it must be left to the outbox consumer")
	}
	if !q.offer(rowsN("c", 1)) {
		t.Fatal("an offer that exactly fills the queue was refused")
	}
	first := q.take()
	if len(first) != handoffBatch || first[0].UUID != "a0" {
		t.Fatalf("take = %d rows starting %q, want %d starting a0", len(first), first[0].UUID, handoffBatch)
	}
	total := len(first)
	var last storage.OutboxRow
	for rows := q.take(); len(rows) > 0; rows = q.take() {
		total += len(rows)
		last = rows[len(rows)-1]
	}
	if total != handoffQueue || last.UUID != "c0" {
		t.Fatalf("took %d rows ending %q, want %d ending c0", total, last.UUID, handoffQueue)
	}

	now := time.Now()
	q.markDone(rowsN("d", 3), now.Add(-2*doneTTL))
	q.markDone(rowsN("e", 2), now)
	read := append(rowsN("e", 1), storage.OutboxRow{UUID: "other"})
	if left := q.notDone(read); len(left) != 1 || left[0].UUID != "other" {
		t.Fatalf("notDone = %+v, want only the event not handed off", left)
	}
	if left := q.notDone(rowsN("e", 1)); len(left) != 1 {
		t.Fatal("an event is skipped once; read again (after a crash) it is written again")
	}
	q.prune(now)
	if _, ok := q.done["d0"]; ok {
		t.Error("an entry older than doneTTL was kept")
	}
	if _, ok := q.done["e1"]; !ok {
		t.Error("a fresh entry was pruned")
	}
}
