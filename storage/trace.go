package storage

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"outreachd/internal/telemetry"
)

// Traces of the business transactions (docs/operations.md, "Traces"). Every Store.InTx is one
// span, from BEGIN to COMMIT, a child of the span in its context (an API request, an engine step)
// or a root of its own; the delivery hub's fan-out, which runs inside it, records the span's
// context with the events it commits, and every delivery attempt of those events links back to
// it. With no tracer provider the spans are the no-op provider's, which record nothing.

// TracerName is the instrumentation scope of storage's spans.
const TracerName = "outreachd/storage"

const (
	// spanTransaction is a business transaction's span.
	spanTransaction = "storage.InTx"
	// spanEnrichment is a batch of pushed leads enriched and decided (EnrichPendingLeads).
	spanEnrichment = "engine.enrichment"
)

// Attributes of storage's spans: how many domain events a transaction committed, how many leads
// an enrichment batch holds.
const (
	AttrEvents = attribute.Key("outreachd.events")
	AttrLeads  = attribute.Key("outreachd.leads")
)

// endTransaction ends a transaction's span with the number of events it emitted and, when it
// failed, its error. A span that records nothing (tracing off, or not sampled) costs no attribute.
func endTransaction(span trace.Span, events int, err error) {
	if span.IsRecording() {
		span.SetAttributes(semconv.DBSystemNamePostgreSQL, AttrEvents.Int(events))
	}
	telemetry.End(span, err)
}
