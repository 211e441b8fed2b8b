package delivery

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"outreachd/outreach"
	"outreachd/storage"
)

// Store is the hub's SQL, on the tables it owns (destinations, deliveries, the dispatch queue,
// payloads, attempts, duplicate keys, health, retention marks): the fan-out that every business
// transaction runs before it commits (store_fanout.go), claims (store_claim.go), attempt records
// and gauges (store_records.go), operator actions (store_operator.go), destinations
// (store_destinations.go), logs and health (store_logs.go, store_health.go) and retention
// (store_retention.go). It runs on the pools of the storage.Store it is attached to: build it
// with NewStore and open that store with it (storage.Config.Deliveries); storage calls the fan-out
// through that interface and never imports this package.
//
// After a commit that made deliveries due now it sends one NOTIFY deliveries, outside the
// transaction and coalesced (notifyDeliveries), which wakes the dispatchers of every process.
type Store struct {
	db DB
	// pool and async are db's pools: business transactions and reads, and the pool whose commits
	// do not wait for the WAL flush, for the hub's own bookkeeping (storage.Store.AsyncPool).
	pool, async *pgxpool.Pool
	// policy is what the fan-out writes into each delivery (SetFanoutPolicy); counts its totals.
	policy atomic.Pointer[FanoutPolicy]
	counts fanoutCounters
	// filters keeps the destinations' compiled filters (fanout_filters.go).
	filters filterCache
	// legacyDedupe is set while delivery_dedupe_legacy may hold keys of the duplicate rule's
	// form before migration 085 (per destination): the fan-out consults them too. It starts set
	// and is cleared by PruneDeliveryDedupe once the table is empty (nothing writes to it now).
	legacyDedupe atomic.Bool
	// wake coalesces "deliveries were committed" signals for the notifier; stop ends it.
	wake      chan struct{}
	notified  atomic.Int64 // when the last NOTIFY deliveries was sent (Unix nanoseconds), for Close
	attached  atomic.Bool
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// DB is what the hub needs of package storage: the two pools its statements run on, and the
// business transactions in which destinations change.
type DB interface {
	Pool() *pgxpool.Pool
	AsyncPool() *pgxpool.Pool
	InTx(ctx context.Context, fn func(tx *storage.Tx) error) error
}

// NewStore builds the hub's store with the fan-out's policy (zero fields take its defaults;
// NewHub replaces it with the hub's own). It is usable once storage.Open has attached it.
func NewStore(policy FanoutPolicy) *Store {
	s := &Store{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	s.SetFanoutPolicy(policy)
	s.legacyDedupe.Store(true)
	return s
}

var _ storage.Deliveries = (*Store)(nil)

// Attach connects the store to st's pools and starts the notifier; storage.Open calls it once.
func (s *Store) Attach(st *storage.Store) error { return s.attach(st) }

func (s *Store) attach(db DB) error {
	if !s.attached.CompareAndSwap(false, true) {
		return errors.New("delivery: the store is attached already; build one per storage.Store")
	}
	s.db, s.pool, s.async = db, db.Pool(), db.AsyncPool()
	go s.notifyDeliveries()
	return nil
}

// FanOut writes the deliveries of a business transaction's events in tx (fanOut), with the
// traceparent of the transaction's span in ctx (trace.go); once tx has committed, the returned
// function counts them and owes the dispatchers a wake-up if any is new.
func (s *Store) FanOut(ctx context.Context, tx pgx.Tx, events []outreach.Event, bodies [][]byte, emitted time.Time) (func(), error) {
	committing := committingSpan(ctx)
	ctx, span := startFanout(ctx)
	res, err := s.fanOut(ctx, tx, events, bodies, emitted, committing)
	endFanout(span, len(events), res, err)
	if err != nil {
		return nil, err
	}
	return func() { s.committed(len(bodies), res) }, nil
}

// committed counts a committed transaction's events and deliveries and wakes the dispatchers
// when it wrote any.
func (s *Store) committed(events int, res InsertResult) {
	s.counts.events.Add(int64(events))
	s.counts.filtered.Add(int64(res.Filtered))
	if res.Created+res.Collapsed == 0 {
		return
	}
	s.counts.created.Add(int64(res.Created))
	s.counts.collapsed.Add(int64(res.Collapsed))
	if res.Created > 0 {
		s.wakeDispatchers()
	}
}

// Close stops the notifier (sending a last wake-up if one is owed) and returns no sooner than
// closeGrace after the last wake-up it sent; storage.Store.Close calls it before it closes the
// pools.
func (s *Store) Close() {
	s.closeOnce.Do(func() {
		if !s.attached.Load() {
			return
		}
		close(s.stop)
		<-s.done
		if last := s.notified.Load(); last != 0 {
			if wait := closeGrace - time.Since(time.Unix(0, last)); wait > 0 {
				time.Sleep(wait)
			}
		}
	})
}

// closeGrace is how long Close keeps the connections after the last wake-up this process sent.
// Closing them ends their PostgreSQL backends, and a one-shot process such as the operator CLI
// closes its store right after the commit whose deliveries it announced: on a database host with
// two cores, that teardown (the backends' exit and the process's own) competed with the claim and
// the send of the very event it had just committed, in serve: from the COMMIT to arrival, the
// CLI's events took half as long again as the API's without the grace, and as long with it
// (measured: docs/performance.md, "The CLI path"). The CLI has printed its result by then; only
// its exit waits.
const closeGrace = 50 * time.Millisecond

// NotifyDeliveries is the channel that wakes dispatchers when deliveries become due now.
const NotifyDeliveries = "deliveries"

// notifyDeliveries sends NOTIFY deliveries after commits that wrote deliveries, outside them:
// one notification covers every commit that signalled while the previous one was being sent. A
// NOTIFY inside the business transaction would serialize all committing transactions on
// PostgreSQL's notify lock (see migration 013). Every process that commits events — serve, the
// operator CLI, another instance — notifies the same way, so the dispatchers of all of them hear
// of every new delivery. A lost notification only delays dispatch until the dispatchers' idle poll.
func (s *Store) notifyDeliveries() {
	defer close(s.done)
	send := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// No arguments: pgx sends it in the simple protocol, one round trip even on a new
		// connection (a statement with arguments is prepared first, a second round trip). A
		// NOTIFY's transaction writes a commit record, and PostgreSQL signals the listeners only
		// after that record is flushed; the wake-up needs no durability (the deliveries it
		// announces are committed, and a lost one waits for the idle poll), so its transaction
		// commits without waiting for the flush, which lowers the latency of every delivery
		// (measured: docs/performance.md, "Design choices and their measurements"). The setting is
		// LOCAL: the connection goes back to the pool as it was.
		_, _ = s.pool.Exec(ctx, `BEGIN; SET LOCAL synchronous_commit = off; NOTIFY `+NotifyDeliveries+`; COMMIT`)
		s.notified.Store(time.Now().UnixNano())
	}
	for {
		select {
		case <-s.wake:
			send()
		case <-s.stop:
			select {
			case <-s.wake:
				send()
			default:
			}
			return
		}
	}
}

// wakeDispatchers owes one NOTIFY deliveries, sent by notifyDeliveries after the caller's
// commit; it never blocks.
func (s *Store) wakeDispatchers() {
	select {
	case s.wake <- struct{}{}:
	default: // a notification is already owed; it covers this commit too
	}
}

// connConfig is the configuration of the business pool's connections, for the listener's own.
func (s *Store) connConfig() *pgx.ConnConfig { return s.pool.Config().ConnConfig.Copy() }
