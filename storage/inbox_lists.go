package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The people stopped and the people blocked, as GET /inbox/stopped, GET /inbox/blocked and the
// application's Do not contact page list them.

// PeopleQuery selects a page of the people stopped or blocked, newest first.
type PeopleQuery struct {
	OrgID string
	// Text keeps the people whose name or profile contains it, ignoring case ("" keeps all).
	Text          string
	Limit, Offset int
}

// PausedSequence is one campaign sequence of a stopped person, paused where it stood.
type PausedSequence struct {
	ProspectID   string
	CampaignID   string
	CampaignName string
	CurrentStep  int
	// TimeLeft is what was left until the next step when it stopped, which Resume gives back;
	// nil when no step was scheduled (not started yet).
	TimeLeft *time.Duration
}

// StoppedPerson is one person stopped and not resumed.
type StoppedPerson struct {
	Key       string // lead key
	Value     string // profile URL, or member id when no handle is known
	Name      string // "" when unknown
	StoppedAt time.Time
	StoppedBy *string
	Sequences []PausedSequence
}

// BlockedPerson is one account entry made by a block.
type BlockedPerson struct {
	Key       string
	Value     string
	Name      string
	Reason    *string
	BlockedAt time.Time
	BlockedBy *string
}

// personName is a LATERAL subquery naming the person of lead key k.key (member id k.member):
// the newest prospect's name, else the newest conversation's attendee name.
const personName = `LEFT JOIN LATERAL (SELECT x.name FROM (
		SELECT p.name, 0 AS pref, p.created_at FROM prospects p
		WHERE p.org_id = $1 AND p.lead_key = k.key AND p.name <> ''
		UNION ALL
		SELECT c.attendee_name, 1, c.created_at FROM chats c
		WHERE c.org_id = $1 AND (c.lead_key = k.key OR (k.member <> '' AND c.attendee_provider_id = k.member))
		  AND c.attendee_name <> ''
	) x ORDER BY x.pref, x.created_at DESC LIMIT 1) n ON true`

// ListStopped returns a page of the people stopped, with their paused sequences, and the total.
func (s *Store) ListStopped(ctx context.Context, q PeopleQuery) ([]StoppedPerson, int, error) {
	from := `FROM (SELECT key, member_id AS member, value, stopped_at, stopped_by FROM person_stops
			WHERE org_id = $1) k ` + personName + `
		WHERE ($2 = '' OR k.value ILIKE $2 ESCAPE '\' OR n.name ILIKE $2 ESCAPE '\')`
	args := []any{q.OrgID, likePattern(q.Text)}
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) `+from, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count stopped people: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT k.key, k.value, coalesce(n.name, ''), k.stopped_at, k.stopped_by `+from+`
		ORDER BY k.stopped_at DESC, k.key LIMIT $3 OFFSET $4`, append(args, q.Limit, q.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("stopped people: %w", err)
	}
	people, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (StoppedPerson, error) {
		var p StoppedPerson
		err := r.Scan(&p.Key, &p.Value, &p.Name, &p.StoppedAt, &p.StoppedBy)
		return p, err
	})
	if err != nil || len(people) == 0 {
		return people, total, wrapErr(err, "stopped people")
	}
	keys := make([]string, len(people))
	at := map[string]int{}
	for i, p := range people {
		keys[i], at[p.Key] = p.Key, i
	}
	rows, err = s.pool.Query(ctx, `SELECT p.lead_key, p.id, p.campaign_id, c.name, p.current_step,
			(extract(epoch FROM p.paused_next_step_at - p.paused_at) * 1000)::bigint
		FROM prospects p JOIN campaigns c ON c.id = p.campaign_id
		WHERE p.org_id = $1 AND p.lead_key = ANY($2) AND p.paused_at IS NOT NULL
		ORDER BY p.created_at, p.id`, q.OrgID, keys)
	if err != nil {
		return nil, 0, fmt.Errorf("paused sequences: %w", err)
	}
	var key string
	var seq PausedSequence
	var leftMS *int64
	_, err = pgx.ForEachRow(rows, []any{&key, &seq.ProspectID, &seq.CampaignID, &seq.CampaignName, &seq.CurrentStep, &leftMS}, func() error {
		sq := seq
		if leftMS != nil {
			d := time.Duration(*leftMS) * time.Millisecond
			sq.TimeLeft = &d
		}
		people[at[key]].Sequences = append(people[at[key]].Sequences, sq)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("paused sequences: %w", err)
	}
	return people, total, nil
}

// ListBlocked returns a page of the people blocked and the total.
func (s *Store) ListBlocked(ctx context.Context, q PeopleQuery) ([]BlockedPerson, int, error) {
	from := `FROM (SELECT key, CASE WHEN key LIKE 'id:%' THEN substr(key, 4) ELSE '' END AS member, value, reason,
			blocked_at, added_by FROM blacklist WHERE org_id = $1 AND type = 'account' AND blocked_at IS NOT NULL) k
		` + personName + `
		WHERE ($2 = '' OR k.value ILIKE $2 ESCAPE '\' OR n.name ILIKE $2 ESCAPE '\' OR k.reason ILIKE $2 ESCAPE '\')`
	args := []any{q.OrgID, likePattern(q.Text)}
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) `+from, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count blocked people: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT k.key, k.value, coalesce(n.name, ''), k.reason, k.blocked_at, k.added_by `+from+`
		ORDER BY k.blocked_at DESC, k.key LIMIT $3 OFFSET $4`, append(args, q.Limit, q.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("blocked people: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (BlockedPerson, error) {
		var p BlockedPerson
		err := r.Scan(&p.Key, &p.Value, &p.Name, &p.Reason, &p.BlockedAt, &p.BlockedBy)
		return p, err
	})
	return out, total, wrapErr(err, "blocked people")
}

func wrapErr(err error, what string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
