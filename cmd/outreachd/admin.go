package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"outreachd/api"
	"outreachd/delivery"
	"outreachd/outreach"
	"outreachd/storage"
)

// adminEnv is what every admin command gets: the configuration and an open store.
type adminEnv struct {
	cfg        Config
	store      *storage.Store
	deliveries *delivery.Store
}

// adminCommand runs one "admin <resource> <action>" with its flags and returns the one JSON
// object to print.
type adminCommand func(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error)

// adminCommands lists the operator CLI (docs/operations.md); scripts rely on its output as documented.
func adminCommands() map[string]adminCommand {
	return map[string]adminCommand{
		"org create":                 adminOrgCreate,
		"key create":                 adminKeyCreate,
		"key revoke":                 adminKeyRevoke,
		"campaign set-status":        adminCampaignSetStatus,
		"intake-token create":        adminIntakeTokenCreate,
		"intake-token rotate":        adminIntakeTokenCreate,
		"intake-token revoke":        adminIntakeTokenRevoke,
		"destination create":         adminDestinationCreate,
		"destination list":           adminDestinationList,
		"destination test":           adminDestinationTest,
		"account connect":            adminAccountConnect,
		"account list":               adminAccountList,
		"user create":                adminUserCreate,
		"simulate accept":            adminSimulateAccept,
		"simulate reply":             adminSimulateReply,
		"simulate disconnect":        adminSimulateDisconnect,
		"simulate reconnect":         adminSimulateReconnect,
		"simulate rate-limit":        adminSimulateRateLimit,
		"simulate sales-nav-lapse":   adminSimulateSalesNavLapse,
		"simulate sales-nav-restore": adminSimulateSalesNavReturn,
		"account limits":             adminAccountLimits,
	}
}

// runAdmin prints exactly one JSON object on stdout and returns 0, or prints {"error": ...}
// on stderr and returns non-zero.
func runAdmin(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		_ = json.NewEncoder(stderr).Encode(map[string]string{"error": err.Error()})
		return code
	}
	cmds := adminCommands()
	if len(args) < 2 {
		return fail(2, fmt.Errorf("usage: outreachd admin <resource> <action> [flags]; commands: %s", strings.Join(sortedKeys(cmds), ", ")))
	}
	name := args[0] + " " + args[1]
	cmd, ok := cmds[name]
	if !ok {
		return fail(2, fmt.Errorf("unknown admin command %q; commands: %s", name, strings.Join(sortedKeys(cmds), ", ")))
	}
	fs := flag.NewFlagSet("admin "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg, err := loadConfig(nil, nil)
	if err != nil {
		return fail(1, err)
	}
	flushTraces, err := newTraces(ctx, &cfg, newLogger(cfg.LogLevel, cfg.LogFormat, stderr))
	if err != nil {
		return fail(1, err)
	}
	defer flushTraces()
	if cfg.Traces != nil { // the command's business transactions are its children
		var span trace.Span
		ctx, span = cfg.Traces.Tracer(adminTracer).Start(ctx, "admin "+name)
		defer span.End()
	}
	st, ds, err := openStore(ctx, cfg)
	if err != nil {
		return fail(1, err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return fail(1, err)
	}
	out, err := cmd(ctx, &adminEnv{cfg: cfg, store: st, deliveries: ds}, fs, args[2:])
	if err != nil {
		if errors.Is(err, outreach.ErrInvalid) || errors.Is(err, flag.ErrHelp) || strings.HasPrefix(err.Error(), "flag") {
			return fail(2, err)
		}
		return fail(1, err)
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return fail(1, err)
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// parseFlags parses and insists on the named required flags.
func parseFlags(fs *flag.FlagSet, args []string, required ...string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return outreach.Invalidf("%s", flagUsage(fs, required))
		}
		return outreach.Invalidf("%v; %s", err, flagUsage(fs, required))
	}
	if fs.NArg() > 0 {
		return outreach.Invalidf("unexpected argument %q; %s", fs.Arg(0), flagUsage(fs, required))
	}
	for _, name := range required {
		if f := fs.Lookup(name); f == nil || f.Value.String() == "" {
			return outreach.Invalidf("--%s is required; %s", name, flagUsage(fs, required))
		}
	}
	return nil
}

// flagUsage says a command's flags in one line, the required ones first: "usage: outreachd
// admin org create --name (organization name) [--rate-limit-per-minute (…)]". The admin
// commands print only JSON, so the usage travels in the error.
func flagUsage(fs *flag.FlagSet, required []string) string {
	var must, may []string
	fs.VisitAll(func(f *flag.Flag) {
		item := "--" + f.Name + " (" + f.Usage + ")"
		if slices.Contains(required, f.Name) {
			must = append(must, item)
		} else {
			may = append(may, "["+item+"]")
		}
	})
	return "usage: outreachd " + strings.Join(append(append([]string{fs.Name()}, must...), may...), " ")
}

func adminOrgCreate(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	name := fs.String("name", "", "organization name")
	rate := fs.Int("rate-limit-per-minute", 0, "per-organization request budget (default: RATE_LIMIT_PER_MINUTE)")
	if err := parseFlags(fs, args, "name"); err != nil {
		return nil, err
	}
	var limit *int
	if *rate < 0 {
		return nil, outreach.Invalidf("--rate-limit-per-minute must be positive")
	}
	if *rate > 0 {
		limit = rate
	}
	org, err := env.store.CreateOrg(ctx, strings.TrimSpace(*name), limit)
	if err != nil {
		return nil, err
	}
	return map[string]any{"org_id": org.ID}, nil
}

func adminKeyCreate(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	org := fs.String("org", "", "organization id")
	scope := fs.String("scope", storage.ScopeRead, "read or read_write")
	expiresIn := fs.Duration("expires-in", 0, "lifetime, e.g. 1h (default: never expires)")
	if err := parseFlags(fs, args, "org"); err != nil {
		return nil, err
	}
	var expires *time.Time
	if *expiresIn < 0 {
		return nil, outreach.Invalidf("--expires-in must be positive")
	}
	if *expiresIn > 0 {
		t := time.Now().Add(*expiresIn).UTC()
		expires = &t
	}
	k, secret, err := env.store.CreateAPIKey(ctx, *org, *scope, expires)
	if err != nil {
		return nil, err
	}
	return map[string]any{"key_id": k.ID, "key": secret, "scope": k.Scope, "expires_at": outreach.FormatTimePtr(k.ExpiresAt)}, nil
}

func adminKeyRevoke(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	id := fs.String("key-id", "", "key id")
	if err := parseFlags(fs, args, "key-id"); err != nil {
		return nil, err
	}
	if err := env.store.RevokeAPIKey(ctx, *id); err != nil {
		return nil, err
	}
	return map[string]any{"key_id": *id, "revoked": true}, nil
}

func adminIntakeTokenCreate(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	campaign := fs.String("campaign", "", "campaign id")
	if err := parseFlags(fs, args, "campaign"); err != nil {
		return nil, err
	}
	box, err := loadSecretBox(ctx, env.cfg, env.store, nil)
	if err != nil {
		return nil, err
	}
	origin, err := serverPublicURL(ctx, env)
	if err != nil {
		return nil, err
	}
	tok, err := env.store.CreateIntakeToken(ctx, "", *campaign, box.Seal)
	if err != nil {
		return nil, err
	}
	return map[string]any{"token": tok.Token, "url": api.IntakeURL(origin, tok.Token)}, nil
}

// serverPublicURL is the origin intake URLs are built on: the PUBLIC_URL the last serving
// instance recorded in the database, since the CLI's own environment may not know where the
// service is reached; the CLI's own PUBLIC_URL (or http://HTTP_ADDR) only when no instance has
// served on this database yet.
func serverPublicURL(ctx context.Context, env *adminEnv) (string, error) {
	u, err := env.store.RecordedPublicURL(ctx)
	if err != nil || u != "" {
		return u, err
	}
	return env.cfg.PublicURL, nil
}

func adminIntakeTokenRevoke(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	campaign := fs.String("campaign", "", "campaign id")
	if err := parseFlags(fs, args, "campaign"); err != nil {
		return nil, err
	}
	if _, err := env.store.RevokeIntakeToken(ctx, "", *campaign); err != nil {
		return nil, err
	}
	return map[string]any{"campaign_id": *campaign, "revoked": true}, nil
}
