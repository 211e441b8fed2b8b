package api

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"sync"

	"github.com/gorilla/mux"
)

// Invoke runs one keyed endpoint of /api/v1 in process, acting for p, and returns the status and
// the JSON body the endpoint answered. It is how the assistant server reuses the REST API: the
// same decoding, validation, storage calls, error messages and JSON shapes, with no second copy
// to drift. Authentication and the rate limit are the caller's business: Invoke applies neither,
// so the caller must have resolved p from a valid credential and spent the request's budget.
// path is the endpoint's path under /api/v1 (e.g. "/campaigns/cmp_…/leads").
func (s *Server) Invoke(ctx context.Context, p Principal, method, path string, query url.Values, body []byte) (int, []byte) {
	s.invokeOnce.Do(func() {
		root := mux.NewRouter()
		unmatched := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusNotFound, CodeNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
		})
		root.NotFoundHandler, root.MethodNotAllowedHandler = unmatched, unmatched
		v1 := root.PathPrefix("/api/v1").Subrouter()
		v1.NotFoundHandler, v1.MethodNotAllowedHandler = unmatched, unmatched
		s.routes(v1, root)
		for _, mount := range s.deps.Extra {
			mount(v1, root, s.helpers())
		}
		s.invoker = rejectBadText(root)
	})
	u := &url.URL{Path: "/api/v1" + path, RawQuery: query.Encode()}
	r, err := http.NewRequestWithContext(context.WithValue(ctx, principalKey{}, p), method, u.String(), bytes.NewReader(body))
	if err != nil {
		return http.StatusBadRequest, []byte(`{"error":{"code":"` + CodeInvalidRequest + `","message":"the request could not be built"}}`)
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	r.Body = http.MaxBytesReader(rec, r.Body, s.cfg.MaxBodyBytes)
	r.Header.Set("Content-Type", "application/json")
	s.invoker.ServeHTTP(rec, r)
	return rec.status, rec.body.Bytes()
}

// recorder is the ResponseWriter of Invoke: it keeps what the endpoint wrote.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// invokeState is the lazily built router of Invoke.
type invokeState struct {
	invokeOnce sync.Once
	invoker    http.Handler
}
