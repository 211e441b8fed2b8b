package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"outreachd/outreach"
)

// PushLead is one lead of a push, with its position in the caller's request (the index a
// rejection of duplicate_in_request points back to).
type PushLead struct {
	Index int
	Input outreach.LeadInput
}

// PushRequest is one call of POST /campaigns/{id}/leads or of an intake URL.
type PushRequest struct {
	OrgID         string
	CampaignID    string
	BatchID       string
	DefaultSource string // used when a lead has no Source of its own
	Leads         []PushLead
}

// PushResult is what a push did, leads in request order.
type PushResult struct {
	BatchID    string
	CampaignID string
	Accepted   []outreach.AcceptedLead
	Rejected   []outreach.RejectedLead
	// Duplicates counts the accepted leads that already existed (Created false).
	Duplicates int
}

func (r *PushResult) add(a outreach.PushAnswer) {
	switch {
	case a.Rejected != nil:
		r.Rejected = append(r.Rejected, *a.Rejected)
	case a.Accepted != nil:
		r.Accepted = append(r.Accepted, *a.Accepted)
		if !a.Accepted.Created {
			r.Duplicates++
		}
	}
}

// PushLeads adds leads to a campaign in one transaction: either every accepted lead, every
// hard-filter rejection and their events are written, or nothing is. The rules of a push and
// their order are the domain's (outreach.PushScreen, outreach.DecidePushLead); this asks the
// database what they need to know and writes what they decide, in a fixed number of statements
// whatever the number of leads.
func (s *Store) PushLeads(ctx context.Context, req PushRequest) (PushResult, error) {
	var res PushResult
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		res, err = PushLeadsInTx(ctx, tx, req)
		return err
	})
	if err != nil {
		return PushResult{}, fmt.Errorf("push leads to %s: %w", req.CampaignID, err)
	}
	return res, nil
}

// PushLeadsInTx is PushLeads inside the caller's transaction, for a caller that records what the
// push did in the same transaction (the application's import of a file, its progress).
func PushLeadsInTx(ctx context.Context, tx *Tx, req PushRequest) (PushResult, error) {
	res := PushResult{BatchID: req.BatchID, CampaignID: req.CampaignID}
	cands, refused := screenPush(req)
	for _, a := range refused {
		res.add(a)
	}
	// The lookups (reads) come before the campaign's row lock, so the row is locked for the
	// writes only: a status change of the campaign (FOR UPDATE) waits for the pushes in
	// flight, and then only for their writes. The lock never protected the lookups from
	// concurrent pushes (it is FOR SHARE); those races are settled by the unique keys below.
	var known pushKnown
	if len(cands) > 0 {
		var err error
		if known, err = pushLookups(ctx, tx, req.OrgID, req.CampaignID, cands); err != nil {
			return res, err
		}
	}
	camp, filters, err := lockOpenCampaign(ctx, tx, req.OrgID, req.CampaignID)
	if err != nil {
		return res, err
	}
	if len(cands) == 0 {
		sortByIndex(&res)
		return res, nil
	}
	var inserts []leadRow
	for _, c := range cands {
		d := outreach.DecidePushLead(c, known.facts(c), filters)
		if d.Save == nil {
			res.add(d.Answer)
			continue
		}
		inserts = append(inserts, newLeadRow(c, *d.Save))
	}
	created, err := insertLeads(ctx, tx, req.OrgID, camp.ID, req.BatchID, inserts)
	if err != nil {
		return res, err
	}
	var lost []string // keys another transaction inserted first
	now := time.Now()
	for _, row := range inserts {
		if !created[row.cand.Profile.Key] {
			lost = append(lost, row.cand.Profile.Key)
			continue
		}
		res.add(row.save.Answer(row.cand, row.id))
		tx.Emit(row.save.Event(req.OrgID, row.cand, row.id, req.BatchID, camp, now))
	}
	if len(lost) > 0 {
		held, err := heldLeads(ctx, tx, req.CampaignID, lost)
		if err != nil {
			return res, err
		}
		for _, row := range inserts {
			if !created[row.cand.Profile.Key] {
				res.add(held[row.cand.Profile.Key].Answer(row.cand))
			}
		}
	}
	sortByIndex(&res)
	return res, nil
}

// screenPush applies the rules of a push that need no database to req's leads: the candidates
// that pass them, and the answers for those they refuse, in request order.
func screenPush(req PushRequest) ([]outreach.PushCandidate, []outreach.PushAnswer) {
	var cands []outreach.PushCandidate
	var refused []outreach.PushAnswer
	screen := outreach.NewPushScreen(req.DefaultSource)
	for _, l := range req.Leads {
		c, a, ok := screen.Screen(l.Index, l.Input)
		if !ok {
			refused = append(refused, a)
			continue
		}
		cands = append(cands, c)
	}
	return cands, refused
}

// lockOpenCampaign reads the campaign for a push and holds it FOR SHARE, so a status change to
// completed or archived waits for pushes in flight and no lead lands after it.
func lockOpenCampaign(ctx context.Context, tx *Tx, orgID, campaignID string) (outreach.CampaignBlock, outreach.HardFilters, error) {
	var c outreach.CampaignBlock
	var status outreach.CampaignStatus
	var raw []byte
	err := tx.QueryRow(ctx, `SELECT id, name, status, hard_filters FROM campaigns WHERE id = $1 AND org_id = $2 FOR SHARE`,
		campaignID, orgID).Scan(&c.ID, &c.Name, &status, &raw)
	if err != nil {
		return c, outreach.HardFilters{}, notFound(err, "campaign "+campaignID)
	}
	if status.Closed() {
		return c, outreach.HardFilters{}, fmt.Errorf("campaign %s is %s and cannot take new leads: %w", campaignID, status, outreach.ErrCampaignClosed)
	}
	f, err := outreach.ParseHardFilters(raw)
	if err != nil {
		return c, outreach.HardFilters{}, fmt.Errorf("stored filters of campaign %s: %v", campaignID, err) // not the client's fault: 500
	}
	return c, f, nil
}

// pushKnown is what the database answered about a push's leads, by lead key.
type pushKnown struct {
	blacklist map[string]bool // type + "|" + key
	other     map[string]outreach.CampaignBlock
	held      map[string]outreach.HeldLead
}

// facts is what the rules of a push may know of c.
func (k pushKnown) facts(c outreach.PushCandidate) outreach.PushFacts {
	f := outreach.PushFacts{Listed: func(typ, key string) bool { return k.blacklist[typ+"|"+key] }}
	if o, ok := k.other[c.Profile.Key]; ok {
		f.Other = &o
	}
	if h, ok := k.held[c.Profile.Key]; ok {
		f.Held = &h
	}
	return f
}

// pushLookups answers, in one statement, every question the rules ask the database about the
// call's leads: do-not-contact hits, other live campaigns holding the same person, and leads
// this campaign already holds. Each branch is driven by the call's keys (unnest) into a unique or
// (org_id, lead_key) index; the other-campaign and own-campaign branches look each key up behind
// an OFFSET 0 fence. Written as "org_id = $1 AND key = ANY($2)", or as a plain join the planner
// may reorder, a plan made on the statistics of a table that had just grown scanned the whole
// organization, hundreds of times slower than the fenced lookups (measured with generic plans:
// docs/performance.md, "The API push path"). The own-campaign branch is fenced the same way as a
// guard (no bad plan of it was seen).
func pushLookups(ctx context.Context, tx *Tx, orgID, campaignID string, cands []outreach.PushCandidate) (pushKnown, error) {
	keys := make([]string, 0, len(cands))
	var companies []string
	for _, c := range cands {
		keys = append(keys, c.Profile.Key)
		companies = append(companies, c.Company...)
	}
	rows, err := tx.Query(ctx, `
		SELECT 'blacklist', b.type || '|' || b.key, '', '', '', '', NULL::text
		  FROM unnest($2::text[]) k(key) JOIN blacklist b ON b.org_id = $1 AND b.type = 'account' AND b.key = k.key
		UNION ALL
		SELECT 'blacklist', b.type || '|' || b.key, '', '', '', '', NULL::text
		  FROM unnest($3::text[]) k(key) JOIN blacklist b ON b.org_id = $1 AND b.type = 'company' AND b.key = k.key
		UNION ALL
		SELECT 'other', p.lead_key, c.id, c.name, '', '', NULL
		  FROM unnest($2::text[]) k(key)
		  CROSS JOIN LATERAL (SELECT x.lead_key, x.campaign_id FROM prospects x
		       WHERE x.org_id = $1 AND x.lead_key = k.key AND x.campaign_id <> $4
		         AND x.status NOT IN ('opted_out', 'completed') AND x.filter_verdict <> 'rejected'
		       OFFSET 0) p
		  JOIN campaigns c ON c.id = p.campaign_id
		 WHERE c.status IN ('draft', 'active', 'paused')
		UNION ALL
		SELECT 'own', p.lead_key, p.id, p.linkedin_id, p.name, p.filter_verdict || '|' || p.enrichment_status, p.filter_reason
		  FROM unnest($2::text[]) k(key)
		  CROSS JOIN LATERAL (SELECT x.lead_key, x.id, x.linkedin_id, x.name, x.filter_verdict, x.enrichment_status, x.filter_reason
		       FROM prospects x WHERE x.campaign_id = $4 AND x.lead_key = k.key OFFSET 0) p`,
		orgID, keys, companies, campaignID)
	if err != nil {
		return pushKnown{}, fmt.Errorf("lead checks: %w", err)
	}
	defer rows.Close()
	k := pushKnown{blacklist: map[string]bool{}, other: map[string]outreach.CampaignBlock{}, held: map[string]outreach.HeldLead{}}
	for rows.Next() {
		var kind, key, a, b, c, d string
		var reason *string
		if err := rows.Scan(&kind, &key, &a, &b, &c, &d, &reason); err != nil {
			return pushKnown{}, err
		}
		switch kind {
		case "blacklist":
			k.blacklist[key] = true
		case "other":
			if _, dup := k.other[key]; !dup {
				k.other[key] = outreach.CampaignBlock{ID: a, Name: b}
			}
		case "own":
			verdict, enr, _ := strings.Cut(d, "|")
			k.held[key] = outreach.HeldLead{ID: a, LinkedInID: b, Name: c, Verdict: verdict, Enrichment: enr, Reason: reason}
		}
	}
	return k, rows.Err()
}

// heldLeads reads the leads the campaign holds under keys.
func heldLeads(ctx context.Context, tx *Tx, campaignID string, keys []string) (map[string]outreach.HeldLead, error) {
	rows, err := tx.Query(ctx, `SELECT lead_key, id, linkedin_id, name, filter_verdict, enrichment_status, filter_reason
		FROM prospects WHERE campaign_id = $1 AND lead_key = ANY($2)`, campaignID, keys)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]outreach.HeldLead{}
	for rows.Next() {
		var key string
		var h outreach.HeldLead
		if err := rows.Scan(&key, &h.ID, &h.LinkedInID, &h.Name, &h.Verdict, &h.Enrichment, &h.Reason); err != nil {
			return nil, err
		}
		out[key] = h
	}
	return out, rows.Err()
}

func sortByIndex(r *PushResult) {
	// Both lists were built in a few passes; restore request order.
	slices.SortStableFunc(r.Accepted, func(a, b outreach.AcceptedLead) int { return a.Index - b.Index })
	slices.SortStableFunc(r.Rejected, func(a, b outreach.RejectedLead) int { return a.Index - b.Index })
}
