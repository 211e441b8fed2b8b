package storage

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/trace"

	"outreachd/internal/telemetry"
	"outreachd/outreach"
)

// PendingLead is a pushed lead claimed for enrichment, with what deciding it needs.
type PendingLead struct {
	Prospect
	CampaignName string
	Filters      outreach.HardFilters
	// FiltersErr is set when the campaign's stored filters cannot be read; the lead cannot be
	// decided and should be retried.
	FiltersErr error
	// Attempts counts earlier transient failures.
	Attempts int
}

// LeadResolution is what enrichment made of one claimed lead.
type LeadResolution struct {
	ID string
	// Retry leaves the lead pending until RetryAt (a transient failure). Wait does the same
	// without counting a failed attempt (nothing failed: the look-up must wait its turn).
	Retry   bool
	RetryAt time.Time
	Wait    bool
	// Person is the merged person block; EnrichmentStatus done, not_found or failed.
	Person           outreach.Person
	EnrichmentStatus string
	Verdict          outreach.Verdict
}

// enrichLockClass namespaces the session advisory locks EnrichPendingLeads takes on lead ids.
const enrichLockClass = 0x656e72 // "enr"

// EnrichPendingLeads takes up to limit pending pushed leads, oldest first, hands them to
// resolve, and writes the results with their lead_accepted/lead_rejected events in one short
// transaction. It returns how many leads it took.
//
// No transaction is open while resolve runs (an enrichment provider may take seconds): a
// transaction holding the leads' row locks all that time would make every other writer of those
// leads (an outcome, a stop, a block) wait for the provider, and a transaction open that long
// keeps vacuum from reclaiming dead rows anywhere in the database, the delivery queue's among
// them. Instead the leads are taken with session advisory locks on one pooled connection, outside
// any transaction: several instances still share the queue without doing a lead twice, and a
// crash drops the locks with the connection.
// The results are written only to leads still pending, so a lead decided meanwhile (by an
// instance that read it before this one's lock) keeps its first decision and emits nothing more.
func (s *Store) EnrichPendingLeads(ctx context.Context, limit int, resolve func(context.Context, []PendingLead) ([]LeadResolution, error)) (n int, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("enrichment: %w", err)
	}
	locked := false
	defer func() {
		if locked {
			if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock_all()`); err != nil {
				// Never hand back to the pool a connection that may still hold the locks.
				_ = conn.Conn().Close(context.WithoutCancel(ctx))
			}
		}
		conn.Release()
	}()
	leads, err := claimPendingLeads(ctx, conn, limit, &locked)
	if err != nil || len(leads) == 0 {
		return 0, err
	}
	// A span per batch that found leads (an empty poll records none): the enrichment calls and the
	// transaction that records the verdicts and their events.
	ctx, span := s.tracer.Start(ctx, spanEnrichment, trace.WithAttributes(AttrLeads.Int(len(leads))))
	defer func() { telemetry.End(span, err) }()
	results, err := resolve(ctx, leads)
	if err != nil {
		return len(leads), err
	}
	return len(leads), s.recordResolutions(ctx, leads, results)
}

// claimPendingLeads takes up to limit due pending leads with session advisory locks on conn
// and reads them; *locked is set once conn may hold locks (the caller releases them).
func claimPendingLeads(ctx context.Context, conn *pgxpool.Conn, limit int, locked *bool) ([]PendingLead, error) {
	// Twice the batch as candidates, so an instance whose oldest candidates another one holds
	// still finds work.
	var cands []string
	rows, err := conn.Query(ctx, `SELECT id FROM prospects
		WHERE enrichment_status = 'pending' AND pushed AND (enrichment_next_at IS NULL OR enrichment_next_at <= now())
		ORDER BY created_at LIMIT $1`, 2*limit)
	if err != nil {
		return nil, fmt.Errorf("enrichment candidates: %w", err)
	}
	cands, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	*locked = true
	rows, err = conn.Query(ctx, `SELECT id FROM unnest($1::text[]) WITH ORDINALITY AS c(id, n)
		WHERE pg_try_advisory_lock($2, hashtext(id)) ORDER BY n`, cands, enrichLockClass)
	if err != nil {
		return nil, fmt.Errorf("lock enrichment candidates: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("lock enrichment candidates: %w", err)
	}
	if len(ids) > limit {
		ids = ids[:limit] // the extra locks go with the rest at the end
	}
	if len(ids) == 0 {
		return nil, nil
	}
	// Read after locking: a lead decided between the candidates query and the lock is gone.
	rows, err = conn.Query(ctx, `SELECT `+prefixed("p.", ProspectColumns)+`, c.name, c.hard_filters, p.enrichment_attempts
		FROM prospects p JOIN campaigns c ON c.id = p.campaign_id
		WHERE p.id = ANY($1::text[]) AND p.enrichment_status = 'pending'
		ORDER BY p.created_at`, ids)
	if err != nil {
		return nil, fmt.Errorf("read leads: %w", err)
	}
	var leads []PendingLead
	for rows.Next() {
		var l PendingLead
		var raw []byte
		err := rows.Scan(prospectFields(&l.Prospect, &l.CampaignName, &raw, &l.Attempts)...)
		if err != nil {
			rows.Close()
			return nil, err
		}
		l.Filters, l.FiltersErr = outreach.ParseHardFilters(raw)
		leads = append(leads, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return leads, nil
}

// recordResolutions writes what resolve decided, in one transaction with the verdicts' events,
// to the leads that are still pending; a retry only postpones its lead.
func (s *Store) recordResolutions(ctx context.Context, leads []PendingLead, results []LeadResolution) error {
	byID := make(map[string]*PendingLead, len(leads))
	for i := range leads {
		byID[leads[i].ID] = &leads[i]
	}
	var retryIDs []string
	var retryAt []time.Time
	var retryCounts []int
	var u resolvedColumns
	decided := map[string]LeadResolution{}
	for _, r := range results {
		if _, ok := byID[r.ID]; !ok {
			continue
		}
		if r.Retry {
			counts := 1
			if r.Wait {
				counts = 0
			}
			retryIDs, retryAt, retryCounts = append(retryIDs, r.ID), append(retryAt, r.RetryAt), append(retryCounts, counts)
			continue
		}
		u.add(r)
		decided[r.ID] = r
	}
	return s.InTx(ctx, func(tx *Tx) error {
		if len(retryIDs) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE prospects p SET enrichment_attempts = p.enrichment_attempts + u.n, enrichment_next_at = u.at
				FROM unnest($1::text[], $2::timestamptz[], $3::int[]) AS u(id, at, n) WHERE p.id = u.id AND p.enrichment_status = 'pending'`,
				retryIDs, retryAt, retryCounts); err != nil {
				return fmt.Errorf("postpone leads: %w", err)
			}
		}
		if len(u.ids) == 0 {
			return nil
		}
		rows, err := tx.Query(ctx, `UPDATE prospects p SET enrichment_status = u.enr, filter_verdict = u.verdict, filter_reason = u.reason,
			filter_unknown_only = u.unknown_only, role = u.role, company = u.company, industry = u.industry, location = u.location,
			headline = u.headline, company_website = u.website, company_linkedin_url = u.company_url, company_size = u.size,
			follower_count = u.followers, enrichment_next_at = NULL, updated_at = now()
			FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bool[], $6::text[], $7::text[], $8::text[], $9::text[],
				$10::text[], $11::text[], $12::text[], $13::text[], $14::int[])
				AS u(id, enr, verdict, reason, unknown_only, role, company, industry, location, headline, website, company_url, size, followers)
			WHERE p.id = u.id AND p.enrichment_status = 'pending'
			RETURNING p.id`, u.ids, u.enr, u.verdict, u.reason, u.unknownOnly, u.role, u.company, u.industry, u.location,
			u.headline, u.website, u.companyURL, u.size, u.followers)
		if err != nil {
			return fmt.Errorf("record enrichment: %w", err)
		}
		written, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("record enrichment: %w", err)
		}
		done := make(map[string]bool, len(written))
		for _, id := range written {
			done[id] = true
		}
		now := time.Now()
		for _, l := range leads { // in the leads' order
			if done[l.ID] {
				if ev, ok := verdictEvent(l, decided[l.ID], now); ok {
					tx.Emit(ev)
				}
			}
		}
		return nil
	})
}

// resolvedColumns holds decided leads column by column for one UPDATE … FROM unnest.
type resolvedColumns struct {
	ids, enr, verdict                                                              []string
	reason, role, company, industry, location, headline, website, companyURL, size []*string
	unknownOnly                                                                    []bool
	followers                                                                      []*int
}

func (u *resolvedColumns) add(r LeadResolution) {
	var reason *string
	if r.Verdict.Reason != "" {
		reason = &r.Verdict.Reason
	}
	p := r.Person
	u.ids, u.enr, u.verdict = append(u.ids, r.ID), append(u.enr, r.EnrichmentStatus), append(u.verdict, r.Verdict.Verdict)
	u.reason, u.unknownOnly = append(u.reason, reason), append(u.unknownOnly, r.Verdict.UnknownOnly)
	u.role, u.company, u.industry = append(u.role, p.Role), append(u.company, p.Company), append(u.industry, p.Industry)
	u.location, u.headline, u.website = append(u.location, p.Location), append(u.headline, p.Headline), append(u.website, p.CompanyWebsite)
	u.companyURL, u.size, u.followers = append(u.companyURL, p.CompanyLinkedInURL), append(u.size, p.CompanySize), append(u.followers, p.FollowerCount)
}

// verdictEvent is the event of the verdict r reached on l (outreach.NewLeadVerdictEvent), its
// prospect block showing what enrichment learned.
func verdictEvent(l PendingLead, r LeadResolution, at time.Time) (outreach.Event, bool) {
	p := l.Prospect
	p.Person = r.Person
	p.Person.LinkedInURL, p.Person.PublicIdentifier = l.LinkedInURL, l.PublicIdentifier
	batchID := ""
	if p.BatchID != nil {
		batchID = *p.BatchID
	}
	return outreach.NewLeadVerdictEvent(p.OrgID, p.EventBlock(), outreach.CampaignBlock{ID: p.CampaignID, Name: l.CampaignName},
		batchID, r.Verdict, at)
}

// prefixed qualifies every column of a comma-separated list with a table alias.
func prefixed(alias, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = alias + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}
