package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"outreachd/outreach"
	"outreachd/storage"
)

// DB is what the assistant server's own SQL needs of storage: the pool it runs on.
type DB interface {
	Pool() *pgxpool.Pool
}

// Proposals keeps the assistant's proposals (assistant_proposals) and makes the reads that only
// a proposal's summary needs. The operator's janitor prunes them through it too.
type Proposals struct {
	pool *pgxpool.Pool
}

// NewProposals builds the proposal records on db's pool.
func NewProposals(db DB) *Proposals { return &Proposals{pool: db.Pool()} }

// proposal is a change the assistant server was asked for and has not made: what it would do,
// for which organization, asked by whom. confirm_proposal claims it once (claim).
type proposal struct {
	ID           string
	OrgID        string
	ProposedBy   string // "key:<key id>" or "oauth:<client>:<user>"
	Tool         string
	Arguments    json.RawMessage
	Summary      string
	Irreversible bool
	CreatedAt    time.Time
	ExpiresAt    time.Time
	ConfirmedAt  *time.Time
}

// Why a proposal cannot be confirmed; both wrap outreach.ErrConflict.
var (
	errConfirmed = fmt.Errorf("proposal was already confirmed: %w", outreach.ErrConflict)
	errExpired   = fmt.Errorf("proposal has expired: %w", outreach.ErrConflict)
)

// create stores p with a new id; CreatedAt is set by the database.
func (s *Proposals) create(ctx context.Context, p proposal) (proposal, error) {
	p.ID = outreach.NewID("prp")
	err := s.pool.QueryRow(ctx, `INSERT INTO assistant_proposals
		(id, org_id, proposed_by, tool, arguments, summary, irreversible, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING created_at`,
		p.ID, p.OrgID, p.ProposedBy, p.Tool, p.Arguments, p.Summary, p.Irreversible, p.ExpiresAt).Scan(&p.CreatedAt)
	if err != nil {
		return proposal{}, fmt.Errorf("store proposal: %w", err)
	}
	return p, nil
}

// claim marks an open proposal of orgID confirmed by by, in one statement, so that of two
// confirmations racing exactly one gets it. Unknown ids and other organizations' proposals are
// outreach.ErrNotFound. A confirmed one is errConfirmed and one past its expiry at now errExpired;
// the proposal answered with them holds when it was confirmed (ConfirmedAt) or expired.
func (s *Proposals) claim(ctx context.Context, orgID, id, by string, now time.Time) (proposal, error) {
	p := proposal{ID: id, OrgID: orgID}
	err := s.pool.QueryRow(ctx, `UPDATE assistant_proposals SET confirmed_at = $3, confirmed_by = $4
		WHERE id = $1 AND org_id = $2 AND confirmed_at IS NULL AND expires_at > $3
		RETURNING proposed_by, tool, arguments, summary, irreversible, created_at, expires_at, confirmed_at`,
		id, orgID, now, by).Scan(&p.ProposedBy, &p.Tool, &p.Arguments, &p.Summary, &p.Irreversible, &p.CreatedAt, &p.ExpiresAt, &p.ConfirmedAt)
	if err == nil {
		return p, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return proposal{}, fmt.Errorf("claim proposal %s: %w", id, err)
	}
	err = s.pool.QueryRow(ctx, `SELECT confirmed_at, expires_at FROM assistant_proposals WHERE id = $1 AND org_id = $2`,
		id, orgID).Scan(&p.ConfirmedAt, &p.ExpiresAt)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return proposal{}, outreach.NotFound("proposal %s", id)
	case err != nil:
		return proposal{}, fmt.Errorf("read proposal %s: %w", id, err)
	case p.ConfirmedAt != nil:
		return p, errConfirmed
	default:
		return p, errExpired
	}
}

// finish records the outcome of a claimed proposal: the answer it produced, or the error a
// person reads.
func (s *Proposals) finish(ctx context.Context, id string, result json.RawMessage, errText string) error {
	_, err := s.pool.Exec(ctx, `UPDATE assistant_proposals SET result = $2, error = nullif($3, '') WHERE id = $1`,
		id, result, errText)
	if err != nil {
		return fmt.Errorf("finish proposal %s: %w", id, err)
	}
	return nil
}

// proposalRetention is how long a proposal is kept after it expired, confirmed or not: who
// proposed and who confirmed what stays answerable for a month.
const proposalRetention = 30 * 24 * time.Hour

// Prune deletes the proposals that expired over a month before now; a janitor calls it now and
// then.
func (s *Proposals) Prune(ctx context.Context, now time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM assistant_proposals WHERE expires_at < $1`, now.Add(-proposalRetention))
	if err != nil {
		return 0, fmt.Errorf("prune proposals: %w", err)
	}
	return tag.RowsAffected(), nil
}

// blacklistPresent counts how many of entries (distinct by type and key) are on the
// organization's do-not-contact list already.
func (s *Proposals) blacklistPresent(ctx context.Context, orgID string, entries []storage.BlacklistEntry) (int, error) {
	types, keys := make([]string, len(entries)), make([]string, len(entries))
	for i, e := range entries {
		types[i], keys[i] = e.Type, e.Key
	}
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM unnest($2::text[], $3::text[]) AS u(type, key)
		JOIN blacklist b ON b.org_id = $1 AND b.type = u.type AND b.key = u.key`, orgID, types, keys).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count blacklist entries: %w", err)
	}
	return n, nil
}

// itemBrief is one needs-human item as a proposal describes it.
type itemBrief struct {
	ID           string
	Name         string
	CampaignName string // "" when the item has no campaign
	AIDraft      string
	Resolved     bool
}

// needsHumanItem reads one item of orgID's needs-human queue, open or not; another
// organization's item is outreach.ErrNotFound.
func (s *Proposals) needsHumanItem(ctx context.Context, orgID, id string) (itemBrief, error) {
	b := itemBrief{ID: id}
	err := s.pool.QueryRow(ctx, `SELECT n.name, coalesce(c.name, ''), n.ai_draft, n.resolved_at IS NOT NULL
		FROM needs_human n LEFT JOIN campaigns c ON c.id = n.campaign_id
		WHERE n.id = $1 AND n.org_id = $2`, id, orgID).Scan(&b.Name, &b.CampaignName, &b.AIDraft, &b.Resolved)
	if errors.Is(err, pgx.ErrNoRows) {
		return itemBrief{}, outreach.NotFound("needs-human item %s", id)
	}
	return b, err
}
