package storage

import (
	"context"
	"strings"
	"time"

	"outreachd/outreach"
)

// Roles of the people who sign in to the application.
const (
	RoleOwner  = "owner"
	RoleMember = "member"
)

// User is a person who signs in to the application; they act for one organization.
type User struct {
	ID           string
	OrgID        string
	Email        string
	Role         string
	PasswordHash string // a PHC string; never shown
	CreatedAt    time.Time
}

// CreateUser stores a person of orgID with an already hashed password. An email already in use
// (compared without case) is outreach.ErrInvalid, so the CLI names the problem.
func (s *Store) CreateUser(ctx context.Context, orgID, email, passwordHash, role string) (User, error) {
	email = strings.TrimSpace(email)
	if role != RoleOwner && role != RoleMember {
		return User{}, outreach.Invalidf("role %q must be owner or member", role)
	}
	u := User{ID: outreach.NewID("usr"), OrgID: orgID, Email: email, Role: role, PasswordHash: passwordHash}
	err := s.pool.QueryRow(ctx, `INSERT INTO app_users (id, org_id, email, password_hash, role)
		SELECT $1, id, $3, $4, $5 FROM orgs WHERE id = $2 RETURNING created_at`,
		u.ID, orgID, email, passwordHash, role).Scan(&u.CreatedAt)
	if isUniqueViolation(err) {
		return User{}, outreach.Invalidf("a user with email %s already exists", email)
	}
	if err != nil {
		return User{}, notFound(err, "org "+orgID)
	}
	return u, nil
}

// UserByEmail finds the person who signs in with email (compared without case), with their
// password hash. Unknown is outreach.ErrNotFound.
func (s *Store) UserByEmail(ctx context.Context, email string) (User, error) {
	var u User
	err := s.pool.QueryRow(ctx, `SELECT id, org_id, email, role, password_hash, created_at
		FROM app_users WHERE lower(email) = lower($1)`, strings.TrimSpace(email)).
		Scan(&u.ID, &u.OrgID, &u.Email, &u.Role, &u.PasswordHash, &u.CreatedAt)
	if err != nil {
		return User{}, notFound(err, "user")
	}
	return u, nil
}

// SetUserPassword replaces the password hash of an existing user (the CLI's reset) and ends
// every session they had.
func (s *Store) SetUserPassword(ctx context.Context, userID, passwordHash string) error {
	return s.InTx(ctx, func(tx *Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE app_users SET password_hash = $2 WHERE id = $1`, userID, passwordHash)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return outreach.NotFound("user %s", userID)
		}
		_, err = tx.Exec(ctx, `DELETE FROM app_sessions WHERE user_id = $1`, userID)
		return err
	})
}
