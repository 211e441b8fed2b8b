// Package storage is outreachd's PostgreSQL layer: the embedded schema migrations, the queries of
// every resource, and the transactions through which a business change and the domain events it
// causes are committed together (the outbox).
//
// It knows nothing of HTTP; callers pass organization ids explicitly and every query is scoped
// by them, so one organization can never read another's rows through this package.
package storage

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"outreachd/outreach"
)

// Config tunes the connection pool.
type Config struct {
	// MaxConns caps the pool of business transactions and reads; the delivery hub's pool (async)
	// gets half of it, at least 4. 0 means the pool_max_conns of the database URL when it has
	// one, else DefaultMaxConns.
	MaxConns int32
	// Fanout is what the fan-out writes into each delivery (zero: 4 attempts, 24 h window).
	Fanout FanoutPolicy
}

// DefaultMaxConns is the pool size when neither Config nor the database URL sets one: pgxpool's
// own rule, the larger of 4 and the number of CPUs (4 on the 2-core machines measured). PostgreSQL
// does the most work with few transactions running at once: concurrent pushes committed fastest
// with 4 to 8 connections, and slower with 12 or 24, whose backends spend their time waiting on
// each other's locks on the same index pages instead of working; requests beyond the pool wait in
// the process for a connection instead, which costs nothing. Within that range the smaller pool
// leaves the delivery hub's backends a larger share of the database's CPU, so the deliveries of a
// burst keep pace with the pushes at the same throughput (measured: docs/performance.md,
// "Connections"). A larger database server takes a larger pool through pool_max_conns.
func DefaultMaxConns() int32 { return int32(max(4, runtime.NumCPU())) }

func (c *Config) setDefaults(url string) {
	if c.MaxConns == 0 && !strings.Contains(url, "pool_max_conns") {
		c.MaxConns = DefaultMaxConns()
	}
}

// Store is the handle every other package uses to reach PostgreSQL.
type Store struct {
	pool *pgxpool.Pool
	// async is a smaller pool whose transactions commit without waiting for the WAL flush
	// (synchronous_commit off), for writes whose loss in a crash of the database server itself
	// costs at most work done again, never a business fact: the per-minute request counters, and
	// the delivery hub's own bookkeeping (fan-out batches, claims, attempt records), whose loss
	// means an event is fanned out or sent again — at least once, as promised, with the same
	// webhook-id for receivers to drop (delivery ids derive from event and destination). Each keyed request bumps one hot counter row, and a
	// synchronous commit held that row's lock through a disk flush; the hub committed several
	// times per batch of deliveries, each waiting for the disk behind the business commits.
	// Commits stay atomic and in order; only the last fraction of a second of them can vanish,
	// and only if PostgreSQL crashes. Business transactions (InTx) always commit synchronously.
	// Its statements are planned as index scans and nested loops whatever the statistics (Open).
	async *pgxpool.Pool
	// policy is what the fan-out writes into each delivery (SetFanoutPolicy); counts its totals.
	policy atomic.Pointer[FanoutPolicy]
	counts fanoutCounters
	// legacyDedupe is set while delivery_dedupe_legacy may hold keys of the duplicate rule's
	// form before migration 085 (per destination): the fan-out consults them too. It starts set
	// and is cleared by PruneDeliveryDedupe once the table is empty (nothing writes to it now).
	legacyDedupe atomic.Bool
	// wake coalesces "deliveries were committed" signals for the notifier; stop ends it.
	wake      chan struct{}
	notified  atomic.Int64 // when the last NOTIFY deliveries was sent (Unix nanoseconds), for Close
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// Open connects to the database at url and checks that it answers.
func Open(ctx context.Context, url string, cfg Config) (*Store, error) {
	cfg.setDefaults(url)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	pc.AfterConnect = prepareFanout
	cc := pc.Copy()
	cc.MaxConns = max(4, pc.MaxConns/2)
	cc.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
	// Index scans and nested loops, whatever the statistics say. Every statement of this pool is
	// a keyed lookup of a few rows (claims, records, retention batches, counters), over tables
	// whose size swings: the dispatch queue is empty between bursts and tens of thousands of rows
	// deep in one. A plan made while it was empty (its statistics say 0 rows) read it whole —
	// a bitmap scan of every due row, a hash join, a sort — instead of walking its due index to
	// the claim's LIMIT, and pgx's prepared statements kept that plan as the queue filled: a
	// 50,000-event burst fell from ≈ 6,000 to 2,139 deliveries/s. Planning every execution anew
	// (plan_cache_mode force_custom_plan) fixed the shape but cost more than it saved (3,634 and
	// 3,683 deliveries/s against 5,647 and 5,865 with these settings; docs/performance.md).
	for _, p := range []string{"enable_seqscan", "enable_bitmapscan", "enable_hashjoin", "enable_mergejoin"} {
		cc.ConnConfig.RuntimeParams[p] = "off"
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	async, err := pgxpool.NewWithConfig(ctx, cc)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		async.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	s := &Store{pool: pool, async: async, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	s.SetFanoutPolicy(cfg.Fanout)
	s.legacyDedupe.Store(true)
	go s.notifyDeliveries()
	return s, nil
}

// Pool exposes the pgx pool for packages that run their own queries (delivery workers,
// watermill subscribers).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// AsyncPool is the pool whose commits do not wait for the WAL flush (see Store.async); only
// work that is safe to redo after a database crash may write through it.
func (s *Store) AsyncPool() *pgxpool.Pool { return s.async }

// Close stops the outbox notifier (sending a last wake-up if one is owed) and releases every
// connection, no sooner than closeGrace after the last wake-up it sent.
func (s *Store) Close() {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.done
		if last := s.notified.Load(); last != 0 {
			if wait := closeGrace - time.Since(time.Unix(0, last)); wait > 0 {
				time.Sleep(wait)
			}
		}
		s.pool.Close()
		s.async.Close()
	})
}

// closeGrace is how long Close keeps the connections after the last wake-up this process sent.
// Closing them ends their PostgreSQL backends, and a one-shot process such as the operator CLI
// closes its store right after the commit whose deliveries it announced: on a database host with
// two cores, that teardown (the backends' exit and the process's own) competed with the claim and
// the send of the very event it had just committed, in serve. Measured from the COMMIT to
// arrival, single events, p50 in three alternated rounds: the CLI 3.1–3.7 ms against the API's
// 1.8–2.1 ms before, 2.2 ms against 1.8–2.3 ms with the grace (docs/performance.md, "The CLI
// path"). The CLI has printed its result by then; only its exit waits.
const closeGrace = 50 * time.Millisecond

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
		// commits without waiting for the flush. Measured at 200 events/s in 100-lead pushes:
		// the latency p50 1.1–2.9 ms lower (docs/performance.md, "Design choices and their
		// measurements").
		// The setting is LOCAL: the connection goes back to the pool as it was.
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

// Ping reports whether the database answers; /readyz uses it.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// Tx is one business transaction. Events emitted on it are written to the outbox, and their
// deliveries to the delivery queue, inside the same transaction just before it commits, so a
// change, its events and their deliveries exist together or not at all.
type Tx struct {
	pgx.Tx
	events []outreach.Event
}

// Emit queues ev for the outbox of this transaction.
func (tx *Tx) Emit(ev outreach.Event) { tx.events = append(tx.events, ev) }

// InTx runs fn in a transaction and commits it with its events and their deliveries. A failing
// fn, or a cancelled ctx, rolls back; the rollback uses a context that cannot be cancelled so
// that a client hanging up never leaves a transaction open on the server.
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) error {
	ptx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	tx := &Tx{Tx: ptx}
	defer func() { _ = ptx.Rollback(context.WithoutCancel(ctx)) }()
	if err := fn(tx); err != nil {
		return err
	}
	if err := fillCampaignStats(ctx, tx); err != nil {
		return err
	}
	bodies, emitted, err := publishEvents(ctx, ptx, tx.events)
	if err != nil {
		return err
	}
	var fanned InsertResult
	if len(bodies) > 0 {
		if fanned, err = s.fanOut(ctx, ptx, tx.events, bodies, emitted); err != nil {
			return err
		}
	}
	if err := ptx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	s.counts.events.Add(int64(len(bodies)))
	if fanned.Created+fanned.Collapsed == 0 {
		return nil
	}
	s.counts.created.Add(int64(fanned.Created))
	s.counts.collapsed.Add(int64(fanned.Collapsed))
	if fanned.Created > 0 {
		s.wakeDispatchers()
	}
	return nil
}

// wakeDispatchers owes one NOTIFY deliveries, sent by notifyDeliveries after the caller's
// commit; it never blocks.
func (s *Store) wakeDispatchers() {
	select {
	case s.wake <- struct{}{}:
	default: // a notification is already owed; it covers this commit too
	}
}

// isUniqueViolation reports a unique-constraint conflict (SQLSTATE 23505).
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// notFound turns pgx.ErrNoRows into outreach.ErrNotFound so callers decide with errors.Is.
func notFound(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return outreach.NotFound("%s", what)
	}
	return err
}
