// Package telemetry is what every part that records spans shares (docs/operations.md, "Traces"):
// a tracer from a provider that may be nil (tracing off: the no-op tracer, which records
// nothing), and how a span ends with an error. It builds no SDK and exports nothing; only cmd
// does, from the OTEL_* variables.
package telemetry

import (
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"outreachd/outreach"
)

// AttrOrg is the organization a span's work belongs to (an API request, an engine step).
const AttrOrg = attribute.Key("outreachd.org_id")

// Tracer is tp's tracer for the instrumentation scope name, or the no-op one when tp is nil.
func Tracer(tp trace.TracerProvider, name string) trace.Tracer {
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return tp.Tracer(name)
}

// End ends span, marked failed when err is not nil. A client's error (bad input, a thing not
// found) may quote what the client sent, a lead's text among it, so only its kind is recorded;
// any other error is recorded whole.
func End(span trace.Span, err error) {
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
