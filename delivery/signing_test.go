package delivery

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The vector published with the Standard Webhooks reference libraries
// (and Svix's): if we reproduce it, receivers' libraries accept us.
func TestStandardWebhooksVector(t *testing.T) {
	const (
		secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		id     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
		want   = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	)
	ts := time.Unix(1614265330, 0)
	body := []byte(`{"test": 2432232314}`)
	h := SignatureHeaders(secret, id, ts, body)
	if got := h.Get(HeaderWebhookSignature); got != want {
		t.Fatalf("webhook-signature = %q, want %q", got, want)
	}
	if h.Get(HeaderWebhookID) != id || h.Get(HeaderWebhookTimestamp) != "1614265330" {
		t.Fatalf("id/timestamp headers: %v", h)
	}
	if err := VerifyStandard(secret, h, body, ts.Add(time.Minute), 0); err != nil {
		t.Fatalf("VerifyStandard: %v", err)
	}
}

// Both MACs recomputed independently with crypto/hmac, for a plain secret
// (keyed on its bytes) and a whsec_ one (keyed on the decoded bytes).
func TestSignatureHeadersKnownAnswer(t *testing.T) {
	rawKey := []byte{0, 1, 2, 3, 250, 251, 252, 253}
	cases := []struct {
		secret string
		key    []byte
	}{
		{"plain-secret", []byte("plain-secret")},
		{"whsec_" + base64.StdEncoding.EncodeToString(rawKey), rawKey},
		{"whsec_not*base64", []byte("whsec_not*base64")}, // undecodable: used as given
		{"whsec_", []byte("whsec_")},                     // decodes to nothing: used as given
	}
	id, ts, body := "del_01", time.Unix(1700000000, 0), []byte(`{"event":"reply_received"}`)
	for _, c := range cases {
		t.Run(c.secret, func(t *testing.T) {
			h := SignatureHeaders(c.secret, id, ts, body)

			m := hmac.New(sha256.New, c.key)
			m.Write(body)
			if want := hex.EncodeToString(m.Sum(nil)); h.Get("X-Service-Signature") != want {
				t.Errorf("X-Service-Signature = %q, want %q", h.Get("X-Service-Signature"), want)
			}
			m = hmac.New(sha256.New, c.key)
			m.Write([]byte("del_01.1700000000." + string(body)))
			if want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil)); h.Get("webhook-signature") != want {
				t.Errorf("webhook-signature = %q, want %q", h.Get("webhook-signature"), want)
			}
			if err := VerifyHex(c.secret, h, body); err != nil {
				t.Errorf("VerifyHex: %v", err)
			}
		})
	}
}

func TestSignatureHeadersWithoutSecret(t *testing.T) {
	h := SignatureHeaders("", "del_01", time.Unix(1700000000, 0), []byte("{}"))
	if h.Get("webhook-id") != "del_01" || h.Get("webhook-timestamp") != "1700000000" {
		t.Fatalf("id headers missing: %v", h)
	}
	if h.Get("X-Service-Signature") != "" || h.Get("webhook-signature") != "" || len(h) != 2 {
		t.Fatalf("no signature expected without a secret: %v", h)
	}
}

func TestVerifyStandard(t *testing.T) {
	oldSecret, newSecret := GenerateSecret(), GenerateSecret()
	now := time.Unix(1700000000, 0)
	body := []byte(`{"event":"message_sent"}`)
	signed := func(secret string, ts time.Time) http.Header { return SignatureHeaders(secret, "del_9", ts, body) }

	rotated := signed(newSecret, now)
	rotated.Set("webhook-signature", signed(oldSecret, now).Get("webhook-signature")+" "+rotated.Get("webhook-signature"))

	withSig := func(sig string) http.Header {
		h := signed(newSecret, now)
		h.Set("webhook-signature", sig)
		return h
	}
	cases := []struct {
		name string
		h    http.Header
		body []byte
		want error
	}{
		{"valid", signed(newSecret, now), body, nil},
		{"rotation, second valid", rotated, body, nil},
		{"wrong secret", signed(oldSecret, now), body, ErrSignatureMismatch},
		{"tampered body", signed(newSecret, now), []byte(`{"event":"message_sent "}`), ErrSignatureMismatch},
		{"edge of window", signed(newSecret, now.Add(-5*time.Minute)), body, nil},
		{"too old", signed(newSecret, now.Add(-5*time.Minute-time.Second)), body, ErrSignatureTimestamp},
		{"too new", signed(newSecret, now.Add(5*time.Minute+time.Second)), body, ErrSignatureTimestamp},
		{"unknown version only", withSig("v2," + strings.Repeat("A", 44)), body, ErrSignatureMismatch},
		{"garbage entries", withSig("v1 v1,%%% ,,, v1,"), body, ErrSignatureMismatch},
		{"no headers", http.Header{}, body, ErrSignatureMissing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := VerifyStandard(newSecret, c.h, c.body, now, 5*time.Minute)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}

	// The timestamp is signed: moving it forward breaks the signature.
	h := signed(newSecret, now)
	h.Set("webhook-timestamp", "1700000001")
	if err := VerifyStandard(newSecret, h, body, now, 0); !errors.Is(err, ErrSignatureMismatch) {
		t.Fatalf("re-timestamped: %v", err)
	}
	h.Set("webhook-timestamp", "-9223372036854775808")
	if err := VerifyStandard(newSecret, h, body, now, 0); !errors.Is(err, ErrSignatureTimestamp) {
		t.Fatalf("extreme timestamp: %v", err)
	}
}

func TestVerifyHex(t *testing.T) {
	secret, body := "s3cret", []byte("payload")
	h := SignatureHeaders(secret, "del_1", time.Now(), body)
	if err := VerifyHex(secret, h, body); err != nil {
		t.Fatal(err)
	}
	if err := VerifyHex(secret, h, []byte("payloaD")); !errors.Is(err, ErrSignatureMismatch) {
		t.Fatalf("tampered body: %v", err)
	}
	if err := VerifyHex("other", h, body); !errors.Is(err, ErrSignatureMismatch) {
		t.Fatalf("wrong secret: %v", err)
	}
	rot := SignatureHeaders("old", "del_1", time.Now(), body)
	rot.Set("X-Service-Signature", rot.Get("X-Service-Signature")+" "+h.Get("X-Service-Signature"))
	if err := VerifyHex(secret, rot, body); err != nil {
		t.Fatalf("rotation: %v", err)
	}
	if err := VerifyHex(secret, http.Header{}, body); !errors.Is(err, ErrSignatureMissing) {
		t.Fatalf("missing: %v", err)
	}
}

func TestGenerateSecret(t *testing.T) {
	a, b := GenerateSecret(), GenerateSecret()
	if a == b || !strings.HasPrefix(a, "whsec_") {
		t.Fatalf("secrets %q %q", a, b)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(a, "whsec_"))
	if err != nil || len(raw) != 32 {
		t.Fatalf("decoded %d bytes, err %v", len(raw), err)
	}
	if got := signingKey(a); !hmac.Equal(got, raw) {
		t.Fatal("a generated secret must be keyed on its decoded bytes")
	}
}

func FuzzVerifyStandard(f *testing.F) {
	f.Add("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_1", int64(1614265330), []byte(`{"test": 2432232314}`), "v1,AAAA")
	f.Add("plain", "id", int64(-1), []byte{}, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE= v2,x")
	f.Add("whsec_", "é", int64(1<<62), []byte{0xff}, "")
	f.Fuzz(func(t *testing.T, secret, id string, unix int64, body []byte, sig string) {
		// Arbitrary headers must never panic.
		now := time.Unix(unix, 0)
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", sig)
		h.Set("webhook-signature", sig)
		_ = VerifyStandard(secret, h, body, now, time.Minute)
		_ = VerifyHex(secret, http.Header{"X-Service-Signature": {sig}}, body)

		// What we sign, a receiver verifies.
		if secret == "" || id == "" {
			return
		}
		signed := SignatureHeaders(secret, id, now, body)
		if err := VerifyStandard(secret, signed, body, now, time.Minute); err != nil {
			t.Fatalf("own signature rejected: %v", err)
		}
		if err := VerifyHex(secret, signed, body); err != nil {
			t.Fatalf("own hex signature rejected: %v", err)
		}
	})
}
