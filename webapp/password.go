package webapp

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"

	"outreachd/outreach"
)

// Passwords are stored as argon2id PHC strings:
// $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash> (unpadded base64). The parameters
// are OWASP's minimum for argon2id (19 MiB, 2 passes, 1 lane): cheap enough that a burst of
// sign-ins does not starve the API, dear enough for a guesser (the time a hash takes:
// docs/performance.md, "Design choices and their measurements").
// Each stored hash carries its own parameters, so raising them later keeps old hashes valid.
const (
	argonMemoryKiB = 19 * 1024
	argonTime      = 2
	argonThreads   = 1
	argonKeyLen    = 32
	argonSaltLen   = 16
	// MinPasswordLen is the shortest password accepted.
	MinPasswordLen = 10
	maxPasswordLen = 256
)

// HashPassword checks the password's length and returns its argon2id PHC string.
func HashPassword(password string) (string, error) {
	if n := len([]rune(password)); n < MinPasswordLen {
		return "", outreach.Invalidf("password: at least %d characters, got %d", MinPasswordLen, n)
	}
	if len(password) > maxPasswordLen {
		return "", outreach.Invalidf("password: at most %d bytes", maxPasswordLen)
	}
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemoryKiB, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemoryKiB, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

var errBadHash = errors.New("not an argon2id hash")

// CheckPassword reports whether password matches the PHC string encoded, in constant time.
func CheckPassword(encoded, password string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	var mem, passes uint32
	var lanes uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &passes, &lanes); err != nil || mem == 0 || passes == 0 || lanes == 0 {
		return false, errBadHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, errBadHash
	}
	if len(password) > maxPasswordLen {
		return false, nil
	}
	got := argon2.IDKey([]byte(password), salt, passes, mem, lanes, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
