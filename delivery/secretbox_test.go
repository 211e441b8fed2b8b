package delivery

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func testBox(t *testing.T, fill byte) *SecretBox {
	t.Helper()
	b, err := NewSecretBox(bytes.Repeat([]byte{fill}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSecretBoxRoundTrip(t *testing.T) {
	box := testBox(t, 7)
	for _, plain := range []string{"", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", strings.Repeat("é", 300)} {
		sealed, err := box.Seal(plain)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(sealed, "v1:") || (plain != "" && strings.Contains(sealed, plain)) {
			t.Fatalf("sealed form %q", sealed)
		}
		again, _ := box.Seal(plain)
		if again == sealed {
			t.Fatal("two seals of the same secret must differ (random nonce)")
		}
		got, err := box.Open(sealed)
		if err != nil || got != plain {
			t.Fatalf("Open = %q, %v; want %q", got, err, plain)
		}
	}
}

func TestSecretBoxRejectsTampering(t *testing.T) {
	box := testBox(t, 7)
	sealed, err := box.Seal("whsec_abc")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(sealed, "v1:"))
	for i := range raw {
		flipped := bytes.Clone(raw)
		flipped[i] ^= 0x01
		if _, err := box.Open("v1:" + base64.StdEncoding.EncodeToString(flipped)); !errors.Is(err, ErrSealedSecret) {
			t.Fatalf("flip at byte %d: %v", i, err)
		}
	}
	bad := []string{
		"", "whsec_abc", "v2:" + strings.TrimPrefix(sealed, "v1:"), "v1:!!!",
		"v1:" + base64.StdEncoding.EncodeToString(raw[:20]),
		"v1:" + base64.StdEncoding.EncodeToString(raw[:len(raw)-1]),
	}
	for _, s := range bad {
		if _, err := box.Open(s); !errors.Is(err, ErrSealedSecret) {
			t.Errorf("Open(%q) = %v", s, err)
		}
	}
	if _, err := testBox(t, 8).Open(sealed); !errors.Is(err, ErrSealedSecret) {
		t.Fatalf("another key opened it: %v", err)
	}
}

func TestNewSecretBoxKeyLength(t *testing.T) {
	for _, n := range []int{0, 16, 24, 31, 33} {
		if _, err := NewSecretBox(make([]byte, n)); err == nil {
			t.Errorf("%d-byte key accepted", n)
		}
	}
}

func TestParseSecretKey(t *testing.T) {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i*37 + 250)
	}
	for _, s := range []string{
		hex.EncodeToString(key),
		strings.ToUpper(hex.EncodeToString(key)),
		base64.StdEncoding.EncodeToString(key),
		base64.RawStdEncoding.EncodeToString(key),
		base64.URLEncoding.EncodeToString(key),
		" " + base64.RawURLEncoding.EncodeToString(key) + "\n",
	} {
		got, err := ParseSecretKey(s)
		if err != nil || !bytes.Equal(got, key) {
			t.Errorf("ParseSecretKey(%q) = %x, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "short", hex.EncodeToString(key[:16]), base64.StdEncoding.EncodeToString(key[:31]), hex.EncodeToString(key) + "00"} {
		if _, err := ParseSecretKey(s); err == nil {
			t.Errorf("ParseSecretKey(%q) accepted", s)
		}
	}
}
