package main

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"outreachd/api"
	"outreachd/oauth"
	"outreachd/webapp"
)

// webUsers lets the authorization server ask the application who is signed in.
type webUsers struct{ web *webapp.App }

func (u webUsers) SignedIn(r *http.Request) (oauth.User, bool) {
	p, ok := u.web.SignedIn(r)
	return oauth.User{ID: p.ID, OrgID: p.OrgID, Email: p.Email}, ok
}

// wireOAuth builds the OAuth authorization server for assistants on the application's sign-in
// and layout, mounts its endpoints on the root router and adds its pruning worker. The MCP
// server checks access tokens with the returned server's VerifyAccessToken.
func (a *app) wireOAuth(ctx context.Context, web *webapp.App) (*oauth.Server, error) {
	srv, err := oauth.New(ctx, oauth.Deps{Store: a.store, Users: webUsers{web}, Page: web.RenderPageStatus,
		Protect: web.Protect, Logger: a.log}, oauth.Config{PublicURL: a.cfg.PublicURL})
	if err != nil {
		return nil, err
	}
	a.apiDeps.Extra = append(a.apiDeps.Extra, func(_, root *mux.Router, _ api.Helpers) { srv.Routes(root) })
	a.workers = append(a.workers, worker{name: "oauth-prune", run: srv.Run})
	return srv, nil
}
