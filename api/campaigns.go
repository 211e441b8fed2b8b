package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// campaignRoutes mounts campaigns and prospects.
func (s *Server) campaignRoutes(v1 *mux.Router) {
	v1.HandleFunc("/campaigns", s.listCampaigns).Methods(http.MethodGet)
	v1.HandleFunc("/campaigns", s.createCampaign).Methods(http.MethodPost)
	v1.HandleFunc("/campaigns/{id}", s.getCampaign).Methods(http.MethodGet)
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
	// StrippedAttachments is set only on the answer to POST /campaigns: the unsafe attachments
	// removed from the sequence sent, empty when none were.
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

// createCampaignRequest is the body of POST /campaigns. Pointers tell absent
// from zero; raw parts are parsed by the domain, which names what is wrong in them.
type createCampaignRequest struct {
	Name         *string         `json:"name"`
	OutreachType *string         `json:"outreach_type"`
	SourceType   *string         `json:"source_type"`
	DailyLimit   *int            `json:"daily_limit"`
	Schedule     json.RawMessage `json:"schedule"`
	Sequence     json.RawMessage `json:"sequence"`
	Meta         *struct {
		HardFilters json.RawMessage `json:"hard_filters"`
	} `json:"meta"`
	SourceConfig json.RawMessage `json:"source_config"`
}

const maxSourceConfigBytes = 16 << 10

func (s *Server) createCampaign(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	in, stripped, err := parseCreateCampaign(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	c, err := s.store.CreateCampaign(r.Context(), PrincipalFrom(r.Context()).OrgID, in)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	item := campaignView(c)
	item.StrippedAttachments = &stripped
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "item": item})
}

func parseCreateCampaign(r *http.Request) (storage.NewCampaign, []outreach.StrippedAttachment, error) {
	body, err := readBody(r)
	if err != nil {
		return storage.NewCampaign{}, nil, err
	}
	var req createCampaignRequest
	if err := decodeStrict(body, &req); err != nil {
		return storage.NewCampaign{}, nil, err
	}
	var in storage.NewCampaign
	if req.Name == nil {
		return in, nil, invalid("name is required")
	}
	if in.Name, err = outreach.ValidateCampaignName(*req.Name); err != nil {
		return in, nil, err
	}
	ot := ""
	if req.OutreachType != nil {
		ot = *req.OutreachType
		if ot == "" {
			return in, nil, invalid("outreach_type must be outbound or inbound, not empty")
		}
	}
	if in.OutreachType, err = outreach.ParseOutreachType(ot); err != nil {
		return in, nil, err
	}
	if req.SourceType != nil {
		if !outreach.ValidSourceType(*req.SourceType) {
			return in, nil, invalid("source_type %q must be one of %s", *req.SourceType,
				strings.Join(outreach.SourceTypes, ", "))
		}
		in.SourceType = req.SourceType
	}
	if in.DailyLimit, err = outreach.ValidateDailyLimit(req.DailyLimit); err != nil {
		return in, nil, err
	}
	if in.Schedule, err = outreach.ParseSchedule(req.Schedule); err != nil {
		return in, nil, err
	}
	var stripped []outreach.StrippedAttachment
	if in.Sequence, stripped, err = outreach.ParseSequence(req.Sequence, in.OutreachType); err != nil {
		return in, nil, err
	}
	if cfg := bytes.TrimSpace(req.SourceConfig); len(cfg) > 0 && !bytes.Equal(cfg, []byte("null")) {
		if cfg[0] != '{' {
			return in, nil, invalid("source_config must be a JSON object")
		}
		if len(cfg) > maxSourceConfigBytes {
			return in, nil, invalid("source_config is larger than %d bytes", maxSourceConfigBytes)
		}
		in.SourceConfig = json.RawMessage(cfg)
	}
	if req.Meta != nil {
		if in.HardFilters, err = outreach.ParseHardFilters(req.Meta.HardFilters); err != nil {
			return in, nil, fmt.Errorf("meta.hard_filters: %w", err)
		}
	}
	return in, stripped, nil
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
