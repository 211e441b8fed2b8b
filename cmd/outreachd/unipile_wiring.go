package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"outreachd/adapters/unipile"
	"outreachd/api"
	"outreachd/engine"
	"outreachd/outreach"
	"outreachd/storage"
)

// The Unipile provider's wiring (LINKEDIN_PROVIDER=unipile): the provider is the engine's
// LinkedIn port and GET /inbox's reader; Unipile's webhooks and sign-in call-backs are mounted
// on the API's router; the webhooks are registered at start and each seat is reconciled every
// UNIPILE_SYNC_INTERVAL. What Unipile tells lands in the engine's report table (the engine's
// ProviderInbox), which the engine handles as any other report.

// unipileProviderName names Unipile's reports and state in the engine's tables.
const unipileProviderName = "unipile"

// webhookSecretKeyName is the service_keys row holding the generated webhook secret when
// UNIPILE_WEBHOOK_SECRET is unset.
const webhookSecretKeyName = "unipile_webhook_secret"

// unipileParts is what the CLI and serve build alike.
type unipileParts struct {
	client *unipile.Client
	inbox  *engine.ProviderInbox
	seats  *unipile.Seats
}

// newUnipileParts builds the client, the engine's inbox for it and seat connection, with
// publicURL as the origin Unipile calls back.
func newUnipileParts(cfg Config, st *storage.Store, publicURL string) (unipileParts, error) {
	client, err := unipile.NewClient(unipile.Config{DSN: cfg.UnipileDSN, APIKey: cfg.UnipileAPIKey})
	if err != nil {
		return unipileParts{}, fmt.Errorf("UNIPILE_DSN / UNIPILE_API_KEY: %w", err)
	}
	inbox, err := engine.NewProviderInbox(st, unipileProviderName)
	if err != nil {
		return unipileParts{}, err
	}
	seats, err := unipile.NewSeats(client, inbox, unipile.SeatsConfig{PublicURL: publicURL,
		ReturnURL: strings.TrimRight(publicURL, "/") + "/app/linkedin-accounts"})
	if err != nil {
		return unipileParts{}, err
	}
	return unipileParts{client: client, inbox: inbox, seats: seats}, nil
}

// webhookSecret is UNIPILE_WEBHOOK_SECRET, or the one generated once and kept in the database.
func webhookSecret(ctx context.Context, cfg Config, st *storage.Store) (string, error) {
	if cfg.UnipileWebhookSecret != "" {
		return cfg.UnipileWebhookSecret, nil
	}
	key, _, err := st.ServiceKey(ctx, webhookSecretKeyName, 32)
	if err != nil {
		return "", fmt.Errorf("the generated Unipile webhook secret: %w", err)
	}
	return hex.EncodeToString(key), nil
}

// wireUnipile builds the provider and everything around it, and returns the provider.
func (a *app) wireUnipile(ctx context.Context) (*unipile.Provider, error) {
	parts, err := newUnipileParts(a.cfg, a.store, a.cfg.PublicURL)
	if err != nil {
		return nil, err
	}
	log := a.log.With("provider", unipileProviderName)
	prov, err := unipile.NewProvider(parts.client, parts.inbox, unipile.ProviderConfig{Logger: log})
	if err != nil {
		return nil, err
	}
	secret, err := webhookSecret(ctx, a.cfg, a.store)
	if err != nil {
		return nil, err
	}
	in, err := unipile.NewInbound(prov, parts.inbox, unipile.InboundConfig{Secret: secret, Logger: log})
	if err != nil {
		return nil, err
	}
	sync, err := unipile.NewSync(prov, parts.inbox, unipile.SyncConfig{Interval: a.cfg.UnipileSyncInterval, Logger: log})
	if err != nil {
		return nil, err
	}
	a.apiDeps.Extra = append(a.apiDeps.Extra, func(_, root *mux.Router, h api.Helpers) {
		rs := unipile.Responder{JSON: h.WriteJSON, Fail: h.Fail}
		root.Handle(unipile.WebhookPath, in.WebhookHandler(rs)).Methods(http.MethodPost)
		root.Handle(unipile.CallbackPath, parts.seats.CallbackHandler(rs)).Methods(http.MethodPost)
	})
	a.apiDeps.Inbox = prov
	a.seatLinks = parts.seats
	a.workers = append(a.workers,
		worker{name: "unipile webhooks", run: func(ctx context.Context) error {
			return a.registerWebhooks(ctx, parts, secret)
		}},
		worker{name: "unipile sync", run: sync.Run})
	return prov, nil
}

// wireUnipileEngine runs the outreach engine on Unipile and the wall clock, its seats spaced by
// LINKEDIN_ACTION_SPACING; pushed leads are looked up through the organization's seats.
func (a *app) wireUnipileEngine(ctx context.Context) error {
	prov, err := a.wireUnipile(ctx)
	if err != nil {
		return err
	}
	eng, err := a.startEngine(prov, outreach.SystemClock{}, engine.Config{ProviderName: unipileProviderName})
	if err != nil {
		return err
	}
	a.seatEnricher = eng
	return nil
}

// registerWebhooks makes sure Unipile's webhooks point here, trying again with a growing pause
// while Unipile cannot be reached, and then has nothing more to do.
func (a *app) registerWebhooks(ctx context.Context, parts unipileParts, secret string) error {
	wait := 5 * time.Second
	for {
		done, err := unipile.EnsureWebhooks(ctx, parts.client, parts.inbox, a.cfg.PublicURL, secret)
		if err == nil {
			a.log.Info("unipile webhooks registered", "url", a.cfg.PublicURL+unipile.WebhookPath,
				"kept", done.Kept, "created", done.Created, "deleted", done.Deleted)
			return nil
		}
		a.log.Warn("unipile: register webhooks; trying again", "in", wait.String(), "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Minute)
	}
}
