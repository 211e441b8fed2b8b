package api

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/gorilla/mux"

	"outreachd/outreach"
)

// Organization settings reachable through the API. The default filters are the hard filters
// stamped onto every campaign the organization creates afterwards (docs/api.md, "GET
// /settings/default-filters"); campaigns that exist keep the filters they were created with.

func (s *Server) settingsRoutes(v1 *mux.Router) {
	v1.HandleFunc("/settings/default-filters", s.getDefaultFilters).Methods(http.MethodGet)
	v1.HandleFunc("/settings/default-filters", s.putDefaultFilters).Methods(http.MethodPut)
}

type defaultFiltersJSON struct {
	HardFilters outreach.HardFilters `json:"hard_filters"`
}

func (s *Server) getDefaultFilters(w http.ResponseWriter, r *http.Request) {
	org, err := s.store.GetOrg(r.Context(), PrincipalFrom(r.Context()).OrgID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f, err := outreach.ParseHardFilters(org.DefaultFilters)
	if err != nil {
		// Stored defaults are validated on the way in; one that no longer parses is ours.
		s.fail(w, r, fmt.Errorf("stored default filters of %s: %s", org.ID, err.Error()))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": defaultFiltersJSON{HardFilters: f}})
}

// putDefaultFilters replaces the defaults: {"hard_filters": {...}}; null or {} clears them.
// They are validated exactly like a campaign's meta.hard_filters (422 invalid_filters).
func (s *Server) putDefaultFilters(w http.ResponseWriter, r *http.Request) {
	var req struct {
		HardFilters json.RawMessage `json:"hard_filters"`
	}
	if !s.decodeWrite(w, r, &req) {
		return
	}
	if req.HardFilters == nil {
		s.fail(w, r, invalid("hard_filters is required (an object of filter rules; null or {} clears the defaults)"))
		return
	}
	f, err := outreach.ParseHardFilters(req.HardFilters)
	if err != nil {
		s.fail(w, r, fmt.Errorf("hard_filters: %w", err))
		return
	}
	raw, err := json.Marshal(f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.store.SetOrgDefaultFilters(r.Context(), PrincipalFrom(r.Context()).OrgID, raw); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": defaultFiltersJSON{HardFilters: f}})
}
