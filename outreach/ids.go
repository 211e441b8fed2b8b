package outreach

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"strings"
	"time"
)

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// NewID returns prefix + "_" + 26 lowercase base32 characters: a 48-bit millisecond time
// followed by 80 random bits, so ids of one kind sort roughly by creation time and never collide
// in practice.
func NewID(prefix string) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return prefix + "_" + idEncoding.EncodeToString(b[:])
}

// DerivedID is the id of a thing that exists once per (parent, key): the same inputs always give
// the same id, so writing the thing again after its first write was lost yields the same id. It
// keeps NewID's form and ordering: the time bytes are the parent's when the parent is an id of
// this package (else zero), the rest a hash of parent and key.
func DerivedID(prefix, parent, key string) string {
	var b [16]byte
	if i := strings.IndexByte(parent, '_'); i >= 0 {
		if raw, err := idEncoding.DecodeString(parent[i+1:]); err == nil && len(raw) == 16 {
			copy(b[:6], raw[:6])
		}
	}
	h := sha256.Sum256([]byte(parent + "\x00" + key))
	copy(b[6:], h[:10])
	return prefix + "_" + idEncoding.EncodeToString(b[:])
}

// IDTime is the creation time an id of NewID or DerivedID carries (for a derived id, its
// parent's); ok is false for anything else.
func IDTime(id string) (t time.Time, ok bool) {
	i := strings.IndexByte(id, '_')
	if i < 0 {
		return time.Time{}, false
	}
	raw, err := idEncoding.DecodeString(id[i+1:])
	if err != nil || len(raw) != 16 {
		return time.Time{}, false
	}
	var b [8]byte
	copy(b[2:], raw[:6])
	ms := binary.BigEndian.Uint64(b[:])
	if ms == 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(ms)), true
}

// ValidID reports whether s looks like an id of the given prefix; handlers use it to answer
// 404 for ids that cannot exist without asking the database.
func ValidID(prefix, s string) bool {
	if !strings.HasPrefix(s, prefix+"_") || len(s) != len(prefix)+1+26 {
		return false
	}
	for _, c := range s[len(prefix)+1:] {
		if !strings.ContainsRune("0123456789abcdefghjkmnpqrstvwxyz", c) {
			return false
		}
	}
	return true
}

// TimeLayout is the one timestamp form of the API and of events: ISO 8601, UTC, milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// FormatTimePtr renders t, or returns nil for a nil or zero time (JSON null).
func FormatTimePtr(t *time.Time) *string {
	if t == nil || t.IsZero() {
		return nil
	}
	s := FormatTime(*t)
	return &s
}
