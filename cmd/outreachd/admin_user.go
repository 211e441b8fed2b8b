package main

import (
	"context"
	"flag"
	"fmt"
	"net/mail"
	"strings"

	"outreachd/outreach"
	"outreachd/webapp"
)

// adminUserCreate is `admin user create --org O --email E --password P [--role owner|member]`:
// a person who signs in to the application at /app/login for organization O.
func adminUserCreate(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	org := fs.String("org", "", "organization id")
	email := fs.String("email", "", "the person's email, their sign-in name")
	password := fs.String("password", "", fmt.Sprintf("their password (at least %d characters)", webapp.MinPasswordLen))
	role := fs.String("role", webapp.RoleMember, "owner or member")
	if err := parseFlags(fs, args, "org", "email", "password"); err != nil {
		return nil, err
	}
	addr, err := parseEmail(*email)
	if err != nil {
		return nil, err
	}
	if *role != webapp.RoleOwner && *role != webapp.RoleMember {
		return nil, outreach.Invalidf("--role must be owner or member, got %q", *role)
	}
	hash, err := webapp.HashPassword(*password)
	if err != nil {
		return nil, err
	}
	u, err := webapp.NewAccounts(env.store).CreateUser(ctx, *org, addr, hash, *role)
	if err != nil {
		return nil, err
	}
	return map[string]any{"user_id": u.ID}, nil
}

// parseEmail accepts a bare address (no display name), as people type it.
func parseEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || len(s) > 254 {
		return "", outreach.Invalidf("--email: %q is not an email address like jane@example.com", s)
	}
	return s, nil
}
