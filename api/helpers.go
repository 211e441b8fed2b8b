package api

import (
	"net/http"
)

// Helpers gives routes mounted from other packages (Deps.Extra) the same decoding, error
// mapping and scope checks as this package's own handlers, so every endpoint answers alike.
type Helpers struct {
	WriteJSON    func(w http.ResponseWriter, status int, v any)
	Fail         func(w http.ResponseWriter, r *http.Request, err error)
	DecodeJSON   func(r *http.Request, v any) error
	RequireWrite func(w http.ResponseWriter, r *http.Request) bool
	ParsePage    func(r *http.Request, maxLimit int) (Page, error)
}

func (s *Server) helpers() Helpers {
	return Helpers{
		WriteJSON:    writeJSON,
		Fail:         s.fail,
		DecodeJSON:   decodeJSON,
		RequireWrite: requireWrite,
		ParsePage:    parsePage,
	}
}
