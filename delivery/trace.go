package delivery

import (
	"context"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"outreachd/internal/telemetry"
	"outreachd/storage"
)

// Traces of the hub (docs/operations.md, "Traces"). The fan-out is a span inside the business
// transaction's (storage.Store.InTx), and it keeps that transaction's span context, as W3C
// traceparent text, with each event's payload (delivery_payloads.traceparent, written in the same
// transaction). Each attempt is a client span of its own trace, linked — not parented: it may
// happen much later and in another process — to the span that committed its event, and its
// webhook request carries a traceparent header naming it, so a receiver can join the trace.
// Without a tracer provider nothing of this runs: the spans are the no-op provider's, no
// traceparent is stored and no header is sent (a made-up one would name a span nobody can see).

// TracerName is the instrumentation scope of the hub's spans.
const TracerName = "outreachd/delivery"

const (
	spanFanout  = "delivery.fanout"
	spanAttempt = "delivery.attempt"
)

// Attributes of the hub's spans.
const (
	AttrDestination = attribute.Key("outreachd.destination_id")
	AttrDelivery    = attribute.Key("outreachd.delivery_id")
	AttrEvent       = attribute.Key("outreachd.event_id")
	AttrEventKind   = attribute.Key("outreachd.event_kind")
	AttrAttempt     = attribute.Key("outreachd.attempt")
	AttrTrigger     = attribute.Key("outreachd.trigger")
	AttrDeliveries  = attribute.Key("outreachd.deliveries")
	AttrCollapsed   = attribute.Key("outreachd.deliveries_collapsed")
)

// committingSpan is the W3C traceparent of the span in ctx — in the fan-out, the business
// transaction that commits the events — or "" when there is none (tracing off).
func committingSpan(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c.Get("traceparent")
}

// startFanout starts the fan-out's span, a child of the business transaction's, on that span's
// own provider (the no-op one when the transaction records nothing).
func startFanout(ctx context.Context) (context.Context, trace.Span) {
	tracer := trace.SpanFromContext(ctx).TracerProvider().Tracer(TracerName)
	return tracer.Start(ctx, spanFanout)
}

// endFanout ends the fan-out's span with what it wrote.
func endFanout(span trace.Span, events int, res InsertResult, err error) {
	if span.IsRecording() {
		span.SetAttributes(storage.AttrEvents.Int(events), AttrDeliveries.Int(res.Created), AttrCollapsed.Int(res.Collapsed))
	}
	telemetry.End(span, err)
}

// startAttempt starts the span of one attempt of c: a client span, the root of a trace of its own
// unless ctx holds a span (a test send, within its API request), linked to the span that
// committed c's event when the claim read one (c.TraceParent).
func (h *Hub) startAttempt(ctx context.Context, c ClaimedDelivery) (context.Context, trace.Span) {
	if h.cfg.Traces == nil {
		// Tracing off: not even the no-op tracer's context, on the path of every send.
		return ctx, noop.Span{}
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}
	if !trace.SpanContextFromContext(ctx).IsValid() {
		opts = append(opts, trace.WithNewRoot())
	}
	if c.TraceParent != "" {
		committed := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": c.TraceParent}))
		if committed.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: committed}))
		}
	}
	ctx, span := h.tracer.Start(ctx, spanAttempt, opts...)
	if span.IsRecording() {
		span.SetAttributes(AttrDestination.String(c.Target.ID), AttrDelivery.String(c.ID), AttrEvent.String(c.EventID),
			AttrEventKind.String(c.EventKind), AttrAttempt.Int(c.Attempts+1), AttrTrigger.String(c.Trigger),
			semconv.HTTPRequestMethodPost)
	}
	return ctx, span
}

// endAttempt ends an attempt's span with its answer: the status code, or the error.
func endAttempt(span trace.Span, res sendResult) {
	if span.IsRecording() {
		if res.StatusCode != 0 {
			span.SetAttributes(semconv.HTTPResponseStatusCode(res.StatusCode))
		}
		if !res.OK {
			msg := res.Error
			if msg == "" {
				msg = "HTTP " + strconv.Itoa(res.StatusCode)
			}
			span.SetStatus(codes.Error, msg)
		}
	}
	span.End()
}

// injectTraceParent adds the traceparent header naming the attempt's span in ctx; without one
// (tracing off) it adds nothing.
func injectTraceParent(ctx context.Context, hdr http.Header) {
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(hdr))
}
