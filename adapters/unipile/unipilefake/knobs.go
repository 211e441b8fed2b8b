package unipilefake

import (
	"cmp"
	"net/http"
	"strconv"
	"time"
)

// Failure makes the next Times calls of Method to Path fail without doing anything.
type Failure struct {
	Method string
	// Path is a concrete path ("/api/v1/users/invite") or a route pattern
	// ("/api/v1/chats/{id}/messages").
	Path   string
	Times  int
	Status int // 429, 500, 503, 422, …
	// Type is the problem type; by default the one Unipile uses for Status
	// (errors/too_many_requests for 429, errors/unexpected_error for 500, …).
	Type string
	// RetryAfter, when set, is sent as a Retry-After header in seconds.
	RetryAfter time.Duration
}

func (fl Failure) write(w http.ResponseWriter) {
	if fl.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(fl.RetryAfter/time.Second)))
	}
	typ := fl.Type
	if typ == "" {
		typ = defaultType(fl.Status)
	}
	problem(w, fl.Status, typ, http.StatusText(fl.Status), "Injected by the test.")
}

// LostAnswer makes the next Times calls of Method to Path be carried out (the invitation is
// sent, the message written) and then lose their answer: the client gets Status (500 by
// default) or, with Drop, a connection closed without any answer.
type LostAnswer struct {
	Method string
	Path   string
	Times  int
	Status int
	Drop   bool
}

// status is what the client gets: 0 when the connection is dropped.
func (l LostAnswer) status() int {
	switch {
	case l.Drop:
		return 0
	case l.Status == 0:
		return http.StatusInternalServerError
	}
	return l.Status
}

func (l LostAnswer) write(w http.ResponseWriter) {
	if l.Drop {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
	}
	status := cmp.Or(l.status(), http.StatusInternalServerError)
	problem(w, status, defaultType(status), http.StatusText(status), "The answer was lost (injected by the test).")
}

// knobs is what tests asked to break.
type knobs struct {
	failures     []*Failure
	losses       []*LostAnswer
	loseWebhooks int
	dupWebhooks  int
}

// FailNext queues a Failure (Times 0 means once); failures queued for the same call are used
// in order.
func (f *Fake) FailNext(fl Failure) {
	fl.Times = max(fl.Times, 1)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kn.failures = append(f.kn.failures, &fl)
}

// LoseAnswer queues a LostAnswer (Times 0 means once).
func (f *Fake) LoseAnswer(l LostAnswer) {
	l.Times = max(l.Times, 1)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kn.losses = append(f.kn.losses, &l)
}

// LoseWebhooks makes the next n webhook calls (call-backs included) never be sent.
func (f *Fake) LoseWebhooks(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kn.loseWebhooks += n
}

// DuplicateWebhooks makes the next n webhook calls be delivered twice.
func (f *Fake) DuplicateWebhooks(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kn.dupWebhooks += n
}

func (f *Fake) takeFailure(req Request) (Failure, bool) {
	return take(f, &f.kn.failures, req, func(fl *Failure) (string, string, *int) { return fl.Method, fl.Path, &fl.Times })
}

func (f *Fake) takeLoss(req Request) (LostAnswer, bool) {
	return take(f, &f.kn.losses, req, func(l *LostAnswer) (string, string, *int) { return l.Method, l.Path, &l.Times })
}

// take uses up one of the first queued knob that selects req, dropping it once used up.
func take[T any](f *Fake, q *[]*T, req Request, sel func(*T) (method, path string, times *int)) (T, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, k := range *q {
		method, path, times := sel(k)
		if !matches(method, path, req) {
			continue
		}
		*times--
		out := *k
		if *times <= 0 {
			*q = append((*q)[:i], (*q)[i+1:]...)
		}
		return out, true
	}
	var zero T
	return zero, false
}
