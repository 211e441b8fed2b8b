package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"outreachd/outreach"
)

// leadRow is one prospect row to insert.
type leadRow struct {
	cand                pushCandidate
	camp                campaignRef
	batchID             string
	id, key, linkedinID string
	verdict, enrichment string
	reason              *string
	data                string
}

func newLeadRow(req PushRequest, camp campaignRef, c pushCandidate) leadRow {
	linkedinID := c.profile.PublicIdentifier
	if linkedinID == "" {
		linkedinID = c.profile.MemberID
	}
	data := "{}"
	if len(c.Input.Data) > 0 {
		b, err := json.Marshal(c.Input.Data)
		if err == nil {
			data = string(b)
		}
	}
	return leadRow{cand: c, camp: camp, batchID: req.BatchID, id: outreach.NewID("prs"), key: c.profile.Key,
		linkedinID: linkedinID, verdict: outreach.VerdictPending, enrichment: outreach.EnrichmentPending, data: data}
}

func insertLeads(ctx context.Context, tx *Tx, orgID string, rows []leadRow) (map[string]bool, error) {
	created := map[string]bool{}
	if len(rows) == 0 {
		return created, nil
	}
	n := len(rows)
	ids, keys, lids, names, sources, enr, verdicts := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	reasons, emails, urls, pubIDs, roles, companies, locations, headlines := make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n)
	datas := make([]string, n)
	for i, r := range rows {
		in := r.cand.Input
		ids[i], keys[i], lids[i], names[i], sources[i], enr[i], verdicts[i] = r.id, r.key, r.linkedinID, r.cand.name, r.cand.source, r.enrichment, r.verdict
		reasons[i], emails[i], urls[i], pubIDs[i] = r.reason, nonEmpty(in.Email), nonEmpty(r.cand.profile.URL), nonEmpty(r.cand.profile.PublicIdentifier)
		roles[i], companies[i], locations[i], headlines[i] = nonEmpty(in.Title), nonEmpty(in.Company), nonEmpty(in.Location), nonEmpty(in.Headline)
		datas[i] = r.data
	}
	q, err := tx.Query(ctx, `
		INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, name, status, source, pushed, batch_id,
			enrichment_status, filter_verdict, filter_reason, email, data, linkedin_url, public_identifier,
			role, company, location, headline)
		SELECT u.id, $1, $2, u.key, u.lid, u.name, 'pending', u.source, true, $3,
			u.enr, u.verdict, u.reason, u.email, u.data::jsonb, u.url, u.pub, u.role, u.company, u.location, u.headline
		FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
			$12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[])
			AS u(id, key, lid, name, source, enr, verdict, reason, email, data, url, pub, role, company, location, headline)
		ON CONFLICT (campaign_id, lead_key) DO NOTHING
		RETURNING lead_key`,
		orgID, rows[0].camp.id, rows[0].batchID,
		ids, keys, lids, names, sources, enr, verdicts, reasons, emails, datas, urls, pubIDs, roles, companies, locations, headlines)
	if err != nil {
		return nil, fmt.Errorf("insert leads: %w", err)
	}
	defer q.Close()
	for q.Next() {
		var k string
		if err := q.Scan(&k); err != nil {
			return nil, err
		}
		created[k] = true
	}
	return created, q.Err()
}

// event is prospect_added for a new pending lead, or lead_rejected for a lead the filters
// refused at push time (its verdict is final, and an intake URL's sender reads no response).
func (r leadRow) event(orgID string) outreach.Event {
	in := r.cand.Input
	pb := &outreach.ProspectBlock{Name: r.cand.name, LinkedInURL: r.cand.profile.URL, LinkedInID: r.linkedinID, LeadID: r.id,
		Company: strings.TrimSpace(in.Company), JobTitle: strings.TrimSpace(in.Title), Location: strings.TrimSpace(in.Location),
		Headline: strings.TrimSpace(in.Headline)}
	cb := &outreach.CampaignBlock{ID: r.camp.id, Name: r.camp.name}
	now := time.Now()
	if r.verdict == outreach.VerdictRejected {
		return outreach.NewEvent(outreach.EventLeadRejected, orgID, now, outreach.EventData{Prospect: pb, Campaign: cb,
			Lead: &outreach.LeadBlock{BatchID: r.batchID, Reason: *r.reason}})
	}
	return outreach.NewEvent(outreach.EventProspectAdded, orgID, now, outreach.EventData{Prospect: pb, Campaign: cb})
}

func nonEmpty(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}

// clip keeps an echoed input short: a rejection names the input, it need not repeat 2 KB of it.
func clip(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
