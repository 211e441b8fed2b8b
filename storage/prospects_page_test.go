package storage_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"outreachd/internal/testenv"
	"outreachd/storage"
)

// ListProspects pages (a deferred join) must tile the matching rows exactly: every page in
// order, newest first with id breaking ties, no row twice or missing, at any offset, with and
// without filters.
func TestListProspectsPagesTile(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org, _ := st.CreateOrg(ctx, "A", nil)
	other, _ := st.CreateOrg(ctx, "B", nil)
	for _, c := range []struct{ org, id string }{{org.ID, "cmp_t1"}, {org.ID, "cmp_t2"}, {other.ID, "cmp_o1"}} {
		pcExec(t, st, `INSERT INTO campaigns (id, org_id, name, schedule) VALUES ($1, $2, $1, '{}')`, c.id, c.org)
	}
	// Ties on created_at (ten rows per second) so the id tie-break is exercised.
	for _, c := range []struct{ org, id string }{{org.ID, "cmp_t1"}, {org.ID, "cmp_t2"}, {other.ID, "cmp_o1"}} {
		pcExec(t, st, `INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, source, status, created_at)
			SELECT $2 || '_' || lpad(g::text, 4, '0'), $1, $2, $2 || '_k' || g, 'li', 'api',
			       (ARRAY['pending', 'connected', 'replied'])[1 + g % 3], '2026-01-01'::timestamptz + (g / 10) * interval '1 second'
			  FROM generate_series(1, 237) g`, c.org, c.id)
	}
	want := func(q storage.ProspectQuery) []string {
		rows, err := st.Pool().Query(ctx, `SELECT id FROM prospects WHERE org_id = $1 AND ($2 = '' OR campaign_id = $2)
			AND ($3 = '' OR status = $3) ORDER BY created_at DESC, id DESC`, org.ID, q.CampaignID, q.Status)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	for _, q := range []storage.ProspectQuery{{}, {CampaignID: "cmp_t2"}, {Status: "connected"}, {CampaignID: "cmp_t1", Status: "replied"}, {CampaignID: "cmp_o1"}} {
		t.Run(fmt.Sprintf("campaign=%s,status=%s", q.CampaignID, q.Status), func(t *testing.T) {
			exp := want(q)
			var got []string
			for q.Limit, q.Offset = 50, 0; ; q.Offset += q.Limit {
				ps, total, err := st.ListProspects(ctx, org.ID, q)
				if err != nil {
					t.Fatal(err)
				}
				if total != len(exp) {
					t.Fatalf("offset %d: total %d, want %d", q.Offset, total, len(exp))
				}
				if len(ps) == 0 {
					break
				}
				for _, p := range ps {
					got = append(got, p.ID)
				}
			}
			if !slices.Equal(got, exp) {
				t.Fatalf("pages give %d ids %v…, want %d %v…", len(got), head(got), len(exp), head(exp))
			}
		})
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }
