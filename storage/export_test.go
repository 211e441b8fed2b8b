package storage

import "context"

// MigrateThrough applies the migrations up to and including version, and no later one, for the
// upgrade tests (package storage_test), which need a database as an older release left it.
func (s *Store) MigrateThrough(ctx context.Context, version string) error {
	return s.applyMigrationsThrough(ctx, version)
}

// PrepareFanout prepares the fan-out's statements on conn as the store does on each new
// connection, for tests that run the fan-out on a connection of their own.
var PrepareFanout = prepareFanout

// LegacyDedupe reports whether the fan-out still consults the duplicate rule's keys of the form
// before migration 085.
func (s *Store) LegacyDedupe() bool { return s.legacyDedupe.Load() }
