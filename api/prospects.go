package api

import (
	"net/http"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// maxStatusParam bounds the status query parameter; statuses are short machine names.
const maxStatusParam = 64

// listProspects is GET /prospects. A campaign_id that is unknown or belongs to
// another organization matches nothing: the answer is an empty page, not a 404, as for any
// filter that matches nobody.
func (s *Server) listProspects(w http.ResponseWriter, r *http.Request) {
	page, err := parsePage(r, 200)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	pq := storage.ProspectQuery{CampaignID: q.Get("campaign_id"), Status: q.Get("status"), Limit: page.Limit, Offset: page.Offset}
	if n := utf8.RuneCountInString(pq.Status); n > maxStatusParam {
		s.fail(w, r, invalid("query parameter status is longer than %d characters", maxStatusParam))
		return
	}
	out := []prospectJSON{}
	if pq.CampaignID == "" || outreach.ValidID("cmp", pq.CampaignID) {
		ps, total, err := s.store.ListProspects(r.Context(), PrincipalFrom(r.Context()).OrgID, pq)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		for _, p := range ps {
			out = append(out, prospectView(p))
		}
		page.Total = total
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out, "pagination": page})
}

func (s *Server) getProspect(w http.ResponseWriter, r *http.Request) {
	p, err := s.store.GetProspect(r.Context(), PrincipalFrom(r.Context()).OrgID, mux.Vars(r)["id"])
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": prospectView(p)})
}

// patchProspect is PATCH /prospects/{id}: mark one outcome.
func (s *Server) patchProspect(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Outcome *string `json:"outcome"`
	}
	if !s.decodeWrite(w, r, &req) {
		return
	}
	if req.Outcome == nil {
		s.fail(w, r, invalid("outcome is required (booked, converted, interested or lost)"))
		return
	}
	outcome, err := outreach.ParseOutcome(*req.Outcome)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	id := mux.Vars(r)["id"]
	applied, err := s.store.SetProspectOutcome(r.Context(), PrincipalFrom(r.Context()).OrgID, id, outcome)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"id": id, "outcome": outcome, "applied": applied}})
}
