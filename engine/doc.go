// Package engine is the home of outreachd's background workers of the outreach domain: lead
// enrichment, campaign sequencing, replies, stalls and the daily digest. Each worker is built by
// a constructor from its dependencies and a Config, and runs until its context is cancelled.
//
// It decides with the rules of package outreach and owns its SQL (the db_*.go files), which runs
// on package storage's pool and in its transactions, whose commit writes the events a change
// causes (Store is all it needs of storage). It must not import adapters: the outside world
// (enrichment providers, LinkedIn, drafters) reaches it through small interfaces declared here
// in outreach's words, next to the code that uses them, and cmd/outreachd plugs the adapters in.
// It serves no HTTP.
package engine
