package api

import (
	"net/http"

	"github.com/gorilla/mux"
)

// routes mounts every endpoint of this package. v1 is the keyed /api/v1 subrouter (auth and
// rate limit applied); root is for the two endpoints under /api/webhooks.
func (s *Server) routes(v1, root *mux.Router) {
	v1.HandleFunc("/me", s.getMe).Methods(http.MethodGet)
	s.leadRoutes(v1, root)
	s.campaignRoutes(v1)
	s.destinationRoutes(v1)
	s.reportRoutes(v1)
	s.settingsRoutes(v1)
	s.intakeURLRoutes(v1)
	s.eventTypeRoutes(v1)
	s.linkRoutes(v1)
}
