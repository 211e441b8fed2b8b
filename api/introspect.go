package api

import (
	"sort"
	"strings"

	"github.com/gorilla/mux"
)

// Route is one mounted endpoint: its method ("" for a prefix that takes every method) and its
// path template as gorilla/mux writes it, e.g. /api/v1/campaigns/{id}.
type Route struct {
	Method string
	Path   string
}

// Routes lists the endpoints of the keyed API and the webhooks: everything routes() and
// Deps.Extra mount, under the same prefixes as Handler. It exists so that a test can hold
// docs/openapi.yaml to the router. The operational routes Handler mounts itself (/healthz,
// /readyz, /metrics, /mcp) are not listed; the OpenAPI test calls them instead.
func (s *Server) Routes() ([]Route, error) {
	root := mux.NewRouter()
	v1 := root.PathPrefix("/api/v1").Subrouter()
	s.routes(v1, root)
	for _, mount := range s.deps.Extra {
		mount(v1, root, s.helpers())
	}
	var out []Route
	err := root.Walk(func(r *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		if r.GetHandler() == nil {
			return nil // a subrouter's prefix, not an endpoint
		}
		tpl, err := r.GetPathTemplate()
		if err != nil {
			return err
		}
		ms, err := r.GetMethods()
		if err != nil || len(ms) == 0 {
			out = append(out, Route{Path: tpl})
			return nil
		}
		for _, m := range ms {
			out = append(out, Route{Method: strings.ToUpper(m), Path: tpl})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out, err
}
