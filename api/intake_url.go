package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// A campaign's intake URL through the keyed API (the campaign settings' intake section):
// read it, create or replace it, revoke it. Every URL is built from this server's PUBLIC_URL.

// SecretBox seals and opens secrets kept at rest (delivery.SecretBox).
type SecretBox interface {
	Seal(plaintext string) (string, error)
	Open(sealed string) (string, error)
}

func (s *Server) intakeURLRoutes(v1 *mux.Router) {
	v1.HandleFunc("/campaigns/{id}/intake-url", s.getIntakeURL).Methods(http.MethodGet)
	v1.HandleFunc("/campaigns/{id}/intake-url", s.createIntakeURL).Methods(http.MethodPost)
	v1.HandleFunc("/campaigns/{id}/intake-url", s.revokeIntakeURL).Methods(http.MethodDelete)
}

type intakeURLJSON struct {
	CampaignID string  `json:"campaign_id"`
	Active     bool    `json:"active"`
	URL        *string `json:"url"`
	CreatedAt  *string `json:"created_at"`
	Replaced   *bool   `json:"replaced,omitempty"`
}

// IntakeURL is the intake URL of token on publicURL.
func IntakeURL(publicURL, token string) string {
	return publicURL + "/api/webhooks/leads/" + token
}

func (s *Server) intakeURLView(tok storage.IntakeToken, active bool) intakeURLJSON {
	v := intakeURLJSON{CampaignID: tok.CampaignID, Active: active}
	if active {
		at := outreach.FormatTime(tok.CreatedAt)
		v.CreatedAt = &at
	}
	if tok.Token != "" {
		u := IntakeURL(s.cfg.PublicURL, tok.Token)
		v.URL = &u
	}
	return v
}

// intakeOf opens the handlers that read or make a campaign's intake URL: the campaign the path
// names, and the box its token is sealed in (503 when none is wired: handler tests of other
// parts). On failure it has answered.
func (s *Server) intakeOf(w http.ResponseWriter, r *http.Request) (string, SecretBox, bool) {
	id, ok := s.campaignID(w, r)
	if !ok {
		return "", nil, false
	}
	if s.deps.Secrets == nil {
		writeError(w, http.StatusServiceUnavailable, CodeNotInProcess, "intake URLs are not available in this process")
		return "", nil, false
	}
	return id, s.deps.Secrets, true
}

func (s *Server) getIntakeURL(w http.ResponseWriter, r *http.Request) {
	id, box, ok := s.intakeOf(w, r)
	if !ok {
		return
	}
	tok, live, err := s.store.IntakeTokenOf(r.Context(), PrincipalFrom(r.Context()).OrgID, id, box.Open)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": s.intakeURLView(tok, live)})
}

// createIntakeURL makes a new intake URL, replacing (revoking at once) the live one if any:
// POST again is how a URL is rotated.
func (s *Server) createIntakeURL(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	id, box, ok := s.intakeOf(w, r)
	if !ok {
		return
	}
	tok, err := s.store.CreateIntakeToken(r.Context(), PrincipalFrom(r.Context()).OrgID, id, box.Seal)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := s.intakeURLView(tok, true)
	v.Replaced = &tok.Replaced
	writeJSON(w, http.StatusCreated, map[string]any{"data": v})
}

func (s *Server) revokeIntakeURL(w http.ResponseWriter, r *http.Request) {
	if !requireWrite(w, r) {
		return
	}
	id, ok := s.campaignID(w, r)
	if !ok {
		return
	}
	revoked, err := s.store.RevokeIntakeToken(r.Context(), PrincipalFrom(r.Context()).OrgID, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"campaign_id": id, "revoked": revoked}})
}
