package webapp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"outreachd/outreach"
	"outreachd/storage"
)

// DB is what the application's own SQL needs of storage: the pool of its reads and writes, and
// the pool whose commits do not wait for the disk, for writes whose loss in a database crash
// costs nothing (a session's last-seen time, pruning ended sessions).
type DB interface {
	Pool() *pgxpool.Pool
	AsyncPool() *pgxpool.Pool
}

// Accounts keeps the people who sign in to the application, their sessions and their failed
// sign-ins (app_users, app_sessions, app_login_failures). The operator CLI creates and resets
// people through it too. Passwords arrive already hashed and session tokens are stored hashed.
type Accounts struct {
	pool, async *pgxpool.Pool
}

// NewAccounts builds the people's records on db's pools.
func NewAccounts(db DB) *Accounts { return &Accounts{pool: db.Pool(), async: db.AsyncPool()} }

// Roles of the people who sign in to the application.
const (
	RoleOwner  = "owner"
	RoleMember = "member"
)

// Account is a person who signs in to the application; they act for one organization.
type Account struct {
	ID           string
	OrgID        string
	Email        string
	Role         string
	PasswordHash string // a PHC string; never shown
	CreatedAt    time.Time
}

// CreateUser stores a person of orgID with an already hashed password. An email already in use
// (compared without case) is outreach.ErrInvalid, so the CLI names the problem.
func (a *Accounts) CreateUser(ctx context.Context, orgID, email, passwordHash, role string) (Account, error) {
	email = strings.TrimSpace(email)
	if role != RoleOwner && role != RoleMember {
		return Account{}, outreach.Invalidf("role %q must be owner or member", role)
	}
	u := Account{ID: outreach.NewID("usr"), OrgID: orgID, Email: email, Role: role, PasswordHash: passwordHash}
	err := a.pool.QueryRow(ctx, `INSERT INTO app_users (id, org_id, email, password_hash, role)
		SELECT $1, id, $3, $4, $5 FROM orgs WHERE id = $2 RETURNING created_at`,
		u.ID, orgID, email, passwordHash, role).Scan(&u.CreatedAt)
	if isUniqueViolation(err) {
		return Account{}, outreach.Invalidf("a user with email %s already exists", email)
	}
	if err != nil {
		return Account{}, storage.NotFound(err, "org "+orgID)
	}
	return u, nil
}

// UserByEmail finds the person who signs in with email (compared without case), with their
// password hash. Unknown is outreach.ErrNotFound.
func (a *Accounts) UserByEmail(ctx context.Context, email string) (Account, error) {
	var u Account
	err := a.pool.QueryRow(ctx, `SELECT id, org_id, email, role, password_hash, created_at
		FROM app_users WHERE lower(email) = lower($1)`, strings.TrimSpace(email)).
		Scan(&u.ID, &u.OrgID, &u.Email, &u.Role, &u.PasswordHash, &u.CreatedAt)
	if err != nil {
		return Account{}, storage.NotFound(err, "user")
	}
	return u, nil
}

// orgEmails maps the ids of an organization's people to their emails, to say who did something.
func (a *Accounts) orgEmails(ctx context.Context, orgID string) (map[string]string, error) {
	rows, err := a.pool.Query(ctx, `SELECT id, email FROM app_users WHERE org_id = $1`, orgID)
	if err != nil {
		return nil, fmt.Errorf("people of the organization: %w", err)
	}
	out := map[string]string{}
	var id, email string
	if _, err := pgx.ForEachRow(rows, []any{&id, &email}, func() error { out[id] = email; return nil }); err != nil {
		return nil, fmt.Errorf("people of the organization: %w", err)
	}
	return out, nil
}

// SetUserPassword replaces the password hash of an existing user (the CLI's reset) and ends
// every session they had, in one statement.
func (a *Accounts) SetUserPassword(ctx context.Context, userID, passwordHash string) error {
	var n int
	err := a.pool.QueryRow(ctx, `WITH u AS (UPDATE app_users SET password_hash = $2 WHERE id = $1 RETURNING id),
		ended AS (DELETE FROM app_sessions WHERE user_id IN (SELECT id FROM u))
		SELECT count(*) FROM u`, userID, passwordHash).Scan(&n)
	if err != nil {
		return fmt.Errorf("set password of %s: %w", userID, err)
	}
	if n == 0 {
		return outreach.NotFound("user %s", userID)
	}
	return nil
}

// isUniqueViolation reports a unique-constraint conflict (SQLSTATE 23505).
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
