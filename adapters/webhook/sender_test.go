package webhook

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// receiver is a real local HTTP server that counts hits.
type receiver struct {
	*httptest.Server
	hits atomic.Int64
}

func newReceiver(t *testing.T, h http.HandlerFunc) *receiver {
	t.Helper()
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.hits.Add(1)
		h(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

func localSender(t *testing.T, cfg Config) *Sender {
	t.Helper()
	cfg.AllowPrivate = true
	return NewSender(cfg)
}

func TestSenderBlocksLocalAddressesAtDial(t *testing.T) {
	rcv := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {})
	tls := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { rcv.hits.Add(1) }))
	defer tls.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(rcv.URL, "http://"))

	s := NewSender(Config{})
	for _, u := range []string{rcv.URL, tls.URL, "http://localhost:" + port + "/"} {
		res := s.Send(context.Background(), Request{URL: u, Body: []byte(`{}`)})
		if res.OK || res.StatusCode != 0 || !strings.HasPrefix(res.Error, "blocked address ") {
			t.Errorf("Send(%s) = %+v, want blocked", u, res)
		}
	}
	if n := rcv.hits.Load(); n != 0 {
		t.Fatalf("receiver got %d hits through the guard", n)
	}
}

func TestSend(t *testing.T) {
	var gotUA, gotCT, gotSig, gotBody string
	ok := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		gotUA, gotCT, gotSig = r.UserAgent(), r.Header.Get("Content-Type"), r.Header.Get("X-Service-Signature")
		b := make([]byte, 64)
		n, _ := r.Body.Read(b)
		gotBody = string(b[:n])
		w.Write([]byte("thanks"))
	})
	s := localSender(t, Config{})
	res := s.Send(context.Background(), Request{
		URL:    ok.URL,
		Body:   []byte(`{"event":"x"}`),
		Header: http.Header{"X-Service-Signature": {"abc"}},
	})
	if !res.OK || res.StatusCode != 200 || res.Error != "" || res.Body != "thanks" || res.Duration <= 0 {
		t.Fatalf("2xx: %+v", res)
	}
	if gotUA != "outreachd-webhooks/1" || gotCT != "application/json" || gotSig != "abc" || gotBody != `{"event":"x"}` {
		t.Fatalf("request seen by receiver: ua=%q ct=%q sig=%q body=%q", gotUA, gotCT, gotSig, gotBody)
	}
}

func TestSendFailures(t *testing.T) {
	httpDate := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	cases := []struct {
		name    string
		handler http.HandlerFunc
		code    int
		errText string
		retry   func(time.Duration) bool
	}{
		{
			name:    "500",
			handler: func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", 500) },
			code:    500, errText: "HTTP 500",
		},
		{
			name: "429 seconds",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(429)
			},
			code: 429, errText: "HTTP 429",
			retry: func(d time.Duration) bool { return d == 7*time.Second },
		},
		{
			name: "503 http-date",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", httpDate)
				w.WriteHeader(503)
			},
			code: 503, errText: "HTTP 503",
			retry: func(d time.Duration) bool { return d >= 28*time.Second && d <= 31*time.Second },
		},
		{
			name: "500 ignores Retry-After",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(500)
			},
			code: 500, errText: "HTTP 500",
			retry: func(d time.Duration) bool { return d == 0 },
		},
		{
			name:    "410",
			handler: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(410) },
			code:    410, errText: "HTTP 410",
		},
	}
	s := localSender(t, Config{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rcv := newReceiver(t, c.handler)
			res := s.Send(context.Background(), Request{URL: rcv.URL, Body: []byte(`{}`)})
			if res.OK || res.StatusCode != c.code || res.Error != c.errText {
				t.Fatalf("got %+v", res)
			}
			if c.retry != nil && !c.retry(res.RetryAfter) {
				t.Fatalf("RetryAfter = %s", res.RetryAfter)
			}
		})
	}
}

func TestSendRedirectNotFollowed(t *testing.T) {
	target := newReceiver(t, func(http.ResponseWriter, *http.Request) {})
	redirect := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusFound)
	})
	res := localSender(t, Config{}).Send(context.Background(), Request{URL: redirect.URL})
	if res.OK || res.StatusCode != 302 || res.Error != "redirect (302) not followed" {
		t.Fatalf("got %+v", res)
	}
	if n := target.hits.Load(); n != 0 {
		t.Fatalf("redirect target got %d hits", n)
	}
}

func TestSendTimeout(t *testing.T) {
	release := make(chan struct{})
	hang := newReceiver(t, func(http.ResponseWriter, *http.Request) { <-release })
	defer close(release) // before Close waits for the handler

	s := localSender(t, Config{Timeout: 200 * time.Millisecond})
	res := s.Send(context.Background(), Request{URL: hang.URL})
	if res.OK || res.StatusCode != 0 || res.Error != "timeout after 200ms" {
		t.Fatalf("got %+v", res)
	}
	if res.Duration < 200*time.Millisecond || res.Duration > 2*time.Second {
		t.Fatalf("duration %s", res.Duration)
	}
}

func TestSendConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	res := localSender(t, Config{}).Send(context.Background(), Request{URL: "http://" + addr + "/"})
	if res.StatusCode != 0 || res.Error != "connection refused" {
		t.Fatalf("got %+v", res)
	}
}

func TestSendCutsLargeBody(t *testing.T) {
	// A multi-byte rune straddles the cut, so the excerpt must also be
	// trimmed back to valid UTF-8.
	big := strings.Repeat("a", 99) + strings.Repeat("é", 5000)
	rcv := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(500)
		w.Write([]byte(big))
	})
	res := localSender(t, Config{MaxResponseBytes: 100}).Send(context.Background(), Request{URL: rcv.URL})
	if res.StatusCode != 500 || len(res.Body) > 100 || len(res.Body) < 98 || !utf8.ValidString(res.Body) {
		t.Fatalf("excerpt %d bytes valid=%v: %q", len(res.Body), utf8.ValidString(res.Body), res.Body)
	}

	binary := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(strings.Repeat("\xff", 500)))
	})
	res = localSender(t, Config{MaxResponseBytes: 100}).Send(context.Background(), Request{URL: binary.URL})
	if !res.OK || len(res.Body) > 100 || !utf8.ValidString(res.Body) {
		t.Fatalf("binary excerpt %d bytes: %q", len(res.Body), res.Body)
	}
}

func TestSendReusesConnections(t *testing.T) {
	var conns atomic.Int64
	rcv := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })
	rcv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	s := localSender(t, Config{})
	for range 50 {
		if res := s.Send(context.Background(), Request{URL: rcv.URL}); !res.OK {
			t.Fatalf("got %+v", res)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("50 sequential sends opened %d connections, want 1", n)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{{Timeout: -1}, {MaxResponseBytes: -1}, {MaxResponseBytes: 2 << 20}, {MaxConnsPerHost: -1}} {
		if c.Validate() == nil {
			t.Errorf("%+v should be invalid", c)
		}
	}
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero Config: %v", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
	cases := map[string]time.Duration{
		"":                               0,
		"7":                              7 * time.Second,
		" 120 ":                          2 * time.Minute,
		"0":                              0,
		"-5":                             0,
		"1.5":                            0,
		"soon":                           0,
		"99999999999999999999999":        24 * time.Hour,
		"86401":                          24 * time.Hour,
		"Sun, 22 Nov 2026 06:00:45 GMT":  45 * time.Second,
		"Sunday, 22-Nov-26 06:01:00 GMT": time.Minute,
		"Sun Nov 22 06:00:10 2026":       10 * time.Second,
		"Sun, 22 Nov 2026 05:00:00 GMT":  0,
		"Sun, 22 Nov 2099 05:00:00 GMT":  24 * time.Hour,
	}
	for in, want := range cases {
		if got := ParseRetryAfter(in, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %s, want %s", in, got, want)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"7", "Sun, 22 Nov 2026 06:00:45 GMT", "-1", "1e9", "18446744073709551616"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		if d := ParseRetryAfter(s, now); d < 0 || d > 24*time.Hour {
			t.Fatalf("ParseRetryAfter(%q) = %s out of range", s, d)
		}
	})
}
