package api

import (
	"net/http"

	"outreachd/outreach"
	"outreachd/storage"
)

// defaultStalledDays is the silence after which a positive replier counts as stalled (the API's documented default).
const defaultStalledDays = 5

// stalledJSON is one stalled lead with the person block.
type stalledJSON struct {
	ID                string `json:"id"`
	CampaignID        string `json:"campaign_id"`
	LinkedInID        string `json:"linkedin_id"`
	Name              string `json:"name"`
	DaysSinceActivity int    `json:"days_since_activity"`
	LastActivityAt    string `json:"last_activity_at"`
	LastStalledAt     string `json:"last_stalled_at"`
	Sentiment         string `json:"sentiment"`
	personJSON
}

// getStalledLeads is GET /stalled-leads: positive repliers silent for at least days, stalest first.
func (s *Server) getStalledLeads(w http.ResponseWriter, r *http.Request) {
	days, err := queryInt(r, "days", defaultStalledDays, 1, 365)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	page, err := parsePage(r, 200)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	now := s.domainNow()
	items, total, err := s.store.ListStalledLeads(r.Context(), storage.StalledQuery{
		OrgID: PrincipalFrom(r.Context()).OrgID, CampaignID: r.URL.Query().Get("campaign_id"),
		Days: days, Now: now, Limit: page.Limit, Offset: page.Offset,
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	data := make([]stalledJSON, 0, len(items))
	for _, it := range items {
		data = append(data, stalledJSON{
			ID: it.ID, CampaignID: it.CampaignID, LinkedInID: it.LinkedInID, Name: it.Name,
			DaysSinceActivity: int(now.Sub(it.LastActivityAt).Hours() / 24),
			LastActivityAt:    outreach.FormatTime(it.LastActivityAt),
			LastStalledAt:     outreach.FormatTime(it.LastStalledAt),
			Sentiment:         it.Sentiment,
			personJSON:        personBlock(it.Person),
		})
	}
	page.Total = total
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "pagination": page, "threshold_days": days})
}
