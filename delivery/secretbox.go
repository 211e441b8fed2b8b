package delivery

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// ErrSealedSecret means a sealed destination secret could not be opened: it is
// malformed, was tampered with, or was sealed under another key.
var ErrSealedSecret = errors.New("sealed secret cannot be opened")

const sealedPrefix = "v1:"

// secretBoxAAD binds ciphertexts to this format version, so a future "v2:"
// scheme cannot be fed a v1 ciphertext that still authenticates.
var secretBoxAAD = []byte("outreachd destination secret v1")

// SecretBox seals destination signing secrets at rest with AES-256-GCM, so a
// database dump alone does not let anyone forge webhooks. It is safe for
// concurrent use.
type SecretBox struct {
	aead cipher.AEAD
}

// NewSecretBox takes the 32-byte key (see ParseSecretKey).
func NewSecretBox(key []byte) (*SecretBox, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("secret box key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secret box: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secret box: %w", err)
	}
	return &SecretBox{aead: aead}, nil
}

// Seal returns "v1:" + base64(nonce || ciphertext). Nonces are random: with
// 96 bits and at most a few secrets per destination, collisions are not a
// practical concern.
func (b *SecretBox) Seal(plaintext string) (string, error) {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("secret box nonce: %w", err)
	}
	out := b.aead.Seal(nonce, nonce, []byte(plaintext), secretBoxAAD)
	return sealedPrefix + base64.StdEncoding.EncodeToString(out), nil
}

// Open reverses Seal. Every failure wraps ErrSealedSecret and says nothing
// about the plaintext.
func (b *SecretBox) Open(sealed string) (string, error) {
	rest, ok := strings.CutPrefix(sealed, sealedPrefix)
	if !ok {
		return "", fmt.Errorf("%w: unknown format", ErrSealedSecret)
	}
	raw, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		return "", fmt.Errorf("%w: bad encoding", ErrSealedSecret)
	}
	ns := b.aead.NonceSize()
	if len(raw) < ns+b.aead.Overhead() {
		return "", fmt.Errorf("%w: too short", ErrSealedSecret)
	}
	plain, err := b.aead.Open(nil, raw[:ns], raw[ns:], secretBoxAAD)
	if err != nil {
		return "", fmt.Errorf("%w: authentication failed", ErrSealedSecret)
	}
	return string(plain), nil
}

// ParseSecretKey reads the at-rest key from configuration, written as 64 hex
// digits or as base64 (standard or URL alphabet, padded or not) of 32 bytes,
// the forms `openssl rand -hex 32` and `-base64 32` print.
func ParseSecretKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 64 {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == 32 {
			return b, nil
		}
	}
	return nil, errors.New("secret key must be 32 bytes written as 64 hex digits or base64")
}
