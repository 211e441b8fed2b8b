package main

import (
	"outreachd/api"
	"outreachd/mcp"
)

// wireAssistant builds the assistant (MCP) server and mounts it at /mcp through a.apiDeps. Its
// tools run the REST endpoints in process on an api.Server of their own (the same store and
// dependencies, no HTTP middleware: the assistant authenticates and spends the budget itself).
// oauth verifies OAuth access tokens; nil refuses them, so only API keys sign in.
func (a *app) wireAssistant(oauth mcp.AccessTokenVerifier) error {
	restDeps := a.apiDeps
	restDeps.Registry, restDeps.Metrics, restDeps.Assistant = nil, nil, nil
	rest, err := api.NewServer(a.store, restDeps, api.Config{
		PublicURL:               a.cfg.PublicURL,
		RateLimitPerMinute:      a.cfg.RateLimitPerMinute,
		InboxRateLimitPerMinute: a.cfg.InboxRateLimitPerMinute,
	})
	if err != nil {
		return err
	}
	deps := mcp.Deps{REST: rest, OAuth: oauth, Logger: a.log}
	if a.apiDeps.Drafts != nil {
		deps.Drafts = a.apiDeps.Drafts
	}
	srv, err := mcp.NewServer(a.store, deps, mcp.Config{
		PublicURL:               a.cfg.PublicURL,
		RateLimitPerMinute:      a.cfg.RateLimitPerMinute,
		InboxRateLimitPerMinute: a.cfg.InboxRateLimitPerMinute,
	})
	if err != nil {
		return err
	}
	a.apiDeps.Assistant = srv.Handler()
	return nil
}
