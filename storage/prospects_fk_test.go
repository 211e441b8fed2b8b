package storage_test

import (
	"context"
	"testing"

	"outreachd/internal/testenv"
)

// Migration 005 replaced the two single-column foreign keys of prospects by one to
// campaigns (id, org_id): a prospect filed under another organization than its campaign's is
// refused, and deleting a campaign or an organization still deletes its prospects.
func TestProspectsCampaignOrgKey(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	orgA, _ := st.CreateOrg(ctx, "A", nil)
	orgB, _ := st.CreateOrg(ctx, "B", nil)
	for _, c := range []struct{ org, id string }{{orgA.ID, "cmp_k1"}, {orgB.ID, "cmp_k2"}} {
		pcExec(t, st, `INSERT INTO campaigns (id, org_id, name, schedule) VALUES ($1, $2, $1, '{}')`, c.id, c.org)
	}
	insert := `INSERT INTO prospects (id, org_id, campaign_id, lead_key, linkedin_id, source) VALUES ($1, $2, $3, $1, 'li', 'api')`
	for _, c := range []struct {
		name, id, org, campaign string
		ok                      bool
	}{
		{"own campaign", "p1", orgA.ID, "cmp_k1", true},
		{"campaign of another organization", "p2", orgB.ID, "cmp_k1", false},
		{"no such campaign", "p3", orgA.ID, "cmp_none", false},
		{"no such organization", "p4", "org_none", "cmp_k1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := st.Pool().Exec(ctx, insert, c.id, c.org, c.campaign)
			if (err == nil) != c.ok {
				t.Fatalf("insert: %v, want ok=%v", err, c.ok)
			}
		})
	}
	pcExec(t, st, insert, "p5", orgB.ID, "cmp_k2")
	for _, c := range []struct{ name, del, gone string }{
		{"campaign deleted", `DELETE FROM campaigns WHERE id = 'cmp_k1'`, "p1"},
		{"organization deleted", `DELETE FROM orgs WHERE id = '` + orgB.ID + `'`, "p5"},
	} {
		pcExec(t, st, c.del)
		var n int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM prospects WHERE id = $1`, c.gone).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%s: prospect %s still there (%d, %v)", c.name, c.gone, n, err)
		}
	}
	if kept, real := pcCounts(t, st); len(kept) != 0 || len(real) != 0 {
		t.Fatalf("counters %v, real %v after every prospect was deleted", kept, real)
	}
}
