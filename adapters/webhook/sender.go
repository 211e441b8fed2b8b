package webhook

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// Config tunes the sender. Zero values take the defaults below.
type Config struct {
	// Timeout bounds one attempt from dial to the end of the body excerpt
	// (DELIVERY_TIMEOUT; 10 s by default).
	Timeout time.Duration
	// AllowPrivate disables the SSRF guard (ALLOW_PRIVATE_DESTINATIONS).
	AllowPrivate bool
	// UserAgent is sent unless the request sets its own.
	UserAgent string
	// MaxResponseBytes is how much of a response body is kept for the
	// attempt log (Svix keeps 20 kB).
	MaxResponseBytes int
	// MaxConnsPerHost caps connections to one destination host; 0 means no
	// cap. Per-destination concurrency is better limited by the dispatcher,
	// which knows destinations rather than hosts.
	MaxConnsPerHost int
}

// DefaultUserAgent identifies the service to every receiver, webhook or Slack.
const DefaultUserAgent = "outreachd-webhooks/1"

const (
	defaultTimeout          = 10 * time.Second
	defaultMaxResponseBytes = 20 << 10
	maxMaxResponseBytes     = 1 << 20
	// drainLimit is how much of an unread body is discarded to keep the
	// connection reusable; past it, closing the connection is cheaper.
	drainLimit = 64 << 10
	// maxRetryAfter clamps absurd Retry-After values; it is far beyond the
	// longest delay in any retry schedule, so clamping changes nothing real.
	maxRetryAfter = 24 * time.Hour
)

func (c *Config) setDefaults() {
	c.Timeout = cmp.Or(c.Timeout, defaultTimeout)
	c.UserAgent = cmp.Or(c.UserAgent, DefaultUserAgent)
	c.MaxResponseBytes = cmp.Or(c.MaxResponseBytes, defaultMaxResponseBytes)
}

// Validate reports a configuration NewSender would refuse. Zero values are
// valid (they mean "default"), so main can validate before building.
func (c Config) Validate() error {
	if c.Timeout < 0 {
		return fmt.Errorf("webhook sender: timeout %s must be positive", c.Timeout)
	}
	if c.MaxResponseBytes < 0 || c.MaxResponseBytes > maxMaxResponseBytes {
		return fmt.Errorf("webhook sender: max response bytes %d must be between 1 and %d", c.MaxResponseBytes, maxMaxResponseBytes)
	}
	if c.MaxConnsPerHost < 0 {
		return fmt.Errorf("webhook sender: max conns per host %d must not be negative", c.MaxConnsPerHost)
	}
	return nil
}

// Sender makes single webhook attempts over one shared, guarded HTTP client.
// It is safe for concurrent use.
type Sender struct {
	cfg    Config
	client *http.Client
}

// NewSender builds the sender. It panics on a config that Validate rejects:
// main validates configuration at startup, so reaching here with a bad one is
// a programming error, and the constructor's shape (no error) is what the
// adapters that share the client were written against.
func NewSender(cfg Config) *Sender {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	cfg.setDefaults()
	guard := Guard{AllowPrivate: cfg.AllowPrivate}
	idlePerHost := 256
	if cfg.MaxConnsPerHost > 0 {
		idlePerHost = cfg.MaxConnsPerHost
	}
	transport := &http.Transport{
		// No Proxy: an environment proxy would make the connection for us
		// and the guard would only ever see the proxy's address.
		Proxy:       nil,
		DialContext: guard.DialContext,
		// A custom dialer turns HTTP/2 off unless asked for; with a few
		// busy hosts, multiplexing saves connections and handshakes.
		ForceAttemptHTTP2:     true,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		ExpectContinueTimeout: time.Second,
		// Go's default of 2 idle connections per host makes every burst to
		// one receiver open and close connections; keep a warm pool instead.
		MaxIdleConns:           1024,
		MaxIdleConnsPerHost:    idlePerHost,
		MaxConnsPerHost:        cfg.MaxConnsPerHost,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &Sender{
		cfg: cfg,
		client: &http.Client{
			Transport: transport,
			// A redirect is the receiver's misconfiguration, and following it
			// would let a public URL bounce the request somewhere else.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			// A backstop for users of Client() that forget a deadline.
			Timeout: cfg.Timeout,
		},
	}
}

// Client returns the shared guarded client, so other adapters (Slack) reuse
// its connection pool and SSRF protection instead of building their own.
func (s *Sender) Client() *http.Client { return s.client }

// Request is one attempt: a POST of Body to URL with Header.
type Request struct {
	URL    string
	Body   []byte
	Header http.Header
}

// Result is what an attempt log records. Failures are values, not errors,
// because a failed attempt is an ordinary outcome to store and schedule from.
type Result struct {
	StatusCode int           // 0 when no HTTP answer arrived
	Error      string        // "" on 2xx; otherwise readable by an operator
	Body       string        // response body excerpt, valid UTF-8
	Duration   time.Duration // from start to excerpt read
	RetryAfter time.Duration // from Retry-After on 429/503; 0 when absent
	OK         bool          // 2xx
}

// Send makes one POST attempt and never returns without closing the body.
func (s *Sender) Send(ctx context.Context, req Request) Result {
	start := time.Now()
	res := s.send(ctx, req)
	res.Duration = time.Since(start)
	return res
}

func (s *Sender) send(parent context.Context, req Request) Result {
	ctx, cancel := context.WithTimeout(parent, s.cfg.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return Result{Error: "invalid request: " + err.Error()}
	}
	for k, vs := range req.Header {
		hreq.Header[k] = append([]string(nil), vs...)
	}
	if hreq.Header.Get("User-Agent") == "" {
		hreq.Header.Set("User-Agent", s.cfg.UserAgent)
	}
	if hreq.Header.Get("Content-Type") == "" {
		hreq.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(hreq)
	if err != nil {
		return Result{Error: s.describe(parent, err)}
	}
	defer resp.Body.Close()
	excerpt := readExcerpt(resp.Body, s.cfg.MaxResponseBytes)
	// Drain a little more so the connection goes back to the pool.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))

	res := Result{StatusCode: resp.StatusCode, Body: excerpt}
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		res.OK = true
	case code >= 300 && code < 400:
		res.Error = fmt.Sprintf("redirect (%d) not followed", code)
	default:
		res.Error = fmt.Sprintf("HTTP %d", code)
		if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
			res.RetryAfter = ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
	}
	return res
}

// describe turns a transport error into the short message an operator sees.
// It prefers the innermost cause: url.Error's "Post \"…\":" prefix repeats
// the URL that the attempt log already shows.
func (s *Sender) describe(parent context.Context, err error) string {
	var blocked *BlockedError
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var netErr net.Error
	switch {
	case errors.As(err, &blocked):
		return blocked.Error()
	case parent.Err() != nil:
		// The caller gave up (shutdown), not the receiver.
		return "canceled: " + parent.Err().Error()
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout after " + s.cfg.Timeout.String()
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed without a response"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "dns: no such host " + dnsErr.Name
		}
		return "dns: " + dnsErr.Error()
	case errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &certErr):
		return "tls certificate: " + innermost(err)
	}
	return innermost(err)
}

func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		// Keep the last error whose text says more than its cause's.
		if _, isOp := err.(*net.OpError); isOp {
			return err.Error()
		}
		err = next
	}
}

// readExcerpt reads at most limit bytes and returns them as valid UTF-8 no
// longer than limit, without NUL characters, so the attempt log can store it in
// a text column (PostgreSQL refuses both invalid UTF-8 and NUL there; a body
// holding either once failed the attempt's bookkeeping).
func readExcerpt(r io.Reader, limit int) string {
	b, _ := io.ReadAll(io.LimitReader(r, int64(limit)))
	s := strings.ReplaceAll(strings.ToValidUTF8(string(b), "\uFFFD"), "\x00", "")
	if len(s) <= limit {
		return s
	}
	// Replacement characters (3 bytes) can make the text longer than the
	// raw bytes; cut back to the limit on a rune boundary.
	s = s[:limit]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// ParseRetryAfter reads a Retry-After value (delay-seconds or HTTP-date, RFC
// 9110 §10.2.3) relative to now. It returns 0 for an absent, malformed or past
// value, and clamps to 24 h so a hostile header cannot overflow a schedule.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if v[0] >= '0' && v[0] <= '9' {
		secs, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return maxRetryAfter
			}
			return 0
		}
		if secs > uint64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		return time.Duration(secs) * time.Second
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	d := t.Sub(now)
	switch {
	case d <= 0:
		return 0
	case d > maxRetryAfter:
		return maxRetryAfter
	}
	// HTTP dates have whole seconds; round up so a receiver never sees us
	// early.
	return ((d + time.Second - 1) / time.Second) * time.Second
}
