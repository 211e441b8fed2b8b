package api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Rate-limit budgets: every keyed request spends from its organization's default budget, except
// GET /inbox, which reads LinkedIn live and has its own smaller budget instead. Each intake URL
// spends a budget of its own, named by storage.IntakeTarget.Bucket ("intake:..."), so a form
// feeding it and the organization's API clients cannot starve each other.
const (
	bucketDefault      = "default"
	bucketInbox        = "inbox"
	bucketIntakePrefix = "intake:"
)

func (s *Server) limitFor(p Principal, bucket string) int {
	if bucket == bucketInbox {
		return s.cfg.InboxRateLimitPerMinute
	}
	if strings.HasPrefix(bucket, bucketIntakePrefix) {
		return s.cfg.IntakeRateLimitPerMinute
	}
	if p.RateLimitPerMinute != nil {
		return *p.RateLimitPerMinute
	}
	return s.cfg.RateLimitPerMinute
}

// spentToken is one request counted against a bucket: used is the minute's count including it.
type spentToken struct {
	bucket      string
	used        int
	windowStart time.Time
	now         time.Time
}

type spentKey struct{}

// requestBucket is the budget a request spends from: GET /inbox has its own, everything else
// spends from defaultBucket.
func requestBucket(r *http.Request, defaultBucket string) string {
	if r.Method == http.MethodGet && r.URL.Path == "/api/v1/inbox" {
		return bucketInbox
	}
	return defaultBucket
}

// rateLimit enforces one request of the organization's budget for the current minute. The
// counter is in PostgreSQL, so all keys of an organization and all running instances of the
// service share it. authenticate already counted the request in the same statement that
// resolved the key; rateLimit only spends itself when it runs without that (or for another
// bucket). Every answer carries the X-RateLimit headers; an exhausted budget answers 429 with
// Retry-After and the plain error shape.
func (s *Server) rateLimit(defaultBucket string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			bucket := requestBucket(r, defaultBucket)
			p := PrincipalFrom(r.Context())
			ok := false
			if tok, spent := r.Context().Value(spentKey{}).(spentToken); spent && tok.bucket == bucket {
				ok = s.admit(w, p, tok)
			} else {
				ok = s.spend(w, r, p, bucket)
			}
			if ok {
				next.ServeHTTP(w, r)
			}
		})
	}
}

// spend takes one token and writes the headers; false means the request was answered (429 or 500).
func (s *Server) spend(w http.ResponseWriter, r *http.Request, p Principal, bucket string) bool {
	now := s.now()
	used, windowStart, err := s.store.TakeRateToken(r.Context(), p.OrgID, bucket, now)
	if err != nil {
		s.failFor(w, r, err)
		return false
	}
	return s.admit(w, p, spentToken{bucket: bucket, used: used, windowStart: windowStart, now: now})
}

// admit writes the X-RateLimit headers for a spent token and answers 429 when it went over the
// budget; false means the request was answered.
func (s *Server) admit(w http.ResponseWriter, p Principal, tok spentToken) bool {
	limit := s.limitFor(p, tok.bucket)
	reset := tok.windowStart.Add(time.Minute)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, limit-tok.used)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	if tok.used > limit {
		wait := int(reset.Sub(tok.now).Seconds() + 0.999)
		wait = max(wait, 1)
		h.Set("Retry-After", strconv.Itoa(wait))
		who := "this organization"
		if strings.HasPrefix(tok.bucket, bucketIntakePrefix) {
			who = "this intake URL"
		}
		writePlainError(w, http.StatusTooManyRequests,
			fmt.Sprintf("rate limit exceeded: %d requests per minute for %s; retry after %d seconds", limit, who, wait))
		return false
	}
	return true
}
