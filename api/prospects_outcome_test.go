package api_test

import (
	"testing"
)

// TestProspectOutcomeIsReadable: outcomes marked with PATCH /prospects/{id} show on prospect
// reads (null when none) and are counted in GET /analytics.
func TestProspectOutcomeIsReadable(t *testing.T) {
	t.Parallel()
	e := newLeadEnv(t)
	camp := e.campaign(t, nil)
	r := e.push(t, camp, []map[string]any{lead("out-ann"), lead("out-bob"), lead("out-cy"), lead("out-dee")})
	wantStatus(t, r, 202)
	var ids []string
	for _, a := range list(r.JSON["accepted"]) {
		ids = append(ids, a["lead_id"].(string))
	}
	outcome := func(id string) any {
		t.Helper()
		g := e.org.Read.Do(t, "GET", "/api/v1/prospects/"+id, nil)
		wantStatus(t, g, 200)
		d := g.JSON["data"].(map[string]any)
		v, ok := d["outcome"]
		if !ok {
			t.Fatalf("prospect read has no outcome field: %s", g.Body)
		}
		return v
	}
	if o := outcome(ids[0]); o != nil {
		t.Fatalf("outcome before any mark = %v, want null", o)
	}
	mark := func(id, o string) {
		t.Helper()
		wantStatus(t, e.org.Write.Do(t, "PATCH", "/api/v1/prospects/"+id, map[string]any{"outcome": o}), 200)
	}
	mark(ids[0], "interested")
	if o := outcome(ids[0]); o != "interested" {
		t.Fatalf("outcome = %v, want interested", o)
	}
	mark(ids[0], "lost") // lost wins over interested
	mark(ids[1], "interested")
	mark(ids[2], "booked")
	mark(ids[3], "booked")
	mark(ids[3], "converted")
	want := map[string]any{ids[0]: "lost", ids[1]: "interested", ids[2]: "booked", ids[3]: "converted"}
	for id, o := range want {
		if got := outcome(id); got != o {
			t.Errorf("outcome of %s = %v, want %v", id, got, o)
		}
	}
	l := e.org.Read.Do(t, "GET", "/api/v1/prospects?campaign_id="+camp, nil)
	for _, p := range list(l.JSON["data"]) {
		if p["outcome"] != want[p["id"].(string)] {
			t.Errorf("list: outcome of %s = %v", p["id"], p["outcome"])
		}
	}
	a := e.org.Read.Do(t, "GET", "/api/v1/analytics", nil)
	wantStatus(t, a, 200)
	got, _ := a.JSON["data"].(map[string]any)["outcomes"].(map[string]any)
	for k, n := range map[string]float64{"interested": 1, "lost": 1, "booked": 1, "converted": 1} {
		if got[k] != n {
			t.Errorf("analytics outcomes = %v, want %s = %v", got, k, n)
		}
	}
}
