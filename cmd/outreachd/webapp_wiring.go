package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"github.com/gorilla/mux"

	"outreachd/api"
	"outreachd/outreach"
	"outreachd/webapp"
)

// wireWebApp builds the application under /app/ from the parts wire made (the destination
// manager, the hub, the engine's draft desk and replies, the LinkedIn inbox reader, the engine's
// clock, how seats connect), mounts it on the API's root router and adds its worker (the files of leads imported in
// the browser).
func (a *app) wireWebApp() (*webapp.App, error) {
	deps := webapp.Deps{Logger: a.log, Destinations: a.apiDeps.Destinations, DomainNow: a.apiDeps.DomainNow}
	if a.apiDeps.Secrets != nil {
		deps.SealIntakeToken = a.apiDeps.Secrets.Seal
	}
	if a.hub != nil && a.apiDeps.Destinations != nil {
		deps.Hub = a.apiDeps.Destinations
	}
	if a.apiDeps.Drafts != nil {
		deps.Drafts = a.apiDeps.Drafts
	}
	// The Inbox reads through GET /inbox's reader and replies through the engine that decides drafts.
	if r, ok := a.apiDeps.Inbox.(webapp.InboxReader); ok {
		deps.Inbox = r
	}
	if a.apiDeps.Replies != nil {
		deps.Replies = a.apiDeps.Replies
	}
	if a.clock != nil {
		deps.ClockSpeed = a.clock.Speed()
	}
	a.seatConnection(&deps)
	w, err := webapp.New(a.store, deps, webapp.Config{PublicURL: a.cfg.PublicURL})
	if err != nil {
		return nil, err
	}
	a.apiDeps.Extra = append(a.apiDeps.Extra, func(_, root *mux.Router, _ api.Helpers) { w.Mount(root) })
	a.workers = append(a.workers, worker{name: "lead imports", run: w.RunImports})
	return w, nil
}

const demoUserEmail = "demo@outreachd.local"

// setUpDemoUser makes sure the demo organization has a person to sign in as and gives them a
// fresh password, printed with the sign-in link (passwords are stored only as hashes).
func (a *app) setUpDemoUser(ctx context.Context, orgID string, out io.Writer) error {
	var raw [9]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return err
	}
	password := "demo-" + base64.RawURLEncoding.EncodeToString(raw[:])
	hash, err := webapp.HashPassword(password)
	if err != nil {
		return err
	}
	accounts := webapp.NewAccounts(a.store)
	u, err := accounts.UserByEmail(ctx, demoUserEmail)
	switch {
	case errors.Is(err, outreach.ErrNotFound):
		_, err = accounts.CreateUser(ctx, orgID, demoUserEmail, hash, webapp.RoleOwner)
	case err == nil:
		err = accounts.SetUserPassword(ctx, u.ID, hash)
	}
	if err != nil {
		return fmt.Errorf("demo user: %w", err)
	}
	fmt.Fprintf(out, "application: %s/app/login\n  email:    %s\n  password: %s\n\n", a.cfg.PublicURL, demoUserEmail, password)
	return nil
}
