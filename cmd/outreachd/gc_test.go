package main

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestGCDefaultsOnlyWhenTheOperatorSetNone(t *testing.T) {
	// Whatever the test binary runs with is restored at the end.
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) })

	for _, env := range []map[string]string{{"GOGC": "150"}, {"GOMEMLIMIT": "1GiB"}, {"GOGC": "off", "GOMEMLIMIT": "64MiB"}} {
		if applyGCDefaults(func(k string) string { return env[k] }) {
			t.Errorf("with %v set, serve applied its own collector settings", env)
		}
		if p := debug.SetGCPercent(100); p != 100 {
			t.Errorf("with %v set, GC percent became %d", env, p)
		}
		if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
			t.Errorf("with %v set, the memory limit became %d", env, l)
		}
	}

	if !applyGCDefaults(func(string) string { return "" }) {
		t.Fatal("with neither GOGC nor GOMEMLIMIT set, serve did not apply its settings")
	}
	if p := debug.SetGCPercent(100); p != serveGCPercent {
		t.Errorf("GC percent %d, want %d", p, serveGCPercent)
	}
	if l := debug.SetMemoryLimit(-1); l != serveMemoryLimit {
		t.Errorf("memory limit %d, want %d", l, serveMemoryLimit)
	}
}
