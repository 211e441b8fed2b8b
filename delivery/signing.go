package delivery

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names of the two signature schemes every delivery may carry: the
// hex HMAC of the raw body and the Standard Webhooks set, which
// receivers' existing libraries verify and which protects against replays.
const (
	HeaderServiceSignature = "X-Service-Signature"
	HeaderWebhookID        = "webhook-id"
	HeaderWebhookTimestamp = "webhook-timestamp"
	HeaderWebhookSignature = "webhook-signature"
)

// DefaultSignatureTolerance is the replay window Standard Webhooks receivers
// use; VerifyStandard applies it when given a tolerance <= 0.
const DefaultSignatureTolerance = 5 * time.Minute

const secretPrefix = "whsec_"

var (
	ErrSignatureMissing   = errors.New("webhook signature headers missing")
	ErrSignatureMismatch  = errors.New("no webhook signature matches")
	ErrSignatureTimestamp = errors.New("webhook timestamp outside tolerance")
)

// SignatureHeaders returns the headers that identify and sign one attempt.
// msgID is the delivery id, stable across retries so receivers can dedupe;
// ts is the attempt time, so each retry is signed afresh. webhook-id and
// webhook-timestamp are always set; without a secret no signature is sent
// (docs/api.md, "Verifying a delivery"), since a signature under an empty key proves nothing.
func SignatureHeaders(secret string, msgID string, ts time.Time, body []byte) http.Header {
	return RotatingSignatureHeaders(secret, "", msgID, ts, body)
}

// RotatingSignatureHeaders is SignatureHeaders during a secret rotation: previous, the secret
// being replaced ("" when none), signs beside secret for the overlap window. webhook-signature
// then carries two space-separated "v1," entries, the new secret's first, so a receiver holding
// either secret verifies (Standard Webhooks allows several); X-Service-Signature, which has room
// for one value in the contract, is always on the new secret. Without a current secret nothing
// is signed, whatever previous holds.
func RotatingSignatureHeaders(secret, previous string, msgID string, ts time.Time, body []byte) http.Header {
	h := make(http.Header, 4)
	unix := strconv.FormatInt(ts.Unix(), 10)
	h.Set(HeaderWebhookID, msgID)
	h.Set(HeaderWebhookTimestamp, unix)
	if secret == "" {
		return h
	}
	key := signingKey(secret)
	h.Set(HeaderServiceSignature, hex.EncodeToString(hmacSHA256(key, body)))
	sig := "v1," + base64.StdEncoding.EncodeToString(standardMAC(key, msgID, unix, body))
	if previous != "" && previous != secret {
		sig += " v1," + base64.StdEncoding.EncodeToString(standardMAC(signingKey(previous), msgID, unix, body))
	}
	h.Set(HeaderWebhookSignature, sig)
	return h
}

// signingKey is the HMAC key for a destination secret: its bytes as given,
// except that the Standard Webhooks form "whsec_<base64>" is decoded, so
// receivers' libraries (which decode it) compute the same MAC. A whsec_
// secret whose remainder is not valid padded base64, or decodes to nothing,
// is used as given: refusing would make a user's chosen secret unusable, and
// both of our HMACs still agree with any receiver that keys on the raw text.
func signingKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, secretPrefix); ok {
		if b, err := base64.StdEncoding.DecodeString(rest); err == nil && len(b) > 0 {
			return b
		}
	}
	return []byte(secret)
}

func hmacSHA256(key, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return m.Sum(nil)
}

// standardMAC signs "id.timestamp.body" with the timestamp exactly as sent.
func standardMAC(key []byte, id, unix string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(unix))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// GenerateSecret returns a new destination secret in the Standard Webhooks
// form: "whsec_" + base64 of 32 random bytes.
func GenerateSecret() string {
	b := make([]byte, 32)
	// crypto/rand.Read never fails since Go 1.24 (it crashes the program
	// instead of returning weak bytes), so there is no error to handle.
	_, _ = rand.Read(b)
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

// VerifyStandard is the receiver's check of the Standard Webhooks headers,
// used by tests and shown in the docs. It accepts any one of several
// space-separated "v1,<sig>" entries, so a sender rotating its key can sign
// with both, and rejects timestamps further than tolerance from now (default
// 5 minutes when tolerance <= 0) to stop replays.
func VerifyStandard(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, unix, sigs := h.Get(HeaderWebhookID), h.Get(HeaderWebhookTimestamp), h.Get(HeaderWebhookSignature)
	if secret == "" || id == "" || unix == "" || sigs == "" {
		return ErrSignatureMissing
	}
	ts, err := strconv.ParseInt(unix, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: bad timestamp %q", ErrSignatureTimestamp, unix)
	}
	if tolerance <= 0 {
		tolerance = DefaultSignatureTolerance
	}
	if n := now.Unix(); secondsApart(ts, n) > uint64(tolerance/time.Second) {
		return fmt.Errorf("%w: %d is more than %s from %d", ErrSignatureTimestamp, ts, tolerance, n)
	}
	want := standardMAC(signingKey(secret), id, unix, body)
	for _, entry := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err != nil {
			continue
		}
		if hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrSignatureMismatch
}

// secondsApart is |a-b| without overflow: the timestamp is attacker-chosen
// and may sit at either end of int64.
func secondsApart(a, b int64) uint64 {
	if a < b {
		a, b = b, a
	}
	return uint64(a) - uint64(b)
}

// VerifyHex is the receiver's check of X-Service-Signature, the first
// signature. It has no timestamp, so it cannot detect replays; receivers that
// care should use VerifyStandard. Several space-separated values are accepted
// for key rotation, like VerifyStandard.
func VerifyHex(secret string, h http.Header, body []byte) error {
	sigs := h.Get(HeaderServiceSignature)
	if secret == "" || sigs == "" {
		return ErrSignatureMissing
	}
	want := hmacSHA256(signingKey(secret), body)
	for _, s := range strings.Fields(sigs) {
		got, err := hex.DecodeString(s)
		if err != nil {
			continue
		}
		if hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrSignatureMismatch
}
