package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"outreachd/adapters/slack"
	"outreachd/adapters/webhook"
	"outreachd/delivery"
	"outreachd/outreach"
	"outreachd/storage"
)

// secretsKeyName is the service_keys row that holds the generated key when SECRETS_KEY is unset.
const secretsKeyName = "secrets_key"

// loadSecretBox builds the box that seals destination secrets: from SECRETS_KEY when set, else
// from a key generated once and kept in the database. log, when not nil, is warned about the
// latter, since a key beside the data it protects does not protect a database dump.
func loadSecretBox(ctx context.Context, cfg Config, st *storage.Store, log *slog.Logger) (*delivery.SecretBox, error) {
	if cfg.SecretsKey != "" {
		key, err := delivery.ParseSecretKey(cfg.SecretsKey)
		if err != nil {
			return nil, fmt.Errorf("SECRETS_KEY: %w", err)
		}
		return delivery.NewSecretBox(key)
	}
	key, created, err := st.ServiceKey(ctx, secretsKeyName, 32)
	if err != nil {
		return nil, err
	}
	if log != nil {
		log.Warn("SECRETS_KEY is not set: destination secrets are sealed with a key stored in the database; "+
			"set SECRETS_KEY (32 bytes, e.g. `openssl rand -hex 32`) in production", "generated_now", created)
	}
	return delivery.NewSecretBox(key)
}

// newDestinations builds the destination manager shared by the API, the application and the CLI.
// hub may be nil (test sends, resends and recovers are then refused).
func newDestinations(cfg Config, ds *delivery.Store, box *delivery.SecretBox, hub *delivery.Hub) (*delivery.Destinations, error) {
	return delivery.NewDestinations(ds, delivery.DestinationsConfig{
		Hub:       hub,
		Sealer:    box,
		Guard:     webhook.Guard{AllowPrivate: cfg.AllowPrivateDestinations},
		NewSecret: delivery.GenerateSecret,
		// A replaced secret keeps signing beside the new one this long.
		SecretRotationOverlap: cfg.SecretRotationOverlap,
	})
}

// buildHub constructs the delivery hub from the configuration: one SSRF-guarded HTTP sender
// shared with the Slack adapter, and the box that opens sealed secrets. reg may be nil.
func buildHub(cfg Config, ds *delivery.Store, box *delivery.SecretBox, reg prometheus.Registerer, log *slog.Logger) (*delivery.Hub, error) {
	wcfg := webhook.Config{Timeout: cfg.DeliveryTimeout, AllowPrivate: cfg.AllowPrivateDestinations}
	if err := wcfg.Validate(); err != nil {
		return nil, err
	}
	sender := webhook.NewSender(wcfg)
	slackSender, err := slack.New(sender.Client(), slack.Config{APIURL: cfg.SlackAPIURL})
	if err != nil {
		return nil, fmt.Errorf("SLACK_API_URL: %w", err)
	}
	return delivery.NewHub(ds, sender, slackSender, reg, delivery.Config{
		Timeout: cfg.DeliveryTimeout, RetrySchedule: cfg.DeliveryRetrySchedule, Secrets: box, Logger: log,
		ShutdownGrace: cfg.ShutdownTimeout, Traces: cfg.Traces,
	})
}

// wireDestinations mounts the Event Destinations API on hub (nil: test and resend answer 503).
func (a *app) wireDestinations(box *delivery.SecretBox, hub *delivery.Hub) error {
	m, err := newDestinations(a.cfg, a.deliveries, box, hub)
	if err != nil {
		return err
	}
	a.apiDeps.Destinations = m
	return nil
}

// adminDestinations builds the manager for one admin command, with a hub when withHub.
func adminDestinations(ctx context.Context, env *adminEnv, withHub bool) (*delivery.Destinations, error) {
	box, err := loadSecretBox(ctx, env.cfg, env.store, nil)
	if err != nil {
		return nil, err
	}
	var hub *delivery.Hub
	if withHub {
		if hub, err = buildHub(env.cfg, env.deliveries, box, nil, nil); err != nil {
			return nil, err
		}
	}
	return newDestinations(env.cfg, env.deliveries, box, hub)
}

func adminDestinationCreate(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	org := fs.String("org", "", "organization id")
	rawURL := fs.String("url", "", "HTTPS endpoint, or a Slack incoming-webhook URL")
	kind := fs.String("kind", "", "https or slack (default: slack for a hooks.slack.com URL or a bot token, else https)")
	events := fs.String("events", "all", `"all" or event kinds separated by commas`)
	secret := fs.String("secret", "", `signing secret, or "generate" to have one made and printed once`)
	name := fs.String("name", "", "display name (default: the URL's host)")
	token := fs.String("slack-token", "", "Slack bot token (kind slack, with --slack-channel, instead of --url)")
	channel := fs.String("slack-channel", "", "Slack channel id or name for the bot token")
	filter := fs.String("filter", "", `a filter over the event's envelope, as JSON (docs/api.md, "Filters"), e.g. '{"data.campaign.id":"cmp_…"}'`)
	rate := fs.Int("rate-limit-per-second", 0, "at most this many attempts towards the destination start in any one-second window (1–1000; default: no limit)")
	required := []string{"org"}
	if !hasFlag(args, "slack-token") {
		required = append(required, "url")
	}
	if err := parseFlags(fs, args, required...); err != nil {
		return nil, err
	}
	k := *kind
	if k == "" {
		k = outreach.DestinationHTTPS
		if *token != "" || strings.HasPrefix(*rawURL, "https://hooks.slack.com/") {
			k = outreach.DestinationSlack
		}
	}
	m, err := adminDestinations(ctx, env, false)
	if err != nil {
		return nil, err
	}
	spec := delivery.DestinationSpec{Name: *name, Kind: k, URL: *rawURL, Events: delivery.SplitEvents(*events),
		Secret: *secret, SlackBotToken: *token, SlackChannel: *channel}
	if *filter != "" {
		spec.Filter = json.RawMessage(*filter)
	}
	if hasFlag(args, "rate-limit-per-second") {
		spec.RateLimitPerSecond = rate
	}
	d, generated, err := m.Create(ctx, *org, spec)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"destination_id": d.ID, "org_id": d.OrgID, "name": d.Name, "kind": d.Kind,
		"url": delivery.DisplayURL(d), "events": d.Events, "filter": d.Filter, "rate_limit_per_second": d.RateLimitPerSecond,
		"has_secret": d.SecretSealed != nil, "enabled": d.Enabled}
	if d.SlackChannel != "" {
		out["slack_channel"] = d.SlackChannel
	}
	if generated != "" {
		out["secret"] = generated
	}
	return out, nil
}

// hasFlag reports whether args set --name (or -name), in either "=value" or separate form.
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		a = strings.TrimLeft(a, "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

func adminDestinationList(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	org := fs.String("org", "", "organization id")
	if err := parseFlags(fs, args, "org"); err != nil {
		return nil, err
	}
	if _, err := env.store.GetOrg(ctx, *org); err != nil {
		return nil, err
	}
	list, last, err := env.deliveries.DestinationsWithLastAttempts(ctx, *org)
	if err != nil {
		return nil, err
	}
	data := make([]map[string]any, len(list))
	for i, d := range list {
		a, ok := last[d.ID]
		data[i] = map[string]any{"id": d.ID, "name": d.Name, "kind": d.Kind, "url": delivery.DisplayURL(d),
			"events": d.Events, "filter": d.Filter, "rate_limit_per_second": d.RateLimitPerSecond,
			"last_attempt": delivery.LastAttemptOf(a, ok)}
	}
	return map[string]any{"data": data}, nil
}

func adminDestinationTest(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	id := fs.String("destination", "", "destination id")
	event := fs.String("event", "", "event kind to sample (default: the first the destination selects)")
	if err := parseFlags(fs, args, "destination"); err != nil {
		return nil, err
	}
	d, err := env.deliveries.DestinationByID(ctx, *id)
	if err != nil {
		return nil, err
	}
	m, err := adminDestinations(ctx, env, true)
	if err != nil {
		return nil, err
	}
	kind, res, err := m.Test(ctx, d, *event)
	if err != nil {
		return nil, err
	}
	return delivery.TestView(d.ID, kind, res), nil
}
