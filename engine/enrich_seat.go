package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// Enrichment through the LinkedIn provider: a pushed lead is looked up through a seat of its
// organization (its campaign's seats first). Each look-up is a profile view: it takes the seat's
// next slot and counts against its daily cap, and when no seat may view a profile now the lead
// waits its turn. The member id found is kept on the prospect, so inviting them needs no second
// look-up.

// SeatWait is a look-up that must wait: no seat of the organization may view a profile now (each
// is at its cap, keeping its pace, or down). The lead is looked at again After.
type SeatWait struct {
	After  time.Duration
	Reason string
}

func (w *SeatWait) Error() string {
	return fmt.Sprintf("no LinkedIn seat may look a profile up now (%s); waiting %s", w.Reason, w.After)
}

// EnrichLead looks a pushed lead up through a LinkedIn seat of its organization. A profile the
// provider does not know is PersonLookup{Found: false}; a *SeatWait error when no seat may look
// it up now.
func (e *Engine) EnrichLead(ctx context.Context, l storage.PendingLead) (outreach.PersonLookup, error) {
	if e.li == nil {
		return outreach.PersonLookup{}, ErrNoProvider
	}
	now := e.clock.Now()
	view, acc, wait, err := e.claimView(ctx, l.Prospect, now)
	if err != nil {
		return outreach.PersonLookup{}, err
	}
	if view == nil {
		return outreach.PersonLookup{}, wait
	}
	cctx, cancel := e.callCtx(ctx)
	m, callErr := e.li.LookUpProfile(cctx, acc.ProviderAccountID, profileRef(l.Prospect, nil))
	cancel()
	if ctx.Err() != nil {
		return outreach.PersonLookup{}, ctx.Err()
	}
	r := callResult{viewErr: callErr}
	if callErr == nil {
		r.member = &m
	}
	err = e.store.InTx(ctx, func(tx *storage.Tx) error {
		if err := e.seatTold(ctx, tx, acc.ID, callErr, now); err != nil {
			return err
		}
		p := engineProspect{Prospect: l.Prospect}
		if err := finishView(ctx, tx, view, r, &p, now); err != nil {
			return err
		}
		return cacheMember(ctx, tx, p)
	})
	switch {
	case err != nil:
		return outreach.PersonLookup{}, err
	case errors.Is(callErr, outreach.ErrUnknownProfile):
		return outreach.PersonLookup{}, nil
	case seatDown(callErr):
		return outreach.PersonLookup{}, &SeatWait{After: 15 * time.Minute, Reason: callErr.Error()}
	case callErr != nil:
		return outreach.PersonLookup{}, callErr
	}
	return outreach.PersonLookup{Found: true, Person: personOf(m)}, nil
}

// claimView takes the next slot of the first seat that may view a profile now and records the
// view as started. With none, wait says how long until one may.
func (e *Engine) claimView(ctx context.Context, p storage.Prospect, now time.Time) (*action, storage.LinkedInAccount, *SeatWait, error) {
	ids, err := viewSeats(ctx, e.db, p.OrgID, p.CampaignID)
	if err != nil {
		return nil, storage.LinkedInAccount{}, nil, err
	}
	var next time.Time
	reason := "no connected seat"
	for _, id := range ids {
		var view *action
		var acc storage.LinkedInAccount
		err := e.store.InTx(ctx, func(tx *storage.Tx) error {
			g, err := readSeatGate(ctx, tx, id, now, true)
			if err != nil {
				return err
			}
			a, v, err := e.claim(ctx, tx, g, action{OrgID: p.OrgID, ProspectID: &p.ID, Kind: actView}, false, false, now)
			switch {
			case a != nil:
				view, acc = a, g.acc
			case !v.down && (next.IsZero() || v.wait.Before(next)):
				next, reason = v.wait, "pace"
				if v.capped != "" {
					reason = v.capped
				}
			}
			return err
		})
		if err != nil || view != nil {
			return view, acc, nil, err
		}
	}
	wait := 15 * time.Minute
	if !next.IsZero() {
		wait = max(next.Sub(now), time.Second)
	}
	return nil, storage.LinkedInAccount{}, &SeatWait{After: wait, Reason: reason}, nil
}

// viewSeats lists the seats of an organization that may look people up, the campaign's own
// seats first, then the oldest.
func viewSeats(ctx context.Context, q storage.Querier, orgID, campaignID string) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT a.id FROM linkedin_accounts a
		WHERE a.org_id = $1 AND a.status <> 'disconnected'
		ORDER BY a.id = ANY(coalesce((SELECT c.account_ids FROM campaigns c WHERE c.id = $2), '{}')) DESC, a.created_at, a.id`,
		orgID, campaignID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// cacheMember keeps on a prospect the member id (and handle) a look-up found.
func cacheMember(ctx context.Context, tx pgx.Tx, p engineProspect) error {
	if p.MemberID == nil {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE prospects SET member_id = $2, public_identifier = coalesce(public_identifier, $3)
		WHERE id = $1`, p.ID, p.MemberID, p.PublicIdentifier)
	return err
}

// personOf is the person block a look-up fills: what the provider learned, with the profile's
// headline and company where the block lacks them. The profile's address and handle are the
// service's own, never the provider's.
func personOf(m outreach.MemberProfile) outreach.Person {
	p := m.Person
	if p.Headline == nil && m.Headline != "" {
		p.Headline = &m.Headline
	}
	if p.Company == nil && m.Company != "" {
		p.Company = &m.Company
	}
	p.LinkedInURL, p.PublicIdentifier = nil, nil
	return p
}
