package main

import (
	"runtime/debug"
)

// The collector's settings for serve, used when the operator sets neither GOGC nor GOMEMLIMIT
// (either one, set, leaves both to the Go runtime's own rules).
//
// With Go's default (GOGC=100) serve's heap is collected whenever it doubles its live part; under
// a delivery burst the live heap is small and steady, so the collector ran many times a second
// for a visible share of serve's CPU. GOGC=400 lets the heap grow to five times the live part
// before a collection, and the soft limit starts collections earlier as the heap nears 100 MiB,
// which keeps peak RSS under the memory bar (the figures, measured in alternation with the load
// driver: docs/performance.md, "Memory"). A deployment whose live heap approaches the limit
// should raise GOMEMLIMIT: near it the runtime collects far more often (it caps the collector at
// about half the CPU).
const (
	serveGCPercent   = 400
	serveMemoryLimit = 100 << 20 // bytes
)

// applyGCDefaults sets serve's collector settings unless getenv names GOGC or GOMEMLIMIT, and
// reports whether it did.
func applyGCDefaults(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(serveGCPercent)
	debug.SetMemoryLimit(serveMemoryLimit)
	return true
}
