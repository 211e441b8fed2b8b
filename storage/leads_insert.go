package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"outreachd/outreach"
)

// leadRow is one prospect row a push inserts, as the domain decided to save it.
type leadRow struct {
	cand outreach.PushCandidate
	save outreach.NewLead
	id   string
	data string // the lead's data as JSON
}

func newLeadRow(c outreach.PushCandidate, save outreach.NewLead) leadRow {
	data := "{}"
	if len(c.Input.Data) > 0 {
		b, err := json.Marshal(c.Input.Data)
		if err == nil {
			data = string(b)
		}
	}
	return leadRow{cand: c, save: save, id: outreach.NewID("prs"), data: data}
}

// insertLeads inserts rows into the campaign in one statement and returns the lead keys it
// inserted: a key another transaction inserted first is left out.
func insertLeads(ctx context.Context, tx *Tx, orgID, campaignID, batchID string, rows []leadRow) (map[string]bool, error) {
	created := map[string]bool{}
	if len(rows) == 0 {
		return created, nil
	}
	n := len(rows)
	ids, keys, lids, names, sources, enr, verdicts := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	reasons, emails, urls, pubIDs, roles, companies, locations, headlines := make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n)
	datas := make([]string, n)
	for i, r := range rows {
		in, c := r.cand.Input, r.cand
		ids[i], keys[i], lids[i], names[i], sources[i], enr[i], verdicts[i] = r.id, c.Profile.Key, c.LinkedInID(), c.Name, c.Source, r.save.Enrichment, r.save.Verdict
		emails[i], urls[i], pubIDs[i] = nonEmpty(in.Email), nonEmpty(c.Profile.URL), nonEmpty(c.Profile.PublicIdentifier)
		if r.save.Reason != "" {
			reasons[i] = &r.save.Reason
		}
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
		orgID, campaignID, batchID,
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

func nonEmpty(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}
