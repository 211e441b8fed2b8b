package api

import (
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// campaignRoutes mounts campaigns and prospects.
func (s *Server) campaignRoutes(v1 *mux.Router) {
	v1.HandleFunc("/campaigns", s.listCampaigns).Methods(http.MethodGet)
	v1.HandleFunc("/campaigns", s.createCampaign).Methods(http.MethodPost)
	v1.HandleFunc("/campaigns/{id}", s.getCampaign).Methods(http.MethodGet)
	v1.HandleFunc("/campaigns/{id}", s.patchCampaign).Methods(http.MethodPatch)
	v1.HandleFunc("/campaigns/{id}/duplicate", s.duplicateCampaign).Methods(http.MethodPost)
	v1.HandleFunc("/prospects", s.listProspects).Methods(http.MethodGet)
	v1.HandleFunc("/prospects/{id}", s.getProspect).Methods(http.MethodGet)
	v1.HandleFunc("/prospects/{id}", s.patchProspect).Methods(http.MethodPatch)
}

// campaignSummaryJSON is a campaign as GET /campaigns lists it (2.1 without sequence and schedule).
type campaignSummaryJSON struct {
	ID             string         `json:"id"`
	Name           string         `json:"name"`
	Status         string         `json:"status"`
	OutreachType   string         `json:"outreach_type"`
	CreatedAt      string         `json:"created_at"`
	UpdatedAt      string         `json:"updated_at"`
	ProspectCounts map[string]int `json:"prospect_counts"`
}

// campaignJSON is one campaign in full: GET /campaigns/{id} and the item of create and duplicate.
type campaignJSON struct {
	campaignSummaryJSON
	Sequence     []outreach.SequenceStep `json:"sequence"`
	Schedule     outreach.Schedule       `json:"schedule"`
	DailyLimit   int                     `json:"daily_limit"`
	SourceType   *string                 `json:"source_type"`
	SourceConfig json.RawMessage         `json:"source_config"`
	Meta         campaignMetaJSON        `json:"meta"`
	AccountIDs   []string                `json:"account_ids"`
	StartedAt    *string                 `json:"started_at"`
	CompletedAt  *string                 `json:"completed_at"`
	// StrippedAttachments is set only on the answer to POST /campaigns and PATCH
	// /campaigns/{id}: the unsafe attachments removed from the sequence sent, empty when none were.
	StrippedAttachments *[]outreach.StrippedAttachment `json:"stripped_attachments,omitempty"`
}

type campaignMetaJSON struct {
	HardFilters outreach.HardFilters `json:"hard_filters"`
}

func campaignSummary(c storage.Campaign) campaignSummaryJSON {
	return campaignSummaryJSON{
		ID: c.ID, Name: c.Name, Status: string(c.Status), OutreachType: outreach.OutreachTypeView(c.OutreachType),
		CreatedAt: outreach.FormatTime(c.CreatedAt), UpdatedAt: outreach.FormatTime(c.UpdatedAt),
		ProspectCounts: c.ProspectCounts,
	}
}

func campaignView(c storage.Campaign) campaignJSON {
	return campaignJSON{
		campaignSummaryJSON: campaignSummary(c),
		Sequence:            c.Sequence, Schedule: c.Schedule, DailyLimit: c.DailyLimit,
		SourceType: c.SourceType, SourceConfig: c.SourceConfig, Meta: campaignMetaJSON{HardFilters: c.HardFilters},
		AccountIDs: c.AccountIDs, StartedAt: outreach.FormatTimePtr(c.StartedAt), CompletedAt: outreach.FormatTimePtr(c.CompletedAt),
	}
}

func (s *Server) listCampaigns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	paged := q.Has("limit") || q.Has("offset")
	var page Page
	var cs []storage.Campaign
	var err error
	if paged {
		if page, err = parsePage(r, 200); err != nil {
			s.fail(w, r, err)
			return
		}
		cs, page.Total, err = s.store.ListCampaignsPage(r.Context(), PrincipalFrom(r.Context()).OrgID, page.Limit, page.Offset)
	} else {
		cs, err = s.store.ListCampaigns(r.Context(), PrincipalFrom(r.Context()).OrgID)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]campaignSummaryJSON, len(cs))
	for i, c := range cs {
		out[i] = campaignSummary(c)
	}
	if paged {
		writeJSON(w, http.StatusOK, map[string]any{"data": out, "pagination": page})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// campaignID reads {id} and answers 404 for anything that cannot be a campaign id.
func (s *Server) campaignID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := mux.Vars(r)["id"]
	if !outreach.ValidID("cmp", id) {
		s.fail(w, r, outreach.NotFound("campaign %s", id))
		return "", false
	}
	return id, true
}

func (s *Server) getCampaign(w http.ResponseWriter, r *http.Request) {
	id, ok := s.campaignID(w, r)
	if !ok {
		return
	}
	c, err := s.store.GetCampaign(r.Context(), PrincipalFrom(r.Context()).OrgID, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": campaignView(c)})
}

func (s *Server) createCampaign(w http.ResponseWriter, r *http.Request) {
	var req outreach.CampaignRequest
	if !s.decodeWrite(w, r, &req) {
		return
	}
	in, stripped, err := req.Create()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	c, err := s.store.CreateCampaign(r.Context(), PrincipalFrom(r.Context()).OrgID, in)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.answerCampaignWrite(w, c, stripped)
}

// patchCampaign edits a draft: the fields sent replace the draft's, with the rules of
// POST /campaigns; a campaign past draft is a 409.
func (s *Server) patchCampaign(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	id, ok := s.campaignID(w, r)
	if !ok {
		return
	}
	var req outreach.CampaignRequest
	if err := decodeJSON(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	var stripped []outreach.StrippedAttachment
	c, err := s.store.UpdateDraftCampaign(r.Context(), PrincipalFrom(r.Context()).OrgID, id,
		func(cur outreach.CampaignSettings) (outreach.CampaignSettings, error) {
			in, st, err := req.Edit(cur)
			stripped = st
			return in, err
		})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.answerCampaignWrite(w, c, stripped)
}

// answerCampaignWrite answers a create or an edit: the campaign and the attachments removed.
func (s *Server) answerCampaignWrite(w http.ResponseWriter, c storage.Campaign, stripped []outreach.StrippedAttachment) {
	item := campaignView(c)
	if stripped == nil {
		stripped = []outreach.StrippedAttachment{}
	}
	item.StrippedAttachments = &stripped
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "item": item})
}

func (s *Server) duplicateCampaign(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	id, ok := s.campaignID(w, r)
	if !ok {
		return
	}
	c, err := s.store.DuplicateCampaign(r.Context(), PrincipalFrom(r.Context()).OrgID, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "item": campaignView(c)})
}
