package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// This file is the webhook verifier shown in docs/api.md ("Verifying a delivery"); it uses
// the standard library only, so it can be copied into any Go receiver as it is.

// signingKey is the HMAC key of a destination secret: a secret written "whsec_<base64>" is
// base64-decoded (the Standard Webhooks form); any other secret is used as its bytes.
func signingKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if key, err := base64.StdEncoding.DecodeString(rest); err == nil && len(key) > 0 {
			return key
		}
	}
	return []byte(secret)
}

// verifyServiceSignature checks X-Service-Signature: the lowercase hex HMAC-SHA256 of the raw
// body. It carries no timestamp, so it cannot tell a replayed request from a new one.
func verifyServiceSignature(secret string, h http.Header, body []byte) error {
	mac := hmac.New(sha256.New, signingKey(secret))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(h.Get("X-Service-Signature")) {
		if got, err := hex.DecodeString(sig); err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("X-Service-Signature does not match")
}

// verifyStandardWebhook checks the Standard Webhooks headers: webhook-signature holds
// "v1,<base64 HMAC-SHA256 of webhook-id.webhook-timestamp.body>" (several, space-separated,
// while a secret is rotated), and a timestamp more than 5 minutes away from now is refused so a
// captured request cannot be replayed later.
func verifyStandardWebhook(secret string, h http.Header, body []byte, now time.Time) error {
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || id == "" {
		return errors.New("webhook-id or webhook-timestamp missing or malformed")
	}
	if age := now.Sub(time.Unix(sec, 0)); age > 5*time.Minute || age < -5*time.Minute {
		return errors.New("webhook-timestamp is more than 5 minutes from now")
	}
	mac := hmac.New(sha256.New, signingKey(secret))
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, entry := range strings.Fields(h.Get("webhook-signature")) {
		version, sig, _ := strings.Cut(entry, ",")
		if got, err := base64.StdEncoding.DecodeString(sig); version == "v1" && err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("webhook-signature does not match")
}
