package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"outreachd/outreach"
	"outreachd/storage"
)

const demoOrgName = "Demo organization"

// setUpDemo makes sure the embedded demo organization exists and prints a fresh read_write key
// for it (keys are stored only as hashes, so an old one cannot be shown again).
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
	if err := a.setUpDemoUser(ctx, orgID, out); err != nil {
		return err
	}
	return a.setUpEngineDemo(ctx, orgID, out)
}
