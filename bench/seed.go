package bench

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
)

// SeedStatuses is the status mix of seeded prospects, in parts per hundred: a campaign that has
// been running for a while, most people still waiting or invited.
var SeedStatuses = []struct {
	Status string
	Parts  int
}{
	{"pending", 40}, {"connection_sent", 20}, {"connected", 12}, {"messaged", 10},
	{"replied", 8}, {"active", 5}, {"completed", 3}, {"opted_out", 2},
}

// seedStatus returns the status of the i-th seeded prospect (a fixed, interleaved pattern, so
// every page of a listing holds a mix).
func seedStatus(i int) string {
	k := i % 100
	for _, s := range SeedStatuses {
		if k < s.Parts {
			return s.Status
		}
		k -= s.Parts
	}
	return "pending"
}

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// idAt is outreach.NewID for a given time, so seeded ids sort like their created_at.
func idAt(prefix string, t time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(t.UnixMilli())<<16)
	_, _ = rand.Read(b[6:])
	return prefix + "_" + idEncoding.EncodeToString(b[:])
}

// SeedProspects writes n prospects into a campaign of orgID with one COPY, as if they had been
// pushed and enriched over the past 30 days: every person-block field filled, enrichment done,
// verdict accepted, statuses mixed as SeedStatuses says. The trigger-kept prospect counts see
// the rows like any other insert. The enrichment worker has nothing to do for them, so a
// benchmark that follows measures its own load only. Seeding the same campaign twice fails on
// the (campaign, lead key) constraint rather than silently doubling.
func SeedProspects(ctx context.Context, dbURL, orgID, campaignID string, n int) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("seed: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	now := time.Now().UTC()
	span := 30 * 24 * time.Hour
	suffix := campaignID[len(campaignID)-8:]
	industries := []string{"Software", "Financial Services", "Marketing", "Manufacturing", "Health Care"}
	sizes := []string{"1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000"}
	rows := make([][]any, n)
	for i := range n {
		at := now.Add(-span + time.Duration(int64(span)*int64(i)/int64(n)))
		handle := fmt.Sprintf("seed-%s-%06d", suffix, i)
		company := fmt.Sprintf("Company %d", i%5000)
		rows[i] = []any{
			idAt("prs", at), orgID, campaignID, "in:" + handle, handle,
			fmt.Sprintf("Seeded Person %d", i), seedStatus(i), i % 4, "api", true,
			"done", "accepted", seedStatus(i) != "pending",
			"https://www.linkedin.com/in/" + handle, handle,
			"Head of Growth", company, industries[i%len(industries)], "Berlin, Germany",
			"Helping B2B teams grow pipeline", fmt.Sprintf("https://company%d.example", i%5000),
			fmt.Sprintf("https://www.linkedin.com/company/company-%d", i%5000), sizes[i%len(sizes)], 100 + i%9000,
			at, at,
		}
	}
	cols := []string{"id", "org_id", "campaign_id", "lead_key", "linkedin_id",
		"name", "status", "current_step", "source", "pushed",
		"enrichment_status", "filter_verdict", "contacted",
		"linkedin_url", "public_identifier",
		"role", "company", "industry", "location",
		"headline", "company_website",
		"company_linkedin_url", "company_size", "follower_count",
		"created_at", "updated_at"}
	got, err := conn.CopyFrom(ctx, pgx.Identifier{"prospects"}, cols, pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("seed: copy prospects: %w", err)
	}
	if got != int64(n) {
		return fmt.Errorf("seed: copied %d of %d prospects", got, n)
	}
	// Statistics and a visibility map as autovacuum would have left them on a table that grew
	// over 30 days (index-only scans depend on the latter).
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE prospects`); err != nil {
		return fmt.Errorf("seed: vacuum: %w", err)
	}
	// Write the seed's dirty pages out now, as the 30 days would have: otherwise the next
	// checkpoint writes tens of megabytes in the middle of the first measurement (its p99 was 1.5–10×
	// the other variants'). Needs a superuser or pg_checkpoint; without it the seed stays as is.
	if _, err := conn.Exec(ctx, `CHECKPOINT`); err != nil {
		fmt.Fprintf(os.Stderr, "seed: checkpoint skipped: %v\n", err)
	}
	return nil
}
