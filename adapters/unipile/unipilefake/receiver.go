package unipilefake

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
)

// Receiver is a local endpoint to point webhooks and call-backs at in tests: it keeps every
// call and answers the statuses it is given in turn, then 200.
type Receiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	statuses []int
	calls    []Call
}

// Call is one request a Receiver got.
type Call struct {
	Header http.Header
	Body   []byte
	Status int // what the Receiver answered
}

// NewReceiver starts a receiver answering statuses in turn (then 200).
func NewReceiver(statuses ...int) *Receiver {
	rc := &Receiver{statuses: statuses}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		rc.mu.Lock()
		status := http.StatusOK
		if len(rc.statuses) > 0 {
			status, rc.statuses = rc.statuses[0], rc.statuses[1:]
		}
		rc.calls = append(rc.calls, Call{Header: r.Header.Clone(), Body: body, Status: status})
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	return rc
}

// URL is where to send.
func (rc *Receiver) URL() string { return rc.srv.URL }

// Calls is every call received, in order.
func (rc *Receiver) Calls() []Call {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.calls)
}

// Close stops the receiver.
func (rc *Receiver) Close() { rc.srv.Close() }
