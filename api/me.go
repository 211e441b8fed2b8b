package api

import "net/http"

func (s *Server) getMe(w http.ResponseWriter, r *http.Request) {
	p := PrincipalFrom(r.Context())
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
		"org_id": p.OrgID, "scope": p.Scope, "api_version": "v1",
	}})
}
