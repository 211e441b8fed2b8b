package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"outreachd/delivery"
	"outreachd/outreach"
	"outreachd/storage"
)

const demoOrgName = "Demo organization"

// setUpDemo makes sure the embedded demo organization exists and prints a fresh read_write key
// for it (keys are stored only as hashes, so an old one cannot be shown again), then what a
// local run needs: the admin CLI's DATABASE_URL line and the development settings in force.
func (a *app) setUpDemo(ctx context.Context, out io.Writer) error {
	org, err := a.store.FindOrgByName(ctx, demoOrgName)
	if errors.Is(err, outreach.ErrNotFound) {
		org, err = a.store.CreateOrg(ctx, demoOrgName, nil)
	}
	if err != nil {
		return err
	}
	orgID := org.ID
	_, key, err := a.store.CreateAPIKey(ctx, orgID, storage.ScopeReadWrite, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\noutreachd demo organization: %s\nAPI key (read_write, shown once): %s\n\ntry:\n  curl -s -H 'Authorization: Bearer %s' %s/api/v1/me\n\nassistant (MCP) server: %s/mcp with the header Authorization: Bearer %s (docs/mcp.md)\n\n",
		orgID, key, key, a.cfg.PublicURL, a.cfg.PublicURL, key)
	fmt.Fprintf(out, "admin CLI (%s admin ...) in another shell:\n  export DATABASE_URL=%s\n\n", os.Args[0], shellQuote(a.cfg.DatabaseURL))
	if a.cfg.AllowPrivateDestinations {
		fmt.Fprintf(out, "local development run: ALLOW_PRIVATE_DESTINATIONS=true, so event destinations on 127.0.0.1 and private\n"+
			"addresses are accepted (never set it in production)\n\n")
	}
	if err := a.setUpDemoUser(ctx, orgID, out); err != nil {
		return err
	}
	return a.setUpEngineDemo(ctx, orgID, out)
}

// emptyForFreshDemo empties the demo database (storage.EmptyForFreshDemo) and returns new stores
// on it: the old ones' connections hold statements prepared on the tables dropped.
func emptyForFreshDemo(ctx context.Context, cfg Config, st *storage.Store, log *slog.Logger) (*storage.Store, *delivery.Store, error) {
	err := st.EmptyForFreshDemo(ctx, demoOrgName)
	st.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("--fresh: %w", err)
	}
	log.Info("fresh demo: the database was emptied; the demo starts over at the wall clock")
	return openStore(ctx, cfg)
}

// shellQuote quotes s for a POSIX shell when it needs it (a connection URL holds ? and &).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
