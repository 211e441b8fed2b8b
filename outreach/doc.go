// Package outreach is the domain of outreachd: identifiers, timestamps, statuses, lead keys,
// hard filters, intake field names, reply rules, the event catalog and the destination filters
// matched against events (the filter language is described in filter.go).
//
// It performs no I/O and imports no other package of this module; storage, api, delivery and
// engine build on it.
package outreach
