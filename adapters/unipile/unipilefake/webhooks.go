package unipilefake

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"time"
)

var webhookSources = []string{"messaging", "users", "account_status", "email", "email_tracking", "calendar_event"}

func (f *Fake) listWebhooks(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	answerList(f, w, r, "WebhookList", f.st.webhooks, 250, func(h *webhook) any { return renderWebhook(h) })
}

func (f *Fake) createWebhook(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Source     string   `json:"source"`
		RequestURL string   `json:"request_url"`
		Name       string   `json:"name"`
		Format     string   `json:"format"`
		AccountIDs []string `json:"account_ids"`
		Enabled    *bool    `json:"enabled"`
		Headers    []struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		} `json:"headers"`
		Events []string `json:"events"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	u, err := url.Parse(body.RequestURL)
	switch {
	case !slices.Contains(webhookSources, body.Source):
		badRequest(w, "source must be one of %v.", webhookSources)
		return
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		badRequest(w, "request_url must be an http(s) URL.")
		return
	case body.Format != "" && body.Format != "json" && body.Format != "form":
		badRequest(w, "format must be json or form.")
		return
	}
	h := &webhook{
		id: randomID(), name: body.Name, source: body.Source, requestURL: body.RequestURL,
		format: "json", events: body.Events, accountIDs: body.AccountIDs, enabled: body.Enabled == nil || *body.Enabled,
	}
	if body.Format != "" {
		h.format = body.Format
	}
	for _, kv := range body.Headers {
		h.headers = append(h.headers, [2]string{kv.Key, kv.Value})
	}
	f.mu.Lock()
	f.st.webhooks = append(f.st.webhooks, h)
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"object": "WebhookCreated", "webhook_id": h.id})
}

func (f *Fake) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := slices.IndexFunc(f.st.webhooks, func(h *webhook) bool { return h.id == r.PathValue("id") })
	if i < 0 {
		notFound(w, "Webhook")
		return
	}
	f.st.webhooks = slices.Delete(f.st.webhooks, i, i+1)
	writeJSON(w, http.StatusOK, map[string]any{"object": "WebhookDeleted"})
}

// decodeJSON reads a JSON body; Unipile's JSON routes refuse another content type.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		badRequest(w, "an application/json body is expected.")
		return false
	}
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		badRequest(w, "the body is not valid JSON of the expected shape: %v", err)
		return false
	}
	return true
}

// Delivery is one webhook or call-back the fake sent, or was told to lose.
type Delivery struct {
	WebhookID string // "" for a hosted sign-in call-back
	URL       string
	// Event is message_received, new_relation, AccountStatus or account_callback.
	Event  string
	Body   []byte
	Header http.Header // the headers sent
	// Attempts is how many calls were made; the last answered Status (0: no answer, Err).
	Attempts int
	Status   int
	Err      string
	Lost     bool // dropped by LoseWebhooks: never sent
}

// outbound is a call to make once the lock is released.
type outbound struct {
	webhookID, url, event string
	headers               [][2]string
	body                  []byte
}

// webhookCalls builds the calls an event makes: one per enabled webhook of source that
// covers the account (and, for messaging, lists the event or none). payload gets each
// webhook's name. Holds f.mu.
func (f *Fake) webhookCalls(source, accountID, event string, payload func(webhookName string) any) []outbound {
	var out []outbound
	for _, h := range f.st.webhooks {
		if h.source != source || !h.enabled ||
			(len(h.accountIDs) > 0 && !slices.Contains(h.accountIDs, accountID)) ||
			(len(h.events) > 0 && !slices.Contains(h.events, event)) {
			continue
		}
		body, _ := json.Marshal(payload(h.name))
		out = append(out, outbound{webhookID: h.id, url: h.requestURL, event: event, headers: h.headers, body: body})
	}
	return out
}

// send starts the calls, applying LoseWebhooks and DuplicateWebhooks. Call it without f.mu,
// before the API answer or the control returns, so that WaitWebhooks covers them.
func (f *Fake) send(out []outbound) {
	for _, o := range out {
		f.mu.Lock()
		lose, dup := f.kn.loseWebhooks > 0, false
		if lose {
			f.kn.loseWebhooks--
		} else if f.kn.dupWebhooks > 0 {
			f.kn.dupWebhooks--
			dup = true
		}
		if lose {
			f.deliveries = append(f.deliveries, Delivery{WebhookID: o.webhookID, URL: o.url, Event: o.event, Body: o.body, Lost: true})
		}
		f.mu.Unlock()
		if lose {
			continue
		}
		copies := 1
		if dup {
			copies = 2
		}
		for range copies {
			f.inflight.Add(1)
			go f.deliver(o)
		}
	}
}

// deliver makes one call until it is answered 200 (Unipile retries anything else) or the
// attempts run out.
func (f *Fake) deliver(o outbound) {
	defer f.inflight.Done()
	d := Delivery{WebhookID: o.webhookID, URL: o.url, Event: o.event, Body: o.body}
	for d.Attempts < f.cfg.WebhookAttempts {
		if d.Attempts > 0 {
			time.Sleep(f.cfg.WebhookRetryDelay)
		}
		d.Attempts++
		req, err := http.NewRequest(http.MethodPost, o.url, bytes.NewReader(o.body))
		if err != nil {
			d.Err = err.Error()
			break
		}
		for _, kv := range o.headers {
			req.Header.Add(kv[0], kv[1])
		}
		d.Header = req.Header.Clone()
		resp, err := f.webhook.Do(req)
		if err != nil {
			d.Status, d.Err = 0, err.Error()
			continue
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		d.Status, d.Err = resp.StatusCode, ""
		if resp.StatusCode == http.StatusOK {
			break
		}
	}
	f.mu.Lock()
	f.deliveries = append(f.deliveries, d)
	f.mu.Unlock()
}

// Deliveries is every webhook and call-back finished or lost so far.
func (f *Fake) Deliveries() []Delivery {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.deliveries)
}
