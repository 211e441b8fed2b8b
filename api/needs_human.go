package api

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// needsHumanJSON is one needs-human item with the person block.
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

// DraftDesk approves or dismisses needs-human drafts (the outreach engine). The application,
// the assistant and this API share it, so a decision means the same thing everywhere.
type DraftDesk interface {
	ApproveDraft(ctx context.Context, d outreach.DraftDecision) (outreach.DraftOutcome, error)
	DismissDraft(ctx context.Context, d outreach.DraftDecision) (outreach.DraftOutcome, error)
}

type draftOutcomeJSON struct {
	ItemID  string `json:"item_id"`
	DraftID string `json:"draft_id"`
	ChatID  string `json:"chat_id"`
	Status  string `json:"status"`
	Text    string `json:"text"`
	At      string `json:"at"`
}

// DraftOutcomeBody is the answer of POST /needs-human/{id}/approve and /dismiss for out. The
// assistant server decides drafts through the engine itself (to record who decided) and answers
// with it, so both answers are this one shape.
func DraftOutcomeBody(out outreach.DraftOutcome) any {
	return map[string]any{"data": draftOutcomeJSON{ItemID: out.ItemID, DraftID: out.DraftID,
		ChatID: out.ChatID, Status: out.Status, Text: out.Text, At: outreach.FormatTime(out.At)}}
}

// postNeedsHumanDecision is POST /needs-human/{id}/approve (body optional: {"text"} is the
// person's edited reply) and POST /needs-human/{id}/dismiss. Approving sends on LinkedIn and
// cannot be undone.
func (s *Server) postNeedsHumanDecision(approve bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !requireWrite(w, r) {
			return
		}
		if s.deps.Drafts == nil {
			writeError(w, http.StatusServiceUnavailable, CodeNotInProcess, "drafts cannot be decided in this process")
			return
		}
		p := PrincipalFrom(r.Context())
		d := outreach.DraftDecision{OrgID: p.OrgID, ItemID: mux.Vars(r)["id"], Actor: "key:" + p.KeyID}
		var in struct {
			Text *string `json:"text"`
		}
		if err := decodeOptionalJSON(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		if in.Text != nil && !approve {
			s.fail(w, r, invalidField("text", "only an approval takes a text"))
			return
		}
		d.Text = in.Text
		var out outreach.DraftOutcome
		var err error
		if approve {
			out, err = s.deps.Drafts.ApproveDraft(r.Context(), d)
		} else {
			out, err = s.deps.Drafts.DismissDraft(r.Context(), d)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, DraftOutcomeBody(out))
	}
}
