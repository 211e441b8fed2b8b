package webapp

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"outreachd/outreach"
	"outreachd/storage"
)

// A campaign's leads, 50 a page, newest first, filtered by verdict: who, their company and role,
// the filters' verdict and its reason as GET /campaigns/{id}/leads words it (judged against the
// campaign's filters as they are now), enrichment, source and when they were added.

const leadsPerPage = 50

// leadRow is one lead as the tables show it.
type leadRow struct {
	P      storage.Prospect
	Reason string
}

// leadsView is the leads page.
type leadsView struct {
	C        storage.Campaign
	Leads    []leadRow
	Verdict  string
	Verdicts map[string]int
	Total    int
	Page     int
	Pages    int
}

var verdictFilters = []string{"", outreach.VerdictPending, outreach.VerdictAccepted, outreach.VerdictRejected}

func (a *App) leadsPage(w http.ResponseWriter, r *http.Request, u User) {
	c, ok := a.campaignOf(w, r, u)
	if !ok {
		return
	}
	q := r.URL.Query()
	v := leadsView{C: c, Verdict: q.Get("verdict")}
	known := false
	for _, f := range verdictFilters {
		known = known || f == v.Verdict
	}
	if !known {
		a.fail(w, r, outreach.Invalidf("verdict %q is not one of pending, accepted, rejected", v.Verdict))
		return
	}
	var err error
	if v.Page, err = pageParam(q, 100_000); err != nil {
		a.fail(w, r, err)
		return
	}
	v.Leads, v.Total, err = a.leadRows(r.Context(), u, c, storage.LeadQuery{Source: "all", Verdict: v.Verdict,
		Limit: leadsPerPage, Offset: (v.Page - 1) * leadsPerPage})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if v.Verdicts, err = a.store.LeadVerdicts(r.Context(), u.OrgID, c.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	v.Pages = pageCount(v.Total, leadsPerPage)
	a.render(w, r, http.StatusOK, "leads", view{Title: "Leads of " + c.Name, Nav: "campaigns", D: v})
}

// leadRows reads a page of the campaign's leads with their reasons.
func (a *App) leadRows(ctx context.Context, u User, c storage.Campaign, q storage.LeadQuery) ([]leadRow, int, error) {
	leads, total, filters, err := a.store.ListLeads(ctx, u.OrgID, c.ID, q)
	if err != nil {
		return nil, 0, err
	}
	rows := make([]leadRow, len(leads))
	for i, p := range leads {
		rows[i] = leadRow{P: p, Reason: filters.Recheck(p.Person, p.EnrichmentStatus).Reason}
	}
	return rows, total, nil
}

// pageParam is the page number a list's ?page= asks for, 1 when absent; a value that is not a
// number from 1 to last is refused.
func pageParam(q url.Values, last int) (int, error) {
	p := q.Get("page")
	if p == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > last {
		return 0, outreach.Invalidf("page %q is not a page number", p)
	}
	return n, nil
}

// pageCount is how many pages of per rows total rows fill; at least one.
func pageCount(total, per int) int { return max(1, (total+per-1)/per) }
