package storage

import (
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"outreachd/outreach"
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

// tracer is tp's tracer for storage, or the no-op one when tp is nil.
func tracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return tp.Tracer(TracerName)
}

// endTransaction ends a transaction's span with the number of events it emitted and, when it
// failed, its error. A span that records nothing (tracing off, or not sampled) costs no attribute.
func endTransaction(span trace.Span, events int, err error) {
	if span.IsRecording() {
		span.SetAttributes(semconv.DBSystemNamePostgreSQL, AttrEvents.Int(events))
	}
	endSpan(span, err)
}

// endSpan ends span, marked failed when err is not nil. A client's error (bad input, a thing not
// found) may quote what the client sent, a lead's text among it, so only its kind is recorded;
// any other error is recorded whole.
func endSpan(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		switch {
		case errors.Is(err, outreach.ErrInvalid):
			span.SetStatus(codes.Error, "invalid input")
		case errors.Is(err, outreach.ErrNotFound):
			span.SetStatus(codes.Error, "not found")
		default:
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
	}
	span.End()
}
