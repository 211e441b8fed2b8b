package storage

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// Deliveries is the delivery hub's part of every business transaction: it writes the deliveries
// of the events the transaction commits, in that transaction, just before the commit, and hears
// of the commit afterwards. Package delivery implements it (delivery.Store, with the hub's SQL);
// storage declares it so that it never imports the hub. Open attaches it (Config.Deliveries),
// Close detaches it.
type Deliveries interface {
	// Prepare readies a new connection of the business pool before its first use (the pool's
	// AfterConnect): statements prepared there are parsed when the connection opens, not inside
	// the first business transaction that runs them.
	Prepare(ctx context.Context, conn *pgx.Conn) error
	// Attach is called once by Open with the store, connected, before Open returns it.
	Attach(s *Store) error
	// FanOut writes in tx the deliveries of events, whose encoded payloads, as the outbox holds
	// them, are bodies, stamped as emitted at emitted. It returns what must happen once tx has
	// committed (nil: nothing), such as waking the dispatchers of every process.
	FanOut(ctx context.Context, tx pgx.Tx, events []outreach.Event, bodies [][]byte, emitted time.Time) (committed func(), err error)
	// Close is called by Store.Close before the pools close: it finishes what the commits still
	// owe (a last wake-up).
	Close()
}

// ErrNoDeliveries refuses to commit events in a store opened without Config.Deliveries: their
// deliveries could not be written, and an event committed without them would never reach its
// destinations.
var ErrNoDeliveries = errors.New("this store was opened without the delivery hub's store (storage.Config.Deliveries) and cannot commit events")

// fanOut hands the events of a business transaction to the delivery hub's store.
func (s *Store) fanOut(ctx context.Context, tx pgx.Tx, events []outreach.Event, bodies [][]byte, emitted time.Time) (func(), error) {
	if s.deliveries == nil {
		return nil, ErrNoDeliveries
	}
	return s.deliveries.FanOut(ctx, tx, events, bodies, emitted)
}
