// Package storage is outreachd's shared PostgreSQL core: the pools, the embedded schema migrations
// of every package (one numbered sequence), the queries of the core records, and the transactions
// through which a business change and the domain events it causes are committed together (the
// outbox), with their deliveries, which the delivery hub writes in the same transaction through
// the Deliveries interface declared here. It never imports the hub.
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
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/trace"

	"outreachd/internal/telemetry"
	"outreachd/outreach"
)

// Config tunes the connection pool.
type Config struct {
	// MaxConns caps the pool of business transactions and reads; the delivery hub's pool (async)
	// gets half of it, at least 4. 0 means the pool_max_conns of the database URL when it has
	// one, else DefaultMaxConns.
	MaxConns int32
	// Deliveries writes the deliveries of the events a business transaction commits, in that
	// transaction (delivery.Store). A store opened without it commits no event: a transaction
	// that emits one fails with ErrNoDeliveries, so no event is ever committed without its
	// deliveries. Stores that only read, or write no events (migrations, tests reading the
	// outbox), may leave it nil.
	Deliveries Deliveries
	// Traces records a span around every business transaction (trace.go); nil records none.
	Traces trace.TracerProvider
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
	// the delivery hub's own bookkeeping (claims, attempt records, retention), whose loss means a
	// delivery is sent again — at least once, as promised, with the same webhook-id for receivers
	// to drop (delivery ids derive from event and destination). Each keyed request bumps one hot
	// counter row, and a synchronous commit held that row's lock through a disk flush; the hub
	// committed several times per batch of deliveries, each waiting for the disk behind the
	// business commits.
	// Commits stay atomic and in order; only the last fraction of a second of them can vanish,
	// and only if PostgreSQL crashes. Business transactions (InTx) always commit synchronously.
	// Its statements are planned as index scans and nested loops whatever the statistics (Open).
	async *pgxpool.Pool
	// deliveries is the delivery hub's part of the business transactions (Config.Deliveries).
	deliveries Deliveries
	// tracer records the business transactions' spans (Config.Traces).
	tracer    trace.Tracer
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
	if cfg.Deliveries != nil {
		pc.AfterConnect = cfg.Deliveries.Prepare
	}
	cc := pc.Copy()
	cc.MaxConns = max(4, pc.MaxConns/2)
	cc.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
	// Index scans and nested loops, whatever the statistics say. Every statement of this pool is
	// a keyed lookup of a few rows (claims, records, retention batches, counters), over tables
	// whose size swings: the dispatch queue is empty between bursts and tens of thousands of rows
	// deep in one. A plan made while it was empty (its statistics say 0 rows) read it whole —
	// a bitmap scan of every due row, a hash join, a sort — instead of walking its due index to
	// the claim's LIMIT, and pgx's prepared statements kept that plan as the queue filled: a burst
	// was delivered at a third of the rate. Planning every execution anew (plan_cache_mode
	// force_custom_plan) fixed the shape but cost more than it saved (measured: docs/performance.md,
	// "Design choices and their measurements").
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
	s := &Store{pool: pool, async: async, deliveries: cfg.Deliveries, tracer: telemetry.Tracer(cfg.Traces, TracerName)}
	if s.deliveries != nil {
		if err := s.deliveries.Attach(s); err != nil {
			pool.Close()
			async.Close()
			return nil, fmt.Errorf("attach the delivery hub's store: %w", err)
		}
	}
	return s, nil
}

// Pool exposes the pgx pool for packages that run their own queries (the delivery hub,
// watermill subscribers).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// AsyncPool is the pool whose commits do not wait for the WAL flush (see Store.async); only
// work that is safe to redo after a database crash may write through it.
func (s *Store) AsyncPool() *pgxpool.Pool { return s.async }

// Close lets the delivery hub's store finish what the commits still owe it (Deliveries.Close:
// the last wake-up of the dispatchers) and then releases every connection.
func (s *Store) Close() {
	s.closeOnce.Do(func() {
		if s.deliveries != nil {
			s.deliveries.Close()
		}
		s.pool.Close()
		s.async.Close()
	})
}

// Ping reports whether the database answers; /readyz uses it.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// Tx is one business transaction. Events emitted on it are written to the outbox, and their
// deliveries to the delivery queue (Deliveries), inside the same transaction just before it
// commits, so a change, its events and their deliveries exist together or not at all.
type Tx struct {
	pgx.Tx
	events []outreach.Event
}

// Emit queues ev for the outbox of this transaction.
func (tx *Tx) Emit(ev outreach.Event) { tx.events = append(tx.events, ev) }

// InTx runs fn in a transaction and commits it with its events and their deliveries. A failing
// fn, or a cancelled ctx, rolls back; the rollback uses a context that cannot be cancelled so
// that a client hanging up never leaves a transaction open on the server.
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) (err error) {
	ctx, span := s.tracer.Start(ctx, spanTransaction)
	tx := &Tx{}
	defer func() { endTransaction(span, len(tx.events), err) }()
	ptx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	tx.Tx = ptx
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
	var committed func()
	if len(bodies) > 0 {
		if committed, err = s.fanOut(ctx, ptx, tx.events, bodies, emitted); err != nil {
			return err
		}
	}
	if err := ptx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if committed != nil {
		committed()
	}
	return nil
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
