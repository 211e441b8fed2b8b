package storage

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ServiceKey returns the service's own key called name, generating n random bytes and storing
// them the first time. created reports that this call made it. Concurrent first calls agree on
// one key: the insert that loses the race reads the winner's. The sealing key of destination
// secrets (when SECRETS_KEY is unset) and the key that signs the OAuth consent forms are such keys.
func (s *Store) ServiceKey(ctx context.Context, name string, n int) (key []byte, created bool, err error) {
	fresh := make([]byte, n)
	if _, err := rand.Read(fresh); err != nil {
		return nil, false, err
	}
	err = s.pool.QueryRow(ctx, `INSERT INTO service_keys (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO NOTHING RETURNING value`, name, fresh).Scan(&key)
	if err == nil {
		return key, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, false, fmt.Errorf("service key %s: %w", name, err)
	}
	if err := s.pool.QueryRow(ctx, `SELECT value FROM service_keys WHERE name = $1`, name).Scan(&key); err != nil {
		return nil, false, fmt.Errorf("service key %s: %w", name, err)
	}
	return key, false, nil
}
