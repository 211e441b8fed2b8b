package api

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Rate-limit budgets: every keyed request spends from its organization's default budget, except
// GET /inbox, which reads LinkedIn live and has its own smaller budget instead.
const (
	bucketDefault = "default"
	bucketInbox   = "inbox"
)

func (s *Server) limitFor(p Principal, bucket string) int {
	if bucket == bucketInbox {
		return s.cfg.InboxRateLimitPerMinute
	}
	if p.RateLimitPerMinute != nil {
		return *p.RateLimitPerMinute
	}
	return s.cfg.RateLimitPerMinute
}

// rateLimit spends one request of the organization's budget for the current minute. The
// counter is in PostgreSQL, so all keys of an organization and all running instances of the
// service share it. Every answer carries the X-RateLimit headers; an exhausted budget answers
// 429 with Retry-After and the plain error shape.
func (s *Server) rateLimit(defaultBucket string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			bucket := defaultBucket
			if r.Method == http.MethodGet && r.URL.Path == "/api/v1/inbox" {
				bucket = bucketInbox
			}
			if !s.spend(w, r, PrincipalFrom(r.Context()), bucket) {
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// spend takes one token and writes the headers; false means the request was answered (429 or 500).
func (s *Server) spend(w http.ResponseWriter, r *http.Request, p Principal, bucket string) bool {
	limit := s.limitFor(p, bucket)
	now := s.now()
	used, windowStart, err := s.store.TakeRateToken(r.Context(), p.OrgID, bucket, now)
	if err != nil {
		s.fail(w, r, err)
		return false
	}
	reset := windowStart.Add(time.Minute)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, limit-used)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	if used > limit {
		wait := int(reset.Sub(now).Seconds() + 0.999)
		wait = max(wait, 1)
		h.Set("Retry-After", strconv.Itoa(wait))
		writePlainError(w, http.StatusTooManyRequests,
			fmt.Sprintf("rate limit exceeded: %d requests per minute for this organization; retry after %d seconds", limit, wait))
		return false
	}
	return true
}
