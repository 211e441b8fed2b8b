package oauth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"outreachd/outreach"
)

// DB is what the authorization server's own SQL needs of storage: the pool of its transactions
// and reads, and the pool whose commits do not wait for the disk, for notes whose loss in a
// database crash costs nothing (when a grant was last used).
type DB interface {
	Pool() *pgxpool.Pool
	AsyncPool() *pgxpool.Pool
}

// db keeps the authorization server's rows: clients, codes, grants and tokens (oauth_* tables).
// The handlers decide the protocol; this only keeps its state. Codes and tokens arrive here
// already hashed. These rows raise no domain events, so their transactions need no outbox.
type db struct {
	pool, async *pgxpool.Pool
}

func newDB(d DB) *db { return &db{pool: d.Pool(), async: d.AsyncPool()} }

// noRow turns pgx.ErrNoRows into outreach.ErrNotFound, so callers decide with errors.Is.
func noRow(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return outreach.NotFound("%s", what)
	}
	return err
}

var (
	// errReused marks a second use of a one-time credential (an authorization code, or a
	// refresh token that was already rotated); the grant it belongs to has been revoked.
	errReused = errors.New("credential already used; its grant is revoked")
	// errExpired marks a code or token past its life.
	errExpired = errors.New("credential expired")
	// errRevoked marks a token whose grant (or itself) was revoked.
	errRevoked = errors.New("credential revoked")
	// errTooManyClients marks a registration refused because the bound on registrations was reached.
	errTooManyClients = errors.New("too many client registrations")
)

// registeredClient is a client registered dynamically (always public: no secret).
type registeredClient struct {
	ID           string
	Name         string
	RedirectURIs []string
	RegisteredBy string
	CreatedAt    time.Time
}

// registerClient inserts c unless the last hour already holds perHour registrations, or
// perAddress from c.RegisteredBy (errTooManyClients). The count and the insert share a
// transaction-level advisory lock so concurrent registrations cannot overshoot.
func (d *db) registerClient(ctx context.Context, c *registeredClient, perHour, perAddress int, now time.Time) error {
	return d.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7203114045)`); err != nil {
			return err
		}
		var total, mine int
		err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE registered_by = $2)
			FROM oauth_clients WHERE created_at > $1`, now.Add(-time.Hour), c.RegisteredBy).Scan(&total, &mine)
		if err != nil {
			return fmt.Errorf("count oauth clients: %w", err)
		}
		if total >= perHour || mine >= perAddress {
			return errTooManyClients
		}
		return tx.QueryRow(ctx, `INSERT INTO oauth_clients (id, name, redirect_uris, registered_by, created_at)
			VALUES ($1, $2, $3, $4, $5) RETURNING created_at`,
			c.ID, c.Name, c.RedirectURIs, c.RegisteredBy, now).Scan(&c.CreatedAt)
	})
}

// getClient reads one client.
func (d *db) getClient(ctx context.Context, id string) (registeredClient, error) {
	var c registeredClient
	err := d.pool.QueryRow(ctx, `SELECT id, name, redirect_uris, registered_by, created_at
		FROM oauth_clients WHERE id = $1`, id).Scan(&c.ID, &c.Name, &c.RedirectURIs, &c.RegisteredBy, &c.CreatedAt)
	if err != nil {
		return registeredClient{}, noRow(err, "oauth client "+id)
	}
	return c, nil
}

// pendingCode is an authorization code waiting to be exchanged, with what the person consented to.
type pendingCode struct {
	Hash          []byte
	ClientID      string
	OrgID         string
	UserID        string
	UserEmail     string
	Scope         string
	RedirectURI   string
	CodeChallenge string
	Resource      string
	ExpiresAt     time.Time
}

// createCode stores a fresh code and notes that the client was allowed once.
func (d *db) createCode(ctx context.Context, c pendingCode, now time.Time) error {
	return d.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO oauth_codes (code_hash, client_id, org_id, user_id, user_email,
			scope, redirect_uri, code_challenge, resource, expires_at, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
			c.Hash, c.ClientID, c.OrgID, c.UserID, c.UserEmail, c.Scope, c.RedirectURI, c.CodeChallenge, c.Resource, c.ExpiresAt, now)
		if err != nil {
			return fmt.Errorf("create oauth code: %w", err)
		}
		_, err = tx.Exec(ctx, `UPDATE oauth_clients SET first_allowed_at = $2 WHERE id = $1 AND first_allowed_at IS NULL`, c.ClientID, now)
		return err
	})
}

// grantRecord is one consent exchanged for tokens: what a connected assistant may do, for whom.
type grantRecord struct {
	ID         string
	OrgID      string
	UserID     string
	UserEmail  string
	ClientID   string
	ClientName string
	Scope      string
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// tokenPair is a new access and refresh token (hashes) with their expiry times.
type tokenPair struct {
	AccessHash, RefreshHash           []byte
	AccessExpiresAt, RefreshExpiresAt time.Time
}

// exchangeCode exchanges the code with hash codeHash for a new grant holding tokens. check sees
// the code (locked) and refuses it by returning an error, which is returned as is and leaves the
// code usable. A code seen a second time revokes the grant its first exchange created and answers
// errReused; an unknown code answers outreach.ErrNotFound, an expired one errExpired.
func (d *db) exchangeCode(ctx context.Context, codeHash []byte, now time.Time, check func(pendingCode) error, tokens tokenPair) (grantRecord, error) {
	var g grantRecord
	var reused bool
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		var c pendingCode
		var grantID *string
		err := tx.QueryRow(ctx, `SELECT code_hash, client_id, org_id, user_id, user_email, scope, redirect_uri,
			code_challenge, resource, expires_at, grant_id FROM oauth_codes WHERE code_hash = $1 FOR UPDATE`, codeHash).
			Scan(&c.Hash, &c.ClientID, &c.OrgID, &c.UserID, &c.UserEmail, &c.Scope, &c.RedirectURI,
				&c.CodeChallenge, &c.Resource, &c.ExpiresAt, &grantID)
		if err != nil {
			return noRow(err, "authorization code")
		}
		if grantID != nil {
			reused = true
			return revokeGrantTx(ctx, tx, *grantID, now)
		}
		if !now.Before(c.ExpiresAt) {
			return errExpired
		}
		if err := check(c); err != nil {
			return err
		}
		g = grantRecord{ID: outreach.NewID("ogr"), OrgID: c.OrgID, UserID: c.UserID, UserEmail: c.UserEmail,
			ClientID: c.ClientID, Scope: c.Scope, CreatedAt: now}
		if _, err := tx.Exec(ctx, `INSERT INTO oauth_grants (id, org_id, user_id, user_email, client_id, scope, created_at)
			VALUES ($1,$2,$3,$4,$5,$6,$7)`, g.ID, g.OrgID, g.UserID, g.UserEmail, g.ClientID, g.Scope, now); err != nil {
			return fmt.Errorf("create oauth grant: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE oauth_codes SET grant_id = $2 WHERE code_hash = $1`, codeHash, g.ID); err != nil {
			return err
		}
		return insertTokens(ctx, tx, g.ID, tokens, now)
	})
	if err == nil && reused {
		return grantRecord{}, errReused
	}
	return g, err
}

// rotateRefreshToken exchanges the refresh token with hash refreshHash for a new pair in the same
// grant, marking the old one used. check sees the grant and may refuse (its error is returned as
// is). A refresh token used a second time revokes its whole grant (errReused).
func (d *db) rotateRefreshToken(ctx context.Context, refreshHash []byte, now time.Time, check func(grantRecord) error, tokens tokenPair) (grantRecord, error) {
	var g grantRecord
	var reused bool
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		var expires time.Time
		var used, revoked, grantRevoked *time.Time
		err := tx.QueryRow(ctx, `SELECT g.id, g.org_id, g.user_id, g.user_email, g.client_id, g.scope, g.created_at,
			g.revoked_at, t.expires_at, t.used_at, t.revoked_at
			FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
			WHERE t.token_hash = $1 AND t.kind = 'refresh' FOR UPDATE OF t, g`, refreshHash).
			Scan(&g.ID, &g.OrgID, &g.UserID, &g.UserEmail, &g.ClientID, &g.Scope, &g.CreatedAt,
				&grantRevoked, &expires, &used, &revoked)
		if err != nil {
			return noRow(err, "refresh token")
		}
		switch {
		case grantRevoked != nil || revoked != nil:
			return errRevoked
		case used != nil:
			reused = true
			return revokeGrantTx(ctx, tx, g.ID, now)
		case !now.Before(expires):
			return errExpired
		}
		if err := check(g); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE oauth_tokens SET used_at = $2 WHERE token_hash = $1`, refreshHash, now); err != nil {
			return err
		}
		return insertTokens(ctx, tx, g.ID, tokens, now)
	})
	if err == nil && reused {
		return grantRecord{}, errReused
	}
	return g, err
}

func insertTokens(ctx context.Context, tx pgx.Tx, grantID string, p tokenPair, now time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at, created_at)
		VALUES ($1, $3, 'access', $4, $6), ($2, $3, 'refresh', $5, $6)`,
		p.AccessHash, p.RefreshHash, grantID, p.AccessExpiresAt, p.RefreshExpiresAt, now)
	if err != nil {
		return fmt.Errorf("store oauth tokens: %w", err)
	}
	return nil
}

func revokeGrantTx(ctx context.Context, tx pgx.Tx, grantID string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE oauth_grants SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, grantID, now)
	return err
}

// inTx runs fn in a transaction, rolling back on error with a context that cannot be cancelled.
func (d *db) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
