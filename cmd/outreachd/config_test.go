package main

import (
	"strings"
	"testing"
	"time"

	"outreachd/engine"
)

// Each group of settings is read and checked, and a bad value is named in the error.
func TestLoadConfig(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	cfg, err := loadConfig([]string{"-http-addr", "127.0.0.1:9"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.PublicURL != "http://127.0.0.1:9" || cfg.RateLimitPerMinute != 120 || cfg.DeliveryTimeout != 10*time.Second ||
		len(cfg.DeliveryRetrySchedule) != 4 || cfg.SimulatorSeed != 42 || cfg.RetentionOutbox != 168*time.Hour ||
		cfg.LinkedInActionSpacing != engine.DefaultSpacing() {
		t.Fatalf("defaults: %+v", cfg)
	}
	t.Setenv("PUBLIC_URL", "https://outreach.example.com/")
	t.Setenv("INTAKE_RATE_LIMIT_PER_MINUTE", "7")
	t.Setenv("ALLOW_PRIVATE_DESTINATIONS", "true")
	t.Setenv("SIMULATOR_SPEED", "3600")
	t.Setenv("LINKEDIN_ACTION_SPACING", "30s-90s")
	if cfg, err = loadConfig(nil, nil); err != nil {
		t.Fatal(err)
	}
	if cfg.PublicURL != "https://outreach.example.com" || cfg.IntakeRateLimitPerMinute != 7 || !cfg.AllowPrivateDestinations || cfg.SimulatorSpeed != 3600 ||
		cfg.LinkedInActionSpacing != (engine.Spacing{Min: 30 * time.Second, Max: 90 * time.Second}) {
		t.Fatalf("from the environment: %+v", cfg)
	}
	for _, bad := range []struct{ name, value string }{
		{"RATE_LIMIT_PER_MINUTE", "0"},
		{"INBOX_RATE_LIMIT_PER_MINUTE", "many"},
		{"DELIVERY_TIMEOUT", "-1s"},
		{"SHUTDOWN_TIMEOUT", "soon"},
		{"RETENTION_OUTBOX", "30s"},
		{"RETENTION_INTERVAL", "10ms"},
		{"DELIVERY_RETRY_SCHEDULE", "0s,-5m"},
		{"SECRET_ROTATION_OVERLAP", "-1h"},
		{"ALLOW_PRIVATE_DESTINATIONS", "maybe"},
		{"LOG_FORMAT", "xml"},
		{"SIMULATOR_SEED", "-3"},
		{"SIMULATOR_SPEED", "-1"},
		{"LINKEDIN_ACTION_SPACING", "5m-2m"},
		{"LINKEDIN_ACTION_SPACING", "3m"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			t.Setenv(bad.name, bad.value)
			if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), bad.name) {
				t.Fatalf("%s=%s: %v", bad.name, bad.value, err)
			}
		})
	}
	t.Setenv("DATABASE_URL", "")
	if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("no database: %v", err)
	}
}

// The LinkedIn provider: the simulator by default; Unipile needs its address and key, and
// names the one missing.
func TestLinkedInProviderConfig(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	cfg, err := loadConfig(nil, nil)
	if err != nil || cfg.LinkedInProvider != "simulator" {
		t.Fatalf("default provider: %q %v", cfg.LinkedInProvider, err)
	}
	t.Setenv("LINKEDIN_PROVIDER", "unipile")
	for _, c := range []struct {
		env     map[string]string
		missing string
	}{
		{map[string]string{}, "UNIPILE_DSN"},
		{map[string]string{"UNIPILE_DSN": "api8.unipile.com:13851"}, "UNIPILE_API_KEY"},
		{map[string]string{"UNIPILE_API_KEY": "k"}, "UNIPILE_DSN"},
		{map[string]string{"UNIPILE_DSN": "api8.unipile.com:13851", "UNIPILE_API_KEY": "k", "UNIPILE_WEBHOOK_SECRET": "short"}, "UNIPILE_WEBHOOK_SECRET"},
		{map[string]string{"UNIPILE_DSN": "api8.unipile.com:13851", "UNIPILE_API_KEY": "k", "UNIPILE_SYNC_INTERVAL": "soon"}, "UNIPILE_SYNC_INTERVAL"},
	} {
		t.Run(c.missing, func(t *testing.T) {
			for _, name := range []string{"UNIPILE_DSN", "UNIPILE_API_KEY", "UNIPILE_WEBHOOK_SECRET", "UNIPILE_SYNC_INTERVAL"} {
				t.Setenv(name, c.env[name])
			}
			if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), c.missing) {
				t.Fatalf("%v: %v, want an error naming %s", c.env, err, c.missing)
			}
		})
	}
	t.Setenv("UNIPILE_DSN", "api8.unipile.com:13851")
	t.Setenv("UNIPILE_API_KEY", "k")
	if cfg, err = loadConfig(nil, nil); err != nil || cfg.UnipileSyncInterval != 15*time.Minute || cfg.UnipileWebhookSecret != "" {
		t.Fatalf("unipile defaults: %+v %v", cfg, err)
	}
	t.Setenv("LINKEDIN_PROVIDER", "linkedin")
	if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), "LINKEDIN_PROVIDER") {
		t.Fatalf("unknown provider: %v", err)
	}
}
