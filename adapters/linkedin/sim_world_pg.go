package linkedin

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"outreachd/outreach"
)

// PostgresWorlds keeps simulated worlds in PostgreSQL (the sim_worlds and sim_calls tables of
// the service's migrations): an append-only journal of the calls that changed a world, replayed
// when a process opens the world, and the simulated clock the last process stopped at.
type PostgresWorlds struct{ pool *pgxpool.Pool }

// NewPostgresWorlds keeps worlds through pool.
func NewPostgresWorlds(pool *pgxpool.Pool) *PostgresWorlds { return &PostgresWorlds{pool: pool} }

var _ WorldStore = (*PostgresWorlds)(nil)

// OpenSimWorld returns the name of base's current world, creating one ("<base>/w_<id>") when
// base has none (the first start, or after its world was deleted).
func (w *PostgresWorlds) OpenSimWorld(ctx context.Context, base string) (string, error) {
	var world string
	err := w.pool.QueryRow(ctx, `WITH cur AS (
			SELECT world FROM sim_worlds WHERE base = $1 ORDER BY created_at DESC LIMIT 1),
		ins AS (
			INSERT INTO sim_worlds (world, base) SELECT $2, $1 WHERE NOT EXISTS (SELECT 1 FROM cur)
			RETURNING world)
		SELECT world FROM cur UNION ALL SELECT world FROM ins`, base, base+"/"+outreach.NewID("w")).Scan(&world)
	if err != nil {
		return "", fmt.Errorf("open simulated world %s: %w", base, err)
	}
	return world, nil
}

// AppendSimCall records one call on a simulated world.
func (w *PostgresWorlds) AppendSimCall(ctx context.Context, world string, at time.Time, op string, args []byte) error {
	_, err := w.pool.Exec(ctx, `INSERT INTO sim_calls (world, at, op, args) VALUES ($1, $2, $3, $4)`,
		world, at, op, args)
	if err != nil {
		return fmt.Errorf("append simulator call: %w", err)
	}
	return nil
}

// SimCalls hands fn a world's calls in the order they were made.
func (w *PostgresWorlds) SimCalls(ctx context.Context, world string, fn func(at time.Time, op string, args []byte) error) error {
	rows, err := w.pool.Query(ctx, `SELECT at, op, args FROM sim_calls WHERE world = $1 ORDER BY id`, world)
	if err != nil {
		return fmt.Errorf("read simulator calls: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var at time.Time
		var op string
		var args []byte
		if err := rows.Scan(&at, &op, &args); err != nil {
			return err
		}
		if err := fn(at, op, args); err != nil {
			return err
		}
	}
	return rows.Err()
}

// SaveSimClock records where a world's simulated clock stands.
func (w *PostgresWorlds) SaveSimClock(ctx context.Context, world string, at time.Time) error {
	_, err := w.pool.Exec(ctx, `UPDATE sim_worlds SET clock_at = GREATEST(clock_at, $2), updated_at = now()
		WHERE world = $1`, world, at)
	return err
}

// SimClock returns where a world's simulated clock stood when it was last saved or last
// changed the world, whichever is later; false for a world never used.
func (w *PostgresWorlds) SimClock(ctx context.Context, world string) (time.Time, bool, error) {
	var t *time.Time
	err := w.pool.QueryRow(ctx, `SELECT GREATEST((SELECT clock_at FROM sim_worlds WHERE world = $1),
		(SELECT max(at) FROM sim_calls WHERE world = $1))`, world).Scan(&t)
	if err != nil || t == nil {
		return time.Time{}, false, err
	}
	return *t, true, nil
}
