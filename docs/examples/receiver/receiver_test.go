package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/internal/testenv"
)

// The verifier of the docs accepts what the service's own signing code (delivery.SignatureHeaders)
// produces, for every form of secret, and refuses a changed body, another secret, a stale
// timestamp and a missing signature.
func TestVerifierAcceptsServiceSignatures(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event":"reply_received","timestamp":"2026-11-22T06:31:44.123Z","org_id":"org_1","data":{"test":true}}`)
	now := time.Unix(1_800_000_000, 0)
	for _, secret := range []string{"my-local-secret", delivery.GenerateSecret(), "whsec_not*base64"} {
		t.Run(secret, func(t *testing.T) {
			h := delivery.SignatureHeaders(secret, "dlv_01", now.Add(-time.Minute), body)
			if err := verifyServiceSignature(secret, h, body); err != nil {
				t.Errorf("hex scheme: %v", err)
			}
			if err := verifyStandardWebhook(secret, h, body, now); err != nil {
				t.Errorf("standard scheme: %v", err)
			}
			// Rotation: several signatures, one of them good.
			rotated := h.Clone()
			rotated.Set("webhook-signature", "v1,AAAA "+h.Get("webhook-signature"))
			rotated.Set("X-Service-Signature", "00ff "+h.Get("X-Service-Signature"))
			if verifyServiceSignature(secret, rotated, body) != nil || verifyStandardWebhook(secret, rotated, body, now) != nil {
				t.Error("a good signature among several is refused")
			}
			changed := bytes.Replace(body, []byte("true"), []byte("false"), 1)
			if verifyServiceSignature(secret, h, changed) == nil || verifyStandardWebhook(secret, h, changed, now) == nil {
				t.Error("a changed body passes")
			}
			if verifyServiceSignature(secret+"x", h, body) == nil || verifyStandardWebhook(secret+"x", h, body, now) == nil {
				t.Error("another secret passes")
			}
			if verifyStandardWebhook(secret, h, body, now.Add(5*time.Minute)) == nil {
				t.Error("a timestamp 6 minutes old passes")
			}
			if verifyServiceSignature(secret, http.Header{}, body) == nil || verifyStandardWebhook(secret, http.Header{}, body, now) == nil {
				t.Error("an unsigned request passes")
			}
		})
	}
	// The vector published with the Standard Webhooks libraries.
	h := http.Header{}
	h.Set("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek")
	h.Set("webhook-timestamp", "1614265330")
	h.Set("webhook-signature", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	if err := verifyStandardWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", h, []byte(`{"test": 2432232314}`), time.Unix(1614265330, 0)); err != nil {
		t.Errorf("Standard Webhooks vector: %v", err)
	}
}

// syncBuffer is the receiver's output, read by the test while the server writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// The README's quick start against the built binary: a destination pointing at this receiver,
// a Test send, both signatures valid; with the wrong secret the receiver answers 401 and the
// Test send reports it.
func TestReceiverQuickStart(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	for _, c := range []struct{ name, sent, known string }{
		{"plain secret", "my-local-secret", "my-local-secret"},
		{"whsec secret", "generate", ""},
		{"wrong secret", "my-local-secret", "another-secret"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := &syncBuffer{}
			rc := &receiver{out: out, seen: map[string]bool{}, now: time.Now, secret: c.known}
			hook := httptest.NewServer(rc)
			defer hook.Close()
			d := org.Write.Do(t, "POST", "/api/v1/destinations", map[string]any{
				"name": c.name, "url": hook.URL + "/hook", "events": "all", "secret": c.sent})
			if d.Status != 201 {
				t.Fatalf("create destination: %d %s", d.Status, d.Body)
			}
			data := d.JSON["data"].(map[string]any)
			if c.sent == "generate" {
				rc.mu.Lock()
				rc.secret = data["secret"].(string)
				rc.mu.Unlock()
			}
			id := data["id"].(string)
			defer org.Write.Do(t, "DELETE", "/api/v1/destinations/"+id, nil)
			res := org.Write.Do(t, "POST", "/api/v1/destinations/"+id+"/test", nil)
			if res.Status != 200 {
				t.Fatalf("test send: %d %s", res.Status, res.Body)
			}
			got := res.JSON["data"].(map[string]any)
			printed := out.String()
			if c.name == "wrong secret" {
				if got["status_code"] != float64(401) || !strings.Contains(printed, "INVALID") {
					t.Fatalf("a wrong secret was not caught: %v\n%s", got, printed)
				}
				return
			}
			if got["ok"] != true || got["status_code"] != float64(204) {
				t.Fatalf("test send result %v\nreceiver printed:\n%s", got, printed)
			}
			if !strings.Contains(printed, "X-Service-Signature: valid") || !strings.Contains(printed, "webhook-signature:   valid") {
				t.Fatalf("both signatures should be valid; receiver printed:\n%s", printed)
			}
		})
	}
}
