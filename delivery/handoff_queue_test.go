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

// The hand-off queue is bounded (what does not fit is left to the outbox consumer) and hands
// events out oldest first in bounded batches.
func TestHandoffQueueBounds(t *testing.T) {
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
}

// A hand-off that falls more than handoffLag behind takes no new events until it caught up.
func TestHandoffQueueLag(t *testing.T) {
	q := newHandoff()
	if !q.offer(rowsN("a", 1)) {
		t.Fatal("first offer refused")
	}
	q.pendingAt[0] = time.Now().Add(-2 * handoffLag)
	if q.offer(rowsN("b", 1)) {
		t.Fatal("an offer behind a lagging queue was taken")
	}
	q.take()
	if !q.offer(rowsN("c", 1)) {
		t.Fatal("an offer to a drained queue was refused")
	}
}

// The outbox consumer skips what the hand-off wrote, writes what it could not, and waits for what
// it still holds; what is remembered is forgotten once read or once old.
func TestHandoffSettle(t *testing.T) {
	q := newHandoff()
	now := time.Now()
	q.offer(rowsN("w", 2)) // will be written
	q.offer(rowsN("f", 1)) // will fail
	q.offer(rowsN("s", 1)) // still held
	q.take()
	q.finish(rowsN("w", 2), true, now)
	q.finish(rowsN("f", 1), false, now)
	read := append(append(rowsN("w", 2), rowsN("f", 1)...), storage.OutboxRow{UUID: "other"})
	if left := q.settle(read, time.Second); len(left) != 2 || left[0].UUID != "f0" || left[1].UUID != "other" {
		t.Fatalf("settle = %+v, want the failed event and the one never offered", left)
	}
	if left := q.settle(rowsN("w", 1), time.Second); len(left) != 1 {
		t.Fatal("an event is skipped once; read again (after a crash) it is written again")
	}

	got := make(chan []storage.OutboxRow, 1)
	go func() { got <- q.settle(rowsN("s", 1), 10*time.Second) }()
	select {
	case l := <-got:
		t.Fatalf("settle returned %+v while the hand-off still held the event", l)
	case <-time.After(50 * time.Millisecond):
	}
	q.finish(rowsN("s", 1), true, now)
	select {
	case l := <-got:
		if len(l) != 0 {
			t.Fatalf("settle = %+v after the hand-off wrote the event, want nothing left", l)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("settle did not return once the hand-off finished")
	}

	q.offer(rowsN("h", 1)) // held and never finished: the wait is bounded
	if left := q.settle(rowsN("h", 1), 20*time.Millisecond); len(left) != 1 {
		t.Fatalf("settle after its wait = %+v, want the held event to write", left)
	}

	q.finish(rowsN("old", 1), true, now.Add(-2*doneTTL))
	q.finish(rowsN("new", 1), true, now)
	q.prune(now)
	if _, ok := q.done["old0"]; ok {
		t.Error("an entry older than doneTTL was kept")
	}
	if _, ok := q.done["new0"]; !ok {
		t.Error("a fresh entry was pruned")
	}
}
