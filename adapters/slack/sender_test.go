package slack

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"outreachd/outreach"
)

var sampleKinds = []outreach.EventKind{
	outreach.EventReplyPositive,
	outreach.EventNeedsHuman,
	outreach.EventCallBooked,
	outreach.EventAccountDisconnected,
	outreach.EventDailyDigest,
}

// newSender builds a Sender the way the hub does: its own client with a timeout and no redirects.
func newSender(t *testing.T, apiURL string) *Sender {
	t.Helper()
	client := &http.Client{
		Timeout:       5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	s, err := New(client, Config{APIURL: apiURL})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkBlocks asserts that raw is a Block Kit array that starts with a header saying title.
func checkBlocks(t *testing.T, raw []byte, title string) {
	t.Helper()
	var blocks []map[string]any
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatalf("blocks are not a JSON array: %v: %s", err, raw)
	}
	if len(blocks) < 3 || blocks[0]["type"] != "header" {
		t.Fatalf("blocks %s", raw)
	}
	if h := blocks[0]["text"].(map[string]any)["text"].(string); !strings.Contains(h, title) {
		t.Errorf("header %q does not contain %q", h, title)
	}
}

func TestSendWebhook(t *testing.T) {
	for _, k := range sampleKinds {
		t.Run(string(k), func(t *testing.T) {
			ev := outreach.SampleEvent(k, "org_1", at)
			hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != "/services/T0/B0/secret" {
					t.Errorf("%s %s", r.Method, r.URL.Path)
				}
				if ct := r.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				var msg struct {
					Text        string          `json:"text"`
					Blocks      json.RawMessage `json:"blocks"`
					UnfurlLinks *bool           `json:"unfurl_links"`
				}
				if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
					t.Errorf("body is not JSON: %v", err)
				}
				if msg.Text != Title(ev) {
					t.Errorf("text %q, want %q", msg.Text, Title(ev))
				}
				if msg.UnfurlLinks == nil || *msg.UnfurlLinks {
					t.Errorf("unfurl_links should be false")
				}
				checkBlocks(t, msg.Blocks, Title(ev))
				_, _ = io.WriteString(w, "ok")
			}))
			defer hook.Close()

			res, err := newSender(t, "").Send(context.Background(), Target{WebhookURL: hook.URL + "/services/T0/B0/secret"}, ev)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusOK || res.Body != "ok" || res.Duration <= 0 {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestSendBot(t *testing.T) {
	for _, k := range sampleKinds {
		t.Run(string(k), func(t *testing.T) {
			ev := outreach.SampleEvent(k, "org_1", at)
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != "/api/chat.postMessage" {
					t.Errorf("%s %s", r.Method, r.URL.Path)
				}
				if err := r.ParseForm(); err != nil {
					t.Fatal(err)
				}
				// slack-go v0.35 sends the token as the POST form field, which Slack accepts.
				if got := r.PostForm.Get("token"); got != "xoxb-test-token" {
					t.Errorf("token %q", got)
				}
				if got := r.PostForm.Get("channel"); got != "C0123" {
					t.Errorf("channel %q", got)
				}
				if got := r.PostForm.Get("text"); got != Title(ev) {
					t.Errorf("text %q, want %q", got, Title(ev))
				}
				if got := r.PostForm.Get("unfurl_links"); got != "false" {
					t.Errorf("unfurl_links %q", got)
				}
				checkBlocks(t, []byte(r.PostForm.Get("blocks")), Title(ev))
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"ok":true,"channel":"C0123","ts":"1795329104.000100"}`)
			}))
			defer api.Close()

			res, err := newSender(t, api.URL+"/api").Send(context.Background(), Target{BotToken: "xoxb-test-token", Channel: "C0123"}, ev)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusOK || !strings.Contains(res.Body, `"ok":true`) {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestSendErrors(t *testing.T) {
	ev := outreach.SampleEvent(outreach.EventReplyPositive, "org_1", at)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hook/gone":
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, "no_service")
		case "/hook/busy":
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
		case "/hook/moved":
			http.Redirect(w, r, "/hook/ok", http.StatusFound)
		case "/hook/busy-until":
			w.Header().Set("Retry-After", time.Now().Add(45*time.Second).UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusTooManyRequests)
		case "/hook/accepted":
			if ua := r.Header.Get("User-Agent"); ua != "outreachd-webhooks/1" {
				t.Errorf("User-Agent = %q, want the service's own", ua)
			}
			w.WriteHeader(http.StatusNoContent)
		case "/api/chat.postMessage":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"ok":false,"error":"channel_not_found"}`)
		default:
			t.Errorf("unexpected %s", r.URL.Path)
		}
	}))
	defer srv.Close()
	s := newSender(t, srv.URL+"/api/")
	ctx := context.Background()

	tests := []struct {
		name       string
		dest       Target
		status     int
		wantErr    []string
		retryAfter time.Duration
	}{
		{"webhook 404", Target{WebhookURL: srv.URL + "/hook/gone"}, 404, []string{"slack webhook", "message rejected", "no_service"}, 0},
		{"webhook 429", Target{WebhookURL: srv.URL + "/hook/busy"}, 429, []string{"message rejected"}, 30 * time.Second},
		{"redirect is not followed", Target{WebhookURL: srv.URL + "/hook/moved"}, 302, []string{"message rejected"}, 0},
		{"api ok:false", Target{BotToken: "xoxb-x", Channel: "C404"}, 200, []string{"chat.postMessage", "message rejected", "channel_not_found"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Send(ctx, tt.dest, ev)
			if !errors.Is(err, ErrRejected) {
				t.Fatalf("err = %v, want ErrRejected", err)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if res.StatusCode != tt.status || res.RetryAfter != tt.retryAfter {
				t.Errorf("result %+v, want status %d retry after %s", res, tt.status, tt.retryAfter)
			}
		})
	}

	t.Run("Retry-After as an HTTP date", func(t *testing.T) {
		res, err := s.Send(ctx, Target{WebhookURL: srv.URL + "/hook/busy-until"}, ev)
		if !errors.Is(err, ErrRejected) || res.RetryAfter < 43*time.Second || res.RetryAfter > 46*time.Second {
			t.Errorf("Send = %+v, %v; want a rejection with Retry-After ≈ 45s", res, err)
		}
	})

	t.Run("any 2xx is success", func(t *testing.T) {
		res, err := s.Send(ctx, Target{WebhookURL: srv.URL + "/hook/accepted"}, ev)
		if err != nil || res.StatusCode != http.StatusNoContent {
			t.Errorf("Send = %+v, %v", res, err)
		}
	})

	t.Run("no answer keeps the webhook URL secret", func(t *testing.T) {
		dead := httptest.NewServer(http.NotFoundHandler())
		u := dead.URL + "/services/T0/B0/very-secret"
		dead.Close()
		res, err := s.Send(ctx, Target{WebhookURL: u}, ev)
		if err == nil || errors.Is(err, ErrRejected) || res.StatusCode != 0 {
			t.Fatalf("Send = %+v, %v; want a transport error and no status", res, err)
		}
		if strings.Contains(err.Error(), "very-secret") {
			t.Errorf("error leaks the webhook URL: %v", err)
		}
		var ue *url.Error
		if !errors.As(err, &ue) {
			t.Errorf("the transport error is not wrapped: %v", err)
		}
	})

	for _, bad := range []Target{{}, {Channel: "C1"}, {BotToken: "xoxb"}, {WebhookURL: srv.URL, BotToken: "xoxb", Channel: "C1"}} {
		if _, err := s.Send(ctx, bad, ev); !errors.Is(err, ErrTarget) {
			t.Errorf("Send(%+v) = %v, want ErrTarget", bad, err)
		}
	}
}

func TestNew(t *testing.T) {
	if _, err := New(nil, Config{}); err == nil {
		t.Error("New accepted a nil client")
	}
	if _, err := New(http.DefaultClient, Config{APIURL: "ftp://slack"}); err == nil {
		t.Error("New accepted a non-http API URL")
	}
	s, err := New(http.DefaultClient, Config{APIURL: "http://127.0.0.1:9/api"})
	if err != nil || s.cfg.APIURL != "http://127.0.0.1:9/api/" {
		t.Errorf("New = %+v, %v; want the API URL to end in a slash", s, err)
	}
	s, _ = New(http.DefaultClient, Config{})
	if s.cfg.APIURL != "https://slack.com/api/" {
		t.Errorf("default API URL %q", s.cfg.APIURL)
	}
}
