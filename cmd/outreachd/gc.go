package main

import (
	"runtime/debug"
)

// The collector's settings for serve, used when the operator sets neither GOGC nor GOMEMLIMIT
// (either one, set, leaves both to the Go runtime's own rules).
//
// With Go's default (GOGC=100) serve's heap is collected whenever it doubles its live part. Under
// a delivery burst the live heap stays near 22 MB (gctrace, 10 destinations), so the collector ran
// about 12 times a second and took 10–15 % of serve's CPU. GOGC=400 lets the heap grow to five
// times the live part before a collection, and the soft limit starts collections earlier as the
// heap nears 100 MiB, which keeps peak RSS near 115 MB (the bar is 150 MB). Measured in
// alternation with the load driver: serve's CPU 20 % lower and both bursts faster
// (docs/performance.md, "Issue 14, seventh session"). A deployment whose live heap approaches the
// limit should raise GOMEMLIMIT: near it the runtime collects far more often (it caps the
// collector at about half the CPU).
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
