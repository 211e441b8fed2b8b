package storage

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// BlacklistEntry is one do-not-contact entry: Key is the matching key of
// outreach.ParseBlacklistValue, Value what the client sent.
type BlacklistEntry struct {
	Type      string
	Key       string
	Value     string
	Reason    *string
	CreatedAt time.Time
	// AddedBy is who added (or blocked) it: "user:<id>", "key:<id>"; nil when not recorded.
	AddedBy *string
	// BlockedAt is set on an account entry made by a block (POST /inbox/block).
	BlockedAt *time.Time
}

// AddBlacklist stores entries that are not on the organization's list yet, in one statement,
// and returns how many were new. An entry already present (same type and key) is left as it
// was: re-sending is a no-op. Entries must be distinct by type and key. An entry's CreatedAt is
// when it was added on the engine's clock, as stops and blocks are stamped (zero: the
// database's clock).
func (s *Store) AddBlacklist(ctx context.Context, orgID string, entries []BlacklistEntry) (int, error) {
	if len(entries) == 0 {
		return 0, nil
	}
	n := len(entries)
	types, keys, values, reasons, by := make([]string, n), make([]string, n), make([]string, n), make([]*string, n), make([]*string, n)
	ats := make([]*time.Time, n)
	for i, e := range entries {
		types[i], keys[i], values[i], reasons[i], by[i] = e.Type, e.Key, e.Value, e.Reason, e.AddedBy
		if !e.CreatedAt.IsZero() {
			ats[i] = &entries[i].CreatedAt
		}
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO blacklist (org_id, type, key, value, reason, added_by, created_at)
		SELECT $1, u.type, u.key, u.value, u.reason, u.by, coalesce(u.at, now())
		FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
			AS u(type, key, value, reason, by, at)
		ON CONFLICT (org_id, type, key) DO NOTHING`, orgID, types, keys, values, reasons, by, ats)
	if err != nil {
		return 0, fmt.Errorf("add blacklist entries: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// BlacklistQuery selects a page of the do-not-contact list.
type BlacklistQuery struct {
	OrgID string
	// Type is account, company or "" for both.
	Type string
	// Text keeps the entries whose value or reason contains it, ignoring case ("" keeps all).
	Text string
	// ListedOnly leaves out the people blocked (the application lists them on their own).
	ListedOnly    bool
	Limit, Offset int
}

// ListBlacklist returns one page of the organization's list, newest first, and the total.
func (s *Store) ListBlacklist(ctx context.Context, q BlacklistQuery) ([]BlacklistEntry, int, error) {
	where := `FROM blacklist WHERE org_id = $1 AND ($2 = '' OR type = $2)
		AND ($3 = '' OR value ILIKE $3 ESCAPE '\' OR reason ILIKE $3 ESCAPE '\') AND (NOT $4 OR blocked_at IS NULL)`
	args := []any{q.OrgID, q.Type, likePattern(q.Text), q.ListedOnly}
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count blacklist: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT type, key, value, reason, created_at, added_by, blocked_at `+where+`
		ORDER BY created_at DESC, type, key LIMIT $5 OFFSET $6`, append(args, q.Limit, q.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list blacklist: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (BlacklistEntry, error) {
		var e BlacklistEntry
		err := r.Scan(&e.Type, &e.Key, &e.Value, &e.Reason, &e.CreatedAt, &e.AddedBy, &e.BlockedAt)
		return e, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list blacklist: %w", err)
	}
	return out, total, nil
}

// RemoveBlacklist takes one entry off the organization's list; false when it was not there. An
// account entry is the person's block, so removing it is UnblockPeople for that person.
func (s *Store) RemoveBlacklist(ctx context.Context, orgID string, k outreach.BlacklistKey) (bool, error) {
	var found bool
	err := s.InTx(ctx, func(tx *Tx) error {
		if k.Type == outreach.BlacklistAccount {
			r, err := unblock(ctx, tx, orgID, refOfKey(k.Key))
			found = r.Found
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM blacklist WHERE org_id = $1 AND type = $2 AND key = $3`, orgID, k.Type, k.Key)
		found = tag.RowsAffected() == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("remove from the do-not-contact list: %w", err)
	}
	return found, nil
}

// refOfKey names the person of a lead key ("in:<handle>" or "id:<member id>").
func refOfKey(key string) PersonRef {
	r := PersonRef{Key: key, Value: strings.TrimPrefix(key, "in:")}
	if id, ok := strings.CutPrefix(key, "id:"); ok {
		r.MemberID, r.Value = id, id
	}
	return r
}

// likePattern is an ILIKE pattern matching text anywhere, its own % _ and \ taken literally; ""
// stays "" (no filter).
func likePattern(text string) string {
	if text == "" {
		return ""
	}
	return "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(text) + "%"
}
