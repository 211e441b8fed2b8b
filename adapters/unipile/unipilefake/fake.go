// Package unipilefake is an in-process fake of Unipile's API v1 for tests: the paths and
// methods Unipile documents, its multipart and JSON bodies, X-API-KEY, RFC 7807 errors with
// Unipile's type strings, cursor paging with small pages, and the webhooks Unipile sends
// (with their registered headers, and no Content-Type unless a header sets one). Its state
// is a small LinkedIn: seats, people, invitations, relations, chats and messages. Test
// controls play the other side (a person accepts, replies; a seat is disconnected) and knobs
// break things the way the real service does (429, 5xx, an answer lost after the action was
// carried out, webhooks lost, late or delivered twice).
//
// It is written from Unipile's reference and SDK independently of package unipile's types,
// and does not import it: a wrong field name in the client fails its tests here instead of
// being mirrored. It is for tests only: nothing here is secret or durable.
package unipilefake

import (
	"cmp"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Config tunes the fake. Zero values take the defaults.
type Config struct {
	// APIKey is the X-API-KEY every /api/v1 call must carry (required).
	APIKey string
	// PageSize is the most items one list page holds (2 by default, so tests page).
	PageSize int
	// WebhookAttempts is how many times a webhook call is made until one answers 200 (6 by
	// default: Unipile's call and its five retries).
	WebhookAttempts int
	// WebhookRetryDelay is the pause between two attempts (10 ms by default; Unipile waits
	// longer, growing).
	WebhookRetryDelay time.Duration
	// WebhookTimeout bounds one webhook call (5 s by default; Unipile allows 30 s).
	WebhookTimeout time.Duration
	// Now is the fake's clock (time.Now by default).
	Now func() time.Time
}

func (c *Config) setDefaults() {
	c.PageSize = cmp.Or(c.PageSize, 2)
	c.WebhookAttempts = cmp.Or(c.WebhookAttempts, 6)
	c.WebhookRetryDelay = cmp.Or(c.WebhookRetryDelay, 10*time.Millisecond)
	c.WebhookTimeout = cmp.Or(c.WebhookTimeout, 5*time.Second)
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Validate reports a configuration New would refuse.
func (c Config) Validate() error {
	if c.APIKey == "" {
		return errors.New("unipilefake: an API key is required")
	}
	if c.PageSize < 0 || c.WebhookAttempts < 0 || c.WebhookRetryDelay < 0 || c.WebhookTimeout < 0 {
		return errors.New("unipilefake: sizes and durations must not be negative")
	}
	return nil
}

// Fake is a running fake Unipile. It is safe for concurrent use.
type Fake struct {
	cfg     Config
	srv     *httptest.Server
	mux     *http.ServeMux
	webhook *http.Client

	mu sync.Mutex
	st state
	kn knobs
	// log and deliveries are what tests read back.
	log        []Request
	deliveries []Delivery
	// inflight counts webhook calls started and not finished (WaitWebhooks).
	inflight sync.WaitGroup
}

// New starts a fake on a local port.
func New(cfg Config) (*Fake, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	f := &Fake{cfg: cfg, st: newState(), webhook: &http.Client{Timeout: cfg.WebhookTimeout}}
	f.mux = f.routes()
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	return f, nil
}

// URL is the fake's address, which is also the DSN to give a client ("http://127.0.0.1:N").
func (f *Fake) URL() string { return f.srv.URL }

// Close waits for the webhook calls under way, then stops the server.
func (f *Fake) Close() {
	f.WaitWebhooks()
	f.srv.Close()
}

// WaitWebhooks blocks until every webhook and call-back started so far (retries included) has
// finished. Controls and API calls start their webhooks before they return, so a test that
// acts and then waits here sees every delivery the action caused.
func (f *Fake) WaitWebhooks() { f.inflight.Wait() }

func (f *Fake) now() time.Time { return f.cfg.Now().UTC() }

func (f *Fake) routes() *http.ServeMux {
	m := http.NewServeMux()
	for pattern, h := range map[string]http.HandlerFunc{
		"GET /api/v1/accounts":                  f.listAccounts,
		"GET /api/v1/accounts/{id}":             f.getAccount,
		"POST /api/v1/hosted/accounts/link":     f.createLink,
		"GET /api/v1/users/me":                  f.seatRoute(f.getMe),
		"GET /api/v1/users/{identifier}":        f.seatRoute(f.getProfile),
		"GET /api/v1/linkedin/company/{id}":     f.seatRoute(f.getCompany),
		"POST /api/v1/users/invite":             f.invite,
		"GET /api/v1/users/invite/sent":         f.seatRoute(f.listSent),
		"DELETE /api/v1/users/invite/sent/{id}": f.seatRoute(f.cancelInvite),
		"GET /api/v1/users/relations":           f.seatRoute(f.listRelations),
		"POST /api/v1/chats":                    f.startChat,
		"GET /api/v1/chats":                     f.seatRoute(f.listChats),
		"GET /api/v1/chats/{id}":                f.chatRoute(f.getChat),
		"GET /api/v1/chats/{id}/messages":       f.chatRoute(f.listMessages),
		"POST /api/v1/chats/{id}/messages":      f.sendMessage,
		"GET /api/v1/chats/{id}/attendees":      f.chatRoute(f.listAttendees),
		"GET /api/v1/webhooks":                  f.listWebhooks,
		"POST /api/v1/webhooks":                 f.createWebhook,
		"DELETE /api/v1/webhooks/{id}":          f.deleteWebhook,
		"GET /hosted/{token}":                   f.hostedPage,
	} {
		m.HandleFunc(pattern, h)
	}
	return m
}

// serve checks the key, reads the body for the log, applies the knobs and runs the route.
func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	api := strings.HasPrefix(r.URL.Path, "/api/v1/")
	req, err := f.record(r)
	if err != nil {
		problem(w, http.StatusBadRequest, typeInvalidParameters, "Invalid parameters", err.Error())
		return
	}
	if api && r.Header.Get("X-API-KEY") != f.cfg.APIKey {
		detail := "The X-API-KEY header is missing."
		if r.Header.Get("X-API-KEY") != "" {
			detail = "The X-API-KEY header does not match any API key."
		}
		req.Status = http.StatusUnauthorized
		f.appendLog(req)
		problem(w, http.StatusUnauthorized, typeMissingCredentials, "Missing credentials", detail)
		return
	}
	_, pattern := f.mux.Handler(r)
	if pattern == "" {
		req.Status = http.StatusNotFound
		f.appendLog(req)
		problem(w, http.StatusNotFound, typeResourceNotFound, "Resource not found.", "No route "+r.Method+" "+r.URL.Path+".")
		return
	}
	req.Pattern = pattern[strings.IndexByte(pattern, ' ')+1:]
	if fail, ok := f.takeFailure(req); ok {
		req.Status = fail.Status
		f.appendLog(req)
		fail.write(w)
		return
	}
	// The route answers into a recorder, so that the call is in the log before the client
	// can see its answer.
	rec := httptest.NewRecorder()
	f.mux.ServeHTTP(rec, r)
	req.Status, req.Performed = rec.Code, performed(r.Method, rec.Code)
	if loss, ok := f.takeLoss(req); ok {
		req.Status = loss.status()
		f.appendLog(req)
		loss.write(w)
		return
	}
	f.appendLog(req)
	maps.Copy(w.Header(), rec.Header())
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// performed reports whether a call that answered status changed the fake's state.
func performed(method string, status int) bool {
	return method != http.MethodGet && status >= 200 && status <= 299
}
