package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// EmptyForFreshDemo empties the database for a fresh demo (`outreachd serve --demo --fresh`):
// every table, the simulated LinkedIn world and the engine's clock with it, so the next start
// migrates an empty schema and begins again at the wall clock. It refuses a database that holds
// any organization but the demo one (demoOrg), so it cannot wipe real data, and one an engine
// said it was alive on within the last minute (another `serve` running there). The caller must
// close this store afterwards and open a new one: the pool's connections still hold statements
// prepared on the tables dropped.
func (s *Store) EmptyForFreshDemo(ctx context.Context, demoOrg string) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("fresh demo: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("fresh demo: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock) //nolint:errcheck
	var schema string
	var hasOrgs, hasEngine bool
	if err := conn.QueryRow(ctx, `SELECT current_schema(), to_regclass('orgs') IS NOT NULL,
		to_regclass('engine_instances') IS NOT NULL`).Scan(&schema, &hasOrgs, &hasEngine); err != nil {
		return fmt.Errorf("fresh demo: %w", err)
	}
	if hasOrgs {
		var others int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM orgs WHERE name <> $1`, demoOrg).Scan(&others); err != nil {
			return fmt.Errorf("fresh demo: count organizations: %w", err)
		}
		if others > 0 {
			return fmt.Errorf("this database holds %d organization(s) besides the demo one; --fresh empties the whole database, so it "+
				"runs only on a demo database (point DATABASE_URL at an empty one)", others)
		}
	}
	if hasEngine {
		var alive bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM engine_instances WHERE seen_at > now() - interval '1 minute')`).
			Scan(&alive); err != nil {
			return fmt.Errorf("fresh demo: look for a running engine: %w", err)
		}
		if alive {
			return fmt.Errorf("another outreachd serve is running on this database; stop it before starting a fresh demo")
		}
	}
	if _, err := conn.Exec(ctx, `DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE; CREATE SCHEMA `+
		pgx.Identifier{schema}.Sanitize()); err != nil {
		return fmt.Errorf("fresh demo: empty schema %s: %w", schema, err)
	}
	return nil
}
