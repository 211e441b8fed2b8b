package storage

import (
	"context"
	"fmt"

	"outreachd/outreach"
)

// Reads that say what a write would do, by the write's own rules, without writing: the assistant
// shows them in its proposals before a person confirms.

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
