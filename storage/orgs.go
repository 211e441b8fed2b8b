package storage

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"

	"outreachd/outreach"
)

// Org is an organization: the tenant every other row belongs to.
type Org struct {
	ID                 string
	Name               string
	RateLimitPerMinute *int
	DefaultFilters     []byte // JSON of hard filters stamped on every new campaign
	CreatedAt          time.Time
}

// CreateOrg inserts an organization. rateLimit nil means the service default.
func (s *Store) CreateOrg(ctx context.Context, name string, rateLimit *int) (Org, error) {
	o := Org{ID: outreach.NewID("org"), Name: name, RateLimitPerMinute: rateLimit, DefaultFilters: []byte(`{}`)}
	err := s.pool.QueryRow(ctx, `INSERT INTO orgs (id, name, rate_limit_per_minute) VALUES ($1, $2, $3)
		RETURNING created_at`, o.ID, o.Name, rateLimit).Scan(&o.CreatedAt)
	if err != nil {
		return Org{}, fmt.Errorf("create org: %w", err)
	}
	return o, nil
}

// GetOrg reads one organization.
func (s *Store) GetOrg(ctx context.Context, id string) (Org, error) {
	var o Org
	err := s.pool.QueryRow(ctx, `SELECT id, name, rate_limit_per_minute, default_filters, created_at
		FROM orgs WHERE id = $1`, id).Scan(&o.ID, &o.Name, &o.RateLimitPerMinute, &o.DefaultFilters, &o.CreatedAt)
	if err != nil {
		return Org{}, notFound(err, "org "+id)
	}
	return o, nil
}

// FindOrgByName returns the oldest organization with that exact name.
func (s *Store) FindOrgByName(ctx context.Context, name string) (Org, error) {
	var o Org
	err := s.pool.QueryRow(ctx, `SELECT id, name, rate_limit_per_minute, default_filters, created_at
		FROM orgs WHERE name = $1 ORDER BY created_at LIMIT 1`, name).Scan(&o.ID, &o.Name, &o.RateLimitPerMinute, &o.DefaultFilters, &o.CreatedAt)
	if err != nil {
		return Org{}, notFound(err, "org named "+name)
	}
	return o, nil
}

// SetOrgDefaultFilters replaces the organization's default hard filters (JSON, already validated).
func (s *Store) SetOrgDefaultFilters(ctx context.Context, id string, filters []byte) error {
	tag, err := s.pool.Exec(ctx, `UPDATE orgs SET default_filters = $2 WHERE id = $1`, id, filters)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return outreach.NotFound("org %s", id)
	}
	return nil
}

// Scopes of API keys.
const (
	ScopeRead      = "read"
	ScopeReadWrite = "read_write"
)

// APIKey is a stored key; the secret itself is never stored, only its SHA-256.
type APIKey struct {
	ID        string
	OrgID     string
	Scope     string
	ExpiresAt *time.Time
	RevokedAt *time.Time
	CreatedAt time.Time
}

// HashKey is how keys are looked up: SHA-256 of the whole key string. Keys carry 256 random
// bits, so a fast hash is enough (no password stretching needed).
func HashKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// KeyPrefixLen is how many leading characters of a key are kept in the clear ("odk_" and 8 of
// its 43 random characters), so a person can tell their keys apart on the API keys page.
const KeyPrefixLen = 12

// CreateAPIKey makes a random key for an organization and returns it once; only its hash is kept.
func (s *Store) CreateAPIKey(ctx context.Context, orgID, scope string, expiresAt *time.Time) (APIKey, string, error) {
	if scope != ScopeRead && scope != ScopeReadWrite {
		return APIKey{}, "", outreach.Invalidf("scope %q must be read or read_write", scope)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return APIKey{}, "", err
	}
	secret := "odk_" + base64.RawURLEncoding.EncodeToString(raw[:])
	k := APIKey{ID: outreach.NewID("key"), OrgID: orgID, Scope: scope, ExpiresAt: expiresAt}
	err := s.pool.QueryRow(ctx, `INSERT INTO api_keys (id, org_id, key_hash, scope, expires_at, prefix)
		SELECT $1, id, $3, $4, $5, $6 FROM orgs WHERE id = $2 RETURNING created_at`,
		k.ID, orgID, HashKey(secret), scope, expiresAt, secret[:KeyPrefixLen]).Scan(&k.CreatedAt)
	if err != nil {
		return APIKey{}, "", notFound(err, "org "+orgID)
	}
	return k, secret, nil
}

// RevokeAPIKey marks a key revoked; it stops working on the next request.
func (s *Store) RevokeAPIKey(ctx context.Context, keyID string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1`, keyID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return outreach.NotFound("key %s", keyID)
	}
	return nil
}

// KeyAuth is what a request learns from its key.
type KeyAuth struct {
	KeyID              string
	OrgID              string
	Scope              string
	RateLimitPerMinute *int
}

// Authenticate resolves a presented key. Unknown, revoked and expired keys are all
// outreach.ErrNotFound: callers answer one 401 for every case.
func (s *Store) Authenticate(ctx context.Context, key string, now time.Time) (KeyAuth, error) {
	var a KeyAuth
	err := s.pool.QueryRow(ctx, `SELECT k.id, k.org_id, k.scope, o.rate_limit_per_minute
		FROM api_keys k JOIN orgs o ON o.id = k.org_id
		WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)`,
		HashKey(key), now).Scan(&a.KeyID, &a.OrgID, &a.Scope, &a.RateLimitPerMinute)
	if err != nil {
		return KeyAuth{}, notFound(err, "api key")
	}
	return a, nil
}
