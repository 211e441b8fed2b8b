package delivery

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"outreachd/storage"
)

// RetentionConfig is the retention policy of the hub's tables. Zero values take the defaults of
// setDefaults; a negative period keeps that data forever.
type RetentionConfig struct {
	// Attempts is how long finished deliveries, their attempts and their payloads are kept
	// (RETENTION_ATTEMPTS, default 30 days). A pending delivery is never removed.
	Attempts time.Duration
	// Outbox is how long outbox rows (the record of every event committed) are kept
	// (RETENTION_OUTBOX, default 7 days).
	Outbox time.Duration
	// Interval is how often a pass runs (RETENTION_INTERVAL, default 1 min).
	Interval time.Duration
	// Batch is the most rows one statement reads (default 1,000); Pause the rest between two
	// statements (default 20 ms), so the removal never competes with delivery for long.
	Batch int
	Pause time.Duration
	// Logger receives warnings; nil discards them.
	Logger *slog.Logger
}

func (c *RetentionConfig) setDefaults() {
	c.Attempts = cmp.Or(c.Attempts, 30*24*time.Hour)
	c.Outbox = cmp.Or(c.Outbox, 7*24*time.Hour)
	c.Interval = cmp.Or(c.Interval, time.Minute)
	c.Batch = cmp.Or(c.Batch, 1000)
	c.Pause = cmp.Or(c.Pause, 20*time.Millisecond)
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
}

// Validate reports a configuration NewRetention refuses.
func (c RetentionConfig) Validate() error {
	if c.Interval <= 0 || c.Batch < 1 || c.Pause < 0 {
		return errors.New("retention: interval and batch must be positive")
	}
	return nil
}

// Retention removes what is past the retention policy from the hub's tables: finished
// deliveries with their attempts, attempts of finished deliveries and test sends, payloads no
// delivery refers to, and old outbox rows. It works in short statements of at
// most Batch rows each (Store.Prune*, Outbox.PruneOutbox), from its own goroutine, so it never holds a long
// transaction or blocks delivery; what it removed is counted in
// outreachd_retention_deleted_rows_total{table}. Several processes may run it: the statements
// are idempotent.
type Retention struct {
	store   *Store
	outbox  Outbox
	cfg     RetentionConfig
	log     *slog.Logger
	deleted *prometheus.CounterVec
}

// Tables retention removes rows from (the metric's label values).
const (
	tableDeliveries = "deliveries"
	tableAttempts   = "delivery_attempts"
	tablePayloads   = "delivery_payloads"
	tableOutbox     = "watermill_events"
)

// Outbox prunes the outbox, whose table and SQL are storage's (storage.Store.PruneOutbox): at most
// limit rows written before cutoff, reporting how many went and whether the pass is done.
type Outbox interface {
	PruneOutbox(ctx context.Context, cutoff time.Time, limit int) (deleted int64, done bool, err error)
}

// NewRetention builds the retention worker; its metric is registered on reg (nil: nowhere).
func NewRetention(store *Store, outbox Outbox, reg prometheus.Registerer, cfg RetentionConfig) (*Retention, error) {
	if store == nil || outbox == nil {
		return nil, errors.New("retention: the hub's store and the outbox are required")
	}
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	deleted := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "outreachd_retention_deleted_rows_total",
		Help: "Rows the retention policy removed, by table.",
	}, []string{"table"})
	for _, t := range []string{tableDeliveries, tableAttempts, tablePayloads, tableOutbox} {
		deleted.WithLabelValues(t) // every series exists from the start
	}
	if reg != nil {
		if err := reg.Register(deleted); err != nil {
			return nil, err
		}
	}
	return &Retention{store: store, outbox: outbox, cfg: cfg, log: cfg.Logger, deleted: deleted}, nil
}

// Run makes a pass every Interval until ctx ends.
func (r *Retention) Run(ctx context.Context) error {
	t := time.NewTicker(r.cfg.Interval)
	defer t.Stop()
	for {
		if _, err := r.RunOnce(ctx); err != nil && ctx.Err() == nil && !storage.IsUnavailable(err) {
			// An unreachable database is the hub's to report (one line per outage); the next
			// pass simply tries again.
			r.log.Warn("retention pass failed; the next one retries", "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// RunOnce makes one pass over every table and returns the rows it removed by table.
func (r *Retention) RunOnce(ctx context.Context) (map[string]int64, error) {
	removed := map[string]int64{}
	now := time.Now()
	if r.cfg.Attempts > 0 {
		cutoff := now.Add(-r.cfg.Attempts)
		// Deliveries first (their attempts go with them), then what is left of the attempts,
		// then the payloads that no delivery refers to any more.
		steps := []struct {
			table string
			prune func(context.Context, time.Time, string, int) (PruneBatch, error)
		}{
			{tableDeliveries, r.store.PruneDeliveries},
			{tableAttempts, r.store.PruneAttempts},
			{tablePayloads, r.store.PrunePayloads},
		}
		for _, s := range steps {
			n, err := r.pass(ctx, s.table, func(after string) (PruneBatch, error) {
				return s.prune(ctx, cutoff, after, r.cfg.Batch)
			})
			removed[s.table] += n
			if err != nil {
				return removed, err
			}
		}
	}
	if r.cfg.Outbox > 0 {
		n, err := r.pass(ctx, tableOutbox, func(string) (PruneBatch, error) {
			deleted, done, err := r.outbox.PruneOutbox(ctx, now.Add(-r.cfg.Outbox), r.cfg.Batch)
			return PruneBatch{Deleted: deleted, Done: done}, err
		})
		removed[tableOutbox] += n
		if err != nil {
			return removed, err
		}
	}
	return removed, nil
}

// pass runs one table's statements until it reaches rows younger than the cutoff.
func (r *Retention) pass(ctx context.Context, table string, step func(after string) (PruneBatch, error)) (int64, error) {
	var total int64
	after := ""
	for {
		b, err := step(after)
		if err != nil {
			return total, err
		}
		total += b.Deleted
		r.deleted.WithLabelValues(table).Add(float64(b.Deleted))
		if b.Done {
			return total, nil
		}
		after = b.Next
		if !sleep(ctx, r.cfg.Pause) {
			return total, ctx.Err()
		}
	}
}
