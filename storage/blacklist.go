package storage

import (
	"context"
	"fmt"
	"time"
)

// BlacklistEntry is one do-not-contact entry: Key is the matching key of
// outreach.ParseBlacklistValue, Value what the client sent.
type BlacklistEntry struct {
	Type      string
	Key       string
	Value     string
	Reason    *string
	CreatedAt time.Time
}

// AddBlacklist stores entries that are not on the organization's list yet, in one statement,
// and returns how many were new. An entry already present (same type and key) is left as it
// was: re-sending is a no-op. Entries must be distinct by type and key.
func (s *Store) AddBlacklist(ctx context.Context, orgID string, entries []BlacklistEntry) (int, error) {
	if len(entries) == 0 {
		return 0, nil
	}
	types, keys, values := make([]string, len(entries)), make([]string, len(entries)), make([]string, len(entries))
	reasons := make([]*string, len(entries))
	for i, e := range entries {
		types[i], keys[i], values[i], reasons[i] = e.Type, e.Key, e.Value, e.Reason
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO blacklist (org_id, type, key, value, reason)
		SELECT $1, u.type, u.key, u.value, u.reason FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS u(type, key, value, reason)
		ON CONFLICT (org_id, type, key) DO NOTHING`, orgID, types, keys, values, reasons)
	if err != nil {
		return 0, fmt.Errorf("add blacklist entries: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// ListBlacklist returns one page of the organization's list, newest first, and the total.
// typ "" lists both types.
func (s *Store) ListBlacklist(ctx context.Context, orgID, typ string, limit, offset int) ([]BlacklistEntry, int, error) {
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM blacklist WHERE org_id = $1 AND ($2 = '' OR type = $2)`, orgID, typ).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count blacklist: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT type, key, value, reason, created_at FROM blacklist
		WHERE org_id = $1 AND ($2 = '' OR type = $2) ORDER BY created_at DESC, type, key LIMIT $3 OFFSET $4`, orgID, typ, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list blacklist: %w", err)
	}
	defer rows.Close()
	out := []BlacklistEntry{}
	for rows.Next() {
		var e BlacklistEntry
		if err := rows.Scan(&e.Type, &e.Key, &e.Value, &e.Reason, &e.CreatedAt); err != nil {
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}
