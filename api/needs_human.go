package api

import (
	"net/http"

	"outreachd/outreach"
	"outreachd/storage"
)

// needsHumanJSON is api-v1 §2.5 with the person block of §2.3.
type needsHumanJSON struct {
	ID           string  `json:"id"`
	CampaignID   *string `json:"campaign_id"`
	ChatID       string  `json:"chat_id"`
	Name         string  `json:"name"`
	Message      string  `json:"message"`
	AIDraft      string  `json:"ai_draft"`
	Intent       *string `json:"intent"`
	Reason       string  `json:"reason"`
	ReasonLabel  string  `json:"reason_label"`
	WaitingSince string  `json:"waiting_since"`
	HoursWaiting int     `json:"hours_waiting"`
	personJSON
}

// getNeedsHuman is GET /needs-human: the open items of the Needs Human queue, newest first.
func (s *Server) getNeedsHuman(w http.ResponseWriter, r *http.Request) {
	page, err := parsePage(r, 200)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	items, total, err := s.store.ListNeedsHuman(r.Context(), storage.NeedsHumanQuery{
		OrgID: PrincipalFrom(r.Context()).OrgID, CampaignID: r.URL.Query().Get("campaign_id"),
		Limit: page.Limit, Offset: page.Offset,
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	now := s.domainNow()
	data := make([]needsHumanJSON, 0, len(items))
	for _, it := range items {
		data = append(data, needsHumanJSON{
			ID: it.ID, CampaignID: it.CampaignID, ChatID: it.ChatID, Name: it.Name, Message: it.Message,
			AIDraft: it.AIDraft, Intent: it.Intent, Reason: it.Reason,
			ReasonLabel:  outreach.NeedsHumanReason(it.Reason).Label(),
			WaitingSince: outreach.FormatTime(it.WaitingSince),
			HoursWaiting: max(0, int(now.Sub(it.WaitingSince).Hours())),
			personJSON:   personBlock(it.Person),
		})
	}
	page.Total = total
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "pagination": page})
}
