// Package outreach is the domain of outreachd: identifiers, timestamps, statuses, lead keys,
// hard filters, intake field names, reply rules, the event catalog, what an action causes (a
// campaign's status change, an outcome, the rules of a push, and the events each emits), and the
// destination filters matched against events (the filter language is described in filter.go).
//
// It performs no I/O and imports no other package of this module; storage, api, delivery and
// engine build on it: storage asks the database what these rules need and writes what they
// decide.
package outreach
