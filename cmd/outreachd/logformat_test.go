package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// LOG_FORMAT picks the handler; anything else is refused at start with the setting named.
func TestLogFormat(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	for _, bad := range []string{"yaml", "JSON "} {
		t.Setenv("LOG_FORMAT", bad)
		if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), "LOG_FORMAT") {
			t.Fatalf("LOG_FORMAT=%q: %v", bad, err)
		}
	}
	t.Setenv("LOG_FORMAT", "json")
	t.Setenv("LOG_LEVEL", "loud")
	if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), "LOG_LEVEL") {
		t.Fatalf("LOG_LEVEL=loud: %v", err)
	}
	t.Setenv("LOG_LEVEL", "warn")
	cfg, err := loadConfig(nil, nil)
	if err != nil || cfg.LogFormat != "json" {
		t.Fatalf("json: %+v %v", cfg, err)
	}
	var buf bytes.Buffer
	log := newLogger(cfg.LogLevel, cfg.LogFormat, &buf)
	log.Info("hidden at warn")
	log.Warn("shown", "n", 3)
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil || line["msg"] != "shown" || line["n"] != float64(3) {
		t.Fatalf("json log %q: %v", buf.String(), err)
	}
	buf.Reset()
	newLogger("info", "text", &buf).Info("plain", "k", "v")
	if !strings.Contains(buf.String(), "msg=plain k=v") {
		t.Fatalf("text log %q", buf.String())
	}
}
