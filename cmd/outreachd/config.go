package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"outreachd/delivery"
	"outreachd/engine"
	"outreachd/storage"
)

// Config is every setting of the service, read once from the environment (README.md lists them).
type Config struct {
	DatabaseURL              string
	HTTPAddr                 string
	PublicURL                string
	RateLimitPerMinute       int
	InboxRateLimitPerMinute  int
	IntakeRateLimitPerMinute int
	DeliveryTimeout          time.Duration
	DeliveryRetrySchedule    []time.Duration
	// SecretRotationOverlap is how long a replaced destination secret keeps signing beside
	// the new one.
	SecretRotationOverlap    time.Duration
	AllowPrivateDestinations bool
	// SlackAPIURL is the Slack Web API root bot-token destinations post to ("" = Slack's own);
	// a local fake in tests and demos.
	SlackAPIURL string
	// SecretsKey seals destination signing secrets at rest (32 bytes, base64 or hex).
	SecretsKey string
	// SimulatorSeed and SimulatorSpeed drive the LinkedIn simulator (the default provider).
	SimulatorSeed  int64
	SimulatorSpeed float64
	// LinkedInProvider is "simulator" (the default) or "unipile", which reaches LinkedIn
	// through Unipile's API at UnipileDSN with UnipileAPIKey (both required then).
	LinkedInProvider string
	UnipileDSN       string
	UnipileAPIKey    string
	// UnipileWebhookSecret is the Unipile-Auth value webhooks must carry; "" lets the service
	// generate one and keep it in the database.
	UnipileWebhookSecret string
	// UnipileSyncInterval is how often each seat is reconciled with what Unipile lists.
	UnipileSyncInterval time.Duration
	// LinkedInActionSpacing is the random gap between two LinkedIn actions of one seat
	// (LINKEDIN_ACTION_SPACING), in engine time, with any provider.
	LinkedInActionSpacing engine.Spacing
	// DrafterURL, DrafterAPIKey and DrafterModel select an OpenAI-compatible reply drafter;
	// with DrafterURL empty the deterministic built-in drafter writes the drafts.
	DrafterURL    string
	DrafterAPIKey string
	DrafterModel  string
	LogLevel      string
	// ShutdownTimeout bounds a graceful stop (SIGTERM/SIGINT): in-flight HTTP requests and
	// webhook sends finish and every attempt is recorded within it.
	ShutdownTimeout time.Duration
	// RetentionAttempts is how long finished deliveries, their attempts and their payloads are
	// kept; RetentionOutbox how long outbox rows the fan-out has read are kept; 0 keeps them
	// forever. RetentionInterval is how often the retention worker runs.
	RetentionAttempts time.Duration
	RetentionOutbox   time.Duration
	RetentionInterval time.Duration
	// LogFormat is "text" (key=value lines, for a terminal) or "json" (one object a line, for a
	// log collector).
	LogFormat string
	// PprofAddr, when set, serves net/http/pprof on its own listener (never on HTTP_ADDR), for
	// profiling a running instance.
	PprofAddr string
	// TracesEndpoint is where spans are exported over OTLP/HTTP (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
	// else OTEL_EXPORTER_OTLP_ENDPOINT); "" turns tracing off (also OTEL_SDK_DISABLED=true). The
	// OpenTelemetry SDK reads these and its other OTEL_* variables itself (traces.go).
	TracesEndpoint string
	// Traces is the tracer provider built from them (newTraces) before anything is opened, nil
	// when tracing is off.
	Traces trace.TracerProvider
}

// loadConfig reads the environment, then lets flags on fs override it. extra may register more
// flags on the same set before parsing. The settings are read in the order of the README's
// table, one group of them per reader.
func loadConfig(args []string, extra func(*flag.FlagSet)) (Config, error) {
	c := Config{
		DatabaseURL:              os.Getenv("DATABASE_URL"),
		HTTPAddr:                 envOr("HTTP_ADDR", "127.0.0.1:8080"),
		PublicURL:                os.Getenv("PUBLIC_URL"),
		AllowPrivateDestinations: false,
		SecretsKey:               os.Getenv("SECRETS_KEY"),
		SlackAPIURL:              os.Getenv("SLACK_API_URL"),
		LogLevel:                 envOr("LOG_LEVEL", "info"),
		LogFormat:                envOr("LOG_FORMAT", "text"),
		PprofAddr:                os.Getenv("PPROF_ADDR"),
		DrafterURL:               os.Getenv("DRAFTER_URL"),
		DrafterAPIKey:            os.Getenv("DRAFTER_API_KEY"),
		DrafterModel:             envOr("DRAFTER_MODEL", "gpt-4o-mini"),
	}
	for _, read := range []func(*Config) error{readRateLimits, readTimeouts, readDelivery, readLogging, readSimulator, readLinkedInProvider,
		readActionSpacing, readTraces} {
		if err := read(&c); err != nil {
			return c, err
		}
	}
	err := readFlags(&c, args, extra) // before c is returned: it sets the public origin
	return c, err
}

// readRateLimits reads the request budgets per minute.
func readRateLimits(c *Config) error {
	var err error
	if c.RateLimitPerMinute, err = envInt("RATE_LIMIT_PER_MINUTE", 120); err != nil {
		return err
	}
	if c.InboxRateLimitPerMinute, err = envInt("INBOX_RATE_LIMIT_PER_MINUTE", 30); err != nil {
		return err
	}
	c.IntakeRateLimitPerMinute, err = envInt("INTAKE_RATE_LIMIT_PER_MINUTE", 60)
	return err
}

// readTimeouts reads the send and shutdown timeouts and the retention periods.
func readTimeouts(c *Config) error {
	var err error
	if c.DeliveryTimeout, err = time.ParseDuration(envOr("DELIVERY_TIMEOUT", "10s")); err != nil || c.DeliveryTimeout <= 0 {
		return fmt.Errorf("DELIVERY_TIMEOUT must be a positive Go duration like 10s")
	}
	if c.ShutdownTimeout, err = time.ParseDuration(envOr("SHUTDOWN_TIMEOUT", "20s")); err != nil || c.ShutdownTimeout <= 0 {
		return fmt.Errorf("SHUTDOWN_TIMEOUT must be a positive Go duration like 20s")
	}
	for _, r := range []struct {
		name, def string
		dst       *time.Duration
	}{{"RETENTION_ATTEMPTS", "720h", &c.RetentionAttempts}, {"RETENTION_OUTBOX", "168h", &c.RetentionOutbox}} {
		if *r.dst, err = time.ParseDuration(envOr(r.name, r.def)); err != nil || *r.dst < 0 || (*r.dst > 0 && *r.dst < time.Minute) {
			return fmt.Errorf("%s must be a Go duration of at least 1m like %s, or 0 to keep everything", r.name, r.def)
		}
	}
	if c.RetentionInterval, err = time.ParseDuration(envOr("RETENTION_INTERVAL", "1m")); err != nil || c.RetentionInterval < time.Second {
		return fmt.Errorf("RETENTION_INTERVAL must be a Go duration of at least 1s like 1m")
	}
	return nil
}

// readDelivery reads the retry schedule, the secret rotation overlap and whether private
// destination addresses are allowed.
func readDelivery(c *Config) error {
	var err error
	if c.DeliveryRetrySchedule, err = parseSchedule(envOr("DELIVERY_RETRY_SCHEDULE", "0s,30s,5m,30m")); err != nil {
		return err
	}
	if c.SecretRotationOverlap, err = time.ParseDuration(envOr("SECRET_ROTATION_OVERLAP", "24h")); err != nil || c.SecretRotationOverlap < 0 {
		return fmt.Errorf("SECRET_ROTATION_OVERLAP must be a non-negative Go duration like 24h")
	}
	if v := os.Getenv("ALLOW_PRIVATE_DESTINATIONS"); v != "" {
		if c.AllowPrivateDestinations, err = strconv.ParseBool(v); err != nil {
			return fmt.Errorf("ALLOW_PRIVATE_DESTINATIONS must be true or false, got %q", v)
		}
	}
	return nil
}

// readLogging checks the log format and level.
func readLogging(c *Config) error {
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return fmt.Errorf("LOG_FORMAT must be text or json, got %q", c.LogFormat)
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return fmt.Errorf("LOG_LEVEL must be debug, info, warn or error, got %q", c.LogLevel)
	}
	return nil
}

// readSimulator reads the LinkedIn simulator's seed and speed.
func readSimulator(c *Config) error {
	seed, err := envInt("SIMULATOR_SEED", 42)
	if err != nil {
		return err
	}
	c.SimulatorSeed = int64(seed)
	if c.SimulatorSpeed, err = strconv.ParseFloat(envOr("SIMULATOR_SPEED", "1"), 64); err != nil || c.SimulatorSpeed < 0 {
		return fmt.Errorf("SIMULATOR_SPEED must be a non-negative number")
	}
	return nil
}

// readLinkedInProvider reads which LinkedIn provider runs and, for Unipile, where it is and
// with which key; a missing one is named.
func readLinkedInProvider(c *Config) error {
	c.LinkedInProvider = envOr("LINKEDIN_PROVIDER", "simulator")
	switch c.LinkedInProvider {
	case "simulator":
		return nil
	case "unipile":
	default:
		return fmt.Errorf("LINKEDIN_PROVIDER must be simulator or unipile, got %q", c.LinkedInProvider)
	}
	c.UnipileDSN = strings.TrimSpace(os.Getenv("UNIPILE_DSN"))
	c.UnipileAPIKey = strings.TrimSpace(os.Getenv("UNIPILE_API_KEY"))
	c.UnipileWebhookSecret = os.Getenv("UNIPILE_WEBHOOK_SECRET")
	for _, v := range []struct{ name, value string }{{"UNIPILE_DSN", c.UnipileDSN}, {"UNIPILE_API_KEY", c.UnipileAPIKey}} {
		if v.value == "" {
			return fmt.Errorf("%s is required with LINKEDIN_PROVIDER=unipile", v.name)
		}
	}
	if s := c.UnipileWebhookSecret; s != "" && (len(s) < 16 || strings.ContainsAny(s, "\r\n")) {
		return fmt.Errorf("UNIPILE_WEBHOOK_SECRET must be at least 16 characters on one line")
	}
	var err error
	if c.UnipileSyncInterval, err = time.ParseDuration(envOr("UNIPILE_SYNC_INTERVAL", "15m")); err != nil || c.UnipileSyncInterval < time.Second {
		return fmt.Errorf("UNIPILE_SYNC_INTERVAL must be a Go duration of at least 1s like 15m")
	}
	return nil
}

// readActionSpacing reads the gap a seat keeps between two LinkedIn actions.
func readActionSpacing(c *Config) error {
	var err error
	c.LinkedInActionSpacing, err = engine.ParseSpacing(envOr("LINKEDIN_ACTION_SPACING", engine.DefaultSpacing().String()))
	return err
}

// readTraces reads whether, and where to, spans are exported: the OpenTelemetry SDK's own
// variables, of which the endpoints decide whether tracing is on. The SDK reads them again, with
// the rest (headers, timeout, sampler, service name), when newTraces builds the exporter.
func readTraces(c *Config) error {
	c.TracesEndpoint = envOr("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	if disabled, _ := strconv.ParseBool(os.Getenv("OTEL_SDK_DISABLED")); disabled {
		c.TracesEndpoint = ""
	}
	if c.TracesEndpoint == "" {
		return nil
	}
	u, err := url.Parse(c.TracesEndpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) must be an http(s) URL like http://localhost:4318, got %q", c.TracesEndpoint)
	}
	return nil
}

// readFlags lets the command line override the database, the listen address and the public
// origin (and extra register more flags), then settles the public origin and requires a database.
func readFlags(c *Config, args []string, extra func(*flag.FlagSet)) error {
	fs := flag.NewFlagSet("outreachd", flag.ContinueOnError)
	fs.StringVar(&c.DatabaseURL, "database-url", c.DatabaseURL, "PostgreSQL connection string (DATABASE_URL)")
	fs.StringVar(&c.HTTPAddr, "http-addr", c.HTTPAddr, "listen address (HTTP_ADDR)")
	fs.StringVar(&c.PublicURL, "public-url", c.PublicURL, "public origin (PUBLIC_URL)")
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://" + c.HTTPAddr
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	if c.DatabaseURL == "" {
		return fmt.Errorf("DATABASE_URL is not set (make run sets it to a local PostgreSQL)")
	}
	return nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s must be a positive integer, got %q", name, v)
	}
	return n, nil
}

// parseSchedule reads DELIVERY_RETRY_SCHEDULE: the delay before each attempt, comma-separated.
func parseSchedule(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, part := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("DELIVERY_RETRY_SCHEDULE: %q is not a non-negative Go duration", part)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("DELIVERY_RETRY_SCHEDULE must list at least one delay")
	}
	return out, nil
}

// openStore connects serve and the admin CLI alike, with the delivery hub's store attached: both
// commit events, which get their deliveries in the same transaction, with the attempts of the
// configured retry schedule.
func openStore(ctx context.Context, c Config) (*storage.Store, *delivery.Store, error) {
	ds := delivery.NewStore(delivery.FanoutPolicy{Attempts: len(c.DeliveryRetrySchedule)})
	st, err := storage.Open(ctx, c.DatabaseURL, storage.Config{Deliveries: ds, Traces: c.Traces})
	if err != nil {
		return nil, nil, err
	}
	return st, ds, nil
}
