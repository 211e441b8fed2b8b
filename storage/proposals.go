package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// Proposal is a change the assistant server was asked for and has not made: what it would do,
// for which organization, asked by whom. confirm_proposal claims it once (ClaimProposal).
type Proposal struct {
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
	ErrProposalConfirmed = fmt.Errorf("proposal was already confirmed: %w", outreach.ErrConflict)
	ErrProposalExpired   = fmt.Errorf("proposal has expired: %w", outreach.ErrConflict)
)

// CreateProposal stores p with a new id; CreatedAt is set by the database.
func (s *Store) CreateProposal(ctx context.Context, p Proposal) (Proposal, error) {
	p.ID = outreach.NewID("prp")
	err := s.pool.QueryRow(ctx, `INSERT INTO assistant_proposals
		(id, org_id, proposed_by, tool, arguments, summary, irreversible, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING created_at`,
		p.ID, p.OrgID, p.ProposedBy, p.Tool, p.Arguments, p.Summary, p.Irreversible, p.ExpiresAt).Scan(&p.CreatedAt)
	if err != nil {
		return Proposal{}, fmt.Errorf("store proposal: %w", err)
	}
	return p, nil
}

// ClaimProposal marks an open proposal of orgID confirmed by by, in one statement, so that of
// two confirmations racing exactly one gets it. Unknown ids and other organizations' proposals
// are outreach.ErrNotFound; a confirmed one ErrProposalConfirmed; one past its expiry at now
// ErrProposalExpired.
func (s *Store) ClaimProposal(ctx context.Context, orgID, id, by string, now time.Time) (Proposal, error) {
	p := Proposal{ID: id, OrgID: orgID}
	err := s.pool.QueryRow(ctx, `UPDATE assistant_proposals SET confirmed_at = $3, confirmed_by = $4
		WHERE id = $1 AND org_id = $2 AND confirmed_at IS NULL AND expires_at > $3
		RETURNING proposed_by, tool, arguments, summary, irreversible, created_at, expires_at, confirmed_at`,
		id, orgID, now, by).Scan(&p.ProposedBy, &p.Tool, &p.Arguments, &p.Summary, &p.Irreversible, &p.CreatedAt, &p.ExpiresAt, &p.ConfirmedAt)
	if err == nil {
		return p, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return Proposal{}, fmt.Errorf("claim proposal %s: %w", id, err)
	}
	var confirmedAt *time.Time
	var expiresAt time.Time
	err = s.pool.QueryRow(ctx, `SELECT confirmed_at, expires_at FROM assistant_proposals WHERE id = $1 AND org_id = $2`,
		id, orgID).Scan(&confirmedAt, &expiresAt)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Proposal{}, outreach.NotFound("proposal %s", id)
	case err != nil:
		return Proposal{}, fmt.Errorf("read proposal %s: %w", id, err)
	case confirmedAt != nil:
		return Proposal{}, fmt.Errorf("%w at %s", ErrProposalConfirmed, outreach.FormatTime(*confirmedAt))
	default:
		return Proposal{}, fmt.Errorf("%w at %s", ErrProposalExpired, outreach.FormatTime(expiresAt))
	}
}

// FinishProposal records the outcome of a claimed proposal: the answer it produced, or the
// error a person reads.
func (s *Store) FinishProposal(ctx context.Context, id string, result json.RawMessage, errText string) error {
	_, err := s.pool.Exec(ctx, `UPDATE assistant_proposals SET result = $2, error = nullif($3, '') WHERE id = $1`,
		id, result, errText)
	if err != nil {
		return fmt.Errorf("finish proposal %s: %w", id, err)
	}
	return nil
}

// ProposalRetention is how long a proposal is kept after it expired, confirmed or not: who
// proposed and who confirmed what stays answerable for a month.
const ProposalRetention = 30 * 24 * time.Hour

// PruneProposals deletes proposals that expired before cutoff; a janitor calls it now and then.
func (s *Store) PruneProposals(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM assistant_proposals WHERE expires_at < $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("prune proposals: %w", err)
	}
	return tag.RowsAffected(), nil
}

// PushPreview is what POST /campaigns/{id}/leads would do with a list of leads, counted by the
// push's own rules, without writing anything.
type PushPreview struct {
	CampaignName      string
	CampaignStatus    string
	New               int // would be added (FilteredOut of them saved as rejected by the hard filters)
	FilteredOut       int
	AlreadyThere      int
	Blacklisted       int
	InAnotherCampaign int
	Invalid           int // not a LinkedIn profile, or the same person twice in the list
}

// PreviewPush counts what PushLeads would do with req now. The rules are PushLeads' own
// (screenPush, pushLookups, outreach.DecidePushLead); a campaign of another organization is
// outreach.ErrNotFound, a closed one outreach.ErrCampaignClosed.
func (s *Store) PreviewPush(ctx context.Context, req PushRequest) (PushPreview, error) {
	var pv PushPreview
	cands, refused := screenPush(req)
	pv.Invalid = len(refused)
	var raw []byte
	err := s.pool.QueryRow(ctx, `SELECT name, status, hard_filters FROM campaigns WHERE id = $1 AND org_id = $2`,
		req.CampaignID, req.OrgID).Scan(&pv.CampaignName, &pv.CampaignStatus, &raw)
	if err != nil {
		return pv, notFound(err, "campaign "+req.CampaignID)
	}
	if outreach.CampaignStatus(pv.CampaignStatus).Closed() {
		return pv, fmt.Errorf("campaign %s is %s and cannot take new leads: %w", req.CampaignID, pv.CampaignStatus, outreach.ErrCampaignClosed)
	}
	filters, err := outreach.ParseHardFilters(raw)
	if err != nil {
		return pv, fmt.Errorf("stored filters of campaign %s: %v", req.CampaignID, err)
	}
	if len(cands) == 0 {
		return pv, nil
	}
	err = s.InTx(ctx, func(tx *Tx) error {
		known, err := pushLookups(ctx, tx, req.OrgID, req.CampaignID, cands)
		if err != nil {
			return err
		}
		for _, c := range cands {
			d := outreach.DecidePushLead(c, known.facts(c), filters)
			switch {
			case d.Save != nil:
				pv.New++
				if d.Save.Verdict == outreach.VerdictRejected {
					pv.FilteredOut++
				}
			case d.Answer.Rejected != nil && d.Answer.Rejected.Reason == outreach.RejectBlacklisted:
				pv.Blacklisted++
			case d.Answer.Rejected != nil && d.Answer.Rejected.Reason == outreach.RejectInAnotherCampaign:
				pv.InAnotherCampaign++
			default: // a lead the campaign holds
				pv.AlreadyThere++
			}
		}
		return nil
	})
	return pv, err
}

// BlacklistPresent counts how many of entries (distinct by type and key) are on the
// organization's do-not-contact list already.
func (s *Store) BlacklistPresent(ctx context.Context, orgID string, entries []BlacklistEntry) (int, error) {
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

// KnownPerson is what the organization holds of one person named by a PersonRef: a name from
// one of their leads ("" when none) and how many leads and conversations are theirs.
type KnownPerson struct {
	Name          string
	Prospects     int
	Conversations int
}

// KnowPeople looks refs up the way POST /inbox/stop and /inbox/block match people, reading only.
func (s *Store) KnowPeople(ctx context.Context, orgID string, refs []PersonRef) ([]KnownPerson, error) {
	out := make([]KnownPerson, len(refs))
	err := s.InTx(ctx, func(tx *Tx) error {
		for i, ref := range refs {
			m, err := matchPerson(ctx, tx, orgID, ref)
			if err != nil {
				return err
			}
			out[i] = KnownPerson{Prospects: len(m.prospects), Conversations: len(m.chats)}
			if len(m.prospects) > 0 {
				if err := tx.QueryRow(ctx, `SELECT name FROM prospects WHERE id = $1`, m.prospects[0]).Scan(&out[i].Name); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("look people up: %w", err)
	}
	return out, nil
}

// NeedsHumanBrief is one needs-human item as a proposal describes it.
type NeedsHumanBrief struct {
	ID           string
	Name         string
	CampaignName string // "" when the item has no campaign
	AIDraft      string
	Resolved     bool
}

// GetNeedsHumanBrief reads one item of orgID's needs-human queue, open or not; another
// organization's item is outreach.ErrNotFound.
func (s *Store) GetNeedsHumanBrief(ctx context.Context, orgID, id string) (NeedsHumanBrief, error) {
	b := NeedsHumanBrief{ID: id}
	err := s.pool.QueryRow(ctx, `SELECT n.name, coalesce(c.name, ''), n.ai_draft, n.resolved_at IS NOT NULL
		FROM needs_human n LEFT JOIN campaigns c ON c.id = n.campaign_id
		WHERE n.id = $1 AND n.org_id = $2`, id, orgID).Scan(&b.Name, &b.CampaignName, &b.AIDraft, &b.Resolved)
	if err != nil {
		return NeedsHumanBrief{}, notFound(err, "needs-human item "+id)
	}
	return b, nil
}
