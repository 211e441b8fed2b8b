package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"outreachd/outreach"
)

// GET /event-types: the catalogue of outbound event kinds, generated from the same catalogue the
// delivery hub validates against (outreach.EventTypes), so it cannot drift from what is sent.

func (s *Server) eventTypeRoutes(v1 *mux.Router) {
	v1.HandleFunc("/event-types", s.listEventTypes).Methods(http.MethodGet)
}

type eventTypeJSON struct {
	Kind           string         `json:"kind"`
	Group          string         `json:"group"`
	Description    string         `json:"description"`
	RequiredBlocks []string       `json:"required_blocks"`
	OptionalBlocks []string       `json:"optional_blocks"`
	Sample         outreach.Event `json:"sample"`
	DataSchema     map[string]any `json:"data_schema"`
	// EnvelopeSchema is the schema of the whole body: the paths a destination's filter may name.
	EnvelopeSchema map[string]any `json:"envelope_schema"`
}

func (s *Server) listEventTypes(w http.ResponseWriter, r *http.Request) {
	orgID := PrincipalFrom(r.Context()).OrgID
	types := outreach.EventTypes(s.domainNow())
	out := make([]eventTypeJSON, len(types))
	for i, et := range types {
		et.Sample.OrgID = orgID
		out[i] = eventTypeJSON{Kind: string(et.Kind), Group: string(et.Group), Description: et.Description,
			RequiredBlocks: nonNil(et.RequiredBlocks), OptionalBlocks: nonNil(et.OptionalBlocks),
			Sample: s.sampleLinks(et.Sample), DataSchema: et.DataSchema, EnvelopeSchema: et.EnvelopeSchema}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
