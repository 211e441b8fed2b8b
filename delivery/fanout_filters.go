package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// The fan-out's filters. A destination's filter is compiled once per version of its row (id and
// updated_at, which every change of the row moves) and kept: a business transaction reads only
// whether each destination has a filter and its updated_at (fanoutTargetsSQL), and fetches the text
// of a filter it has not compiled yet, so the common case sends no filter text over the wire and
// compiles nothing. Matching decodes an event's envelope once, and only when a destination that
// selected its kind has a filter (fanOut).

// filterCache holds the compiled filters of the destinations this process has fanned out to. It
// holds one entry per destination with a filter (a newer version replaces the older), so it stays
// as small as the destinations themselves.
type filterCache struct {
	mu sync.RWMutex
	m  map[string]cachedFilter
}

type cachedFilter struct {
	updatedAt time.Time
	f         *outreach.Filter
}

// get returns the compiled filter of destination id at version updatedAt, if kept.
func (c *filterCache) get(id string, updatedAt time.Time) (*outreach.Filter, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.m[id]
	if !ok || !e.updatedAt.Equal(updatedAt) {
		return nil, false
	}
	return e.f, true
}

func (c *filterCache) put(id string, updatedAt time.Time, f *outreach.Filter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cachedFilter{}
	}
	c.m[id] = cachedFilter{updatedAt: updatedAt, f: f}
}

// resolveFilters sets the compiled filter of every target that has one, from the cache or, for
// those missing from it, from one read of their filters in tx.
func (s *Store) resolveFilters(ctx context.Context, tx pgx.Tx, dests map[string][]fanoutTarget) error {
	var missing []string
	for _, list := range dests {
		for i := range list {
			t := &list[i]
			if !t.hasFilter {
				continue
			}
			if f, ok := s.filters.get(t.id, t.updatedAt); ok {
				t.filter = f
			} else {
				missing = append(missing, t.id)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	fetched, err := s.fetchFilters(ctx, tx, missing)
	if err != nil {
		return err
	}
	for _, list := range dests {
		for i := range list {
			if f, ok := fetched[list[i].id]; ok {
				list[i].filter = f
			}
		}
	}
	return nil
}

// fetchFilters reads and compiles the filters of ids, and keeps them under the version read.
func (s *Store) fetchFilters(ctx context.Context, tx pgx.Tx, ids []string) (map[string]*outreach.Filter, error) {
	rows, err := tx.Query(ctx, fetchFiltersSQL, ids)
	if err != nil {
		return nil, fmt.Errorf("fan-out filters: %w", err)
	}
	defer rows.Close()
	out := make(map[string]*outreach.Filter, len(ids))
	for rows.Next() {
		var id string
		var updatedAt time.Time
		var raw json.RawMessage
		if err := rows.Scan(&id, &updatedAt, &raw); err != nil {
			return nil, fmt.Errorf("fan-out filters: %w", err)
		}
		f, err := compileStoredFilter(id, raw)
		if err != nil {
			return nil, err
		}
		s.filters.put(id, updatedAt, f)
		out[id] = f
	}
	return out, rows.Err()
}

const fetchFiltersSQL = `SELECT id, updated_at, filter FROM destinations WHERE id = ANY($1::text[]) AND filter IS NOT NULL`

// compileStoredFilter compiles a filter the API checked when it was saved. One that no longer
// compiles can only come from a release whose rules are stricter than the one that saved it; the
// business transaction then fails with the destination named, rather than send the destination
// events its filter was meant to keep from it, or lose the ones it wanted.
func compileStoredFilter(id string, raw json.RawMessage) (*outreach.Filter, error) {
	f, err := outreach.CompileFilter(raw)
	if err != nil {
		return nil, fmt.Errorf("fan-out: the stored filter of destination %s does not compile (save it again through the API): %w", id, err)
	}
	return f, nil
}

// eventEnvelope decodes an event's body once for all the filters that look at it.
type eventEnvelope struct {
	body    []byte
	env     *outreach.Envelope
	decoded bool
}

// matches reports whether the event passes f (nil: no filter, no decoding).
func (e *eventEnvelope) matches(f *outreach.Filter) (bool, error) {
	if f == nil {
		return true, nil
	}
	if !e.decoded {
		env, err := outreach.DecodeEnvelope(e.body)
		if err != nil {
			return false, fmt.Errorf("fan-out: %w", err)
		}
		e.env, e.decoded = env, true
	}
	return f.Match(e.env), nil
}
