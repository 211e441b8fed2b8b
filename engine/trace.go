package engine

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"outreachd/internal/telemetry"
)

// Traces of the engine's work (docs/operations.md, "Traces"): a span per prospect's step (named
// by what the step did: engine.invite, engine.message, engine.withdraw; engine.step when it did
// none of them) and per provider report handled (engine.report). The business transaction of each
// is a child span, so a delivery of an event the engine emitted links back to the step or report
// that caused it. Ids only: never a message's text or a person's name. With no tracer provider the
// spans are the no-op provider's, which record nothing.

// TracerName is the instrumentation scope of the engine's spans.
const TracerName = "outreachd/engine"

// Attributes of the engine's spans.
const (
	AttrCampaign   = attribute.Key("outreachd.campaign_id")
	AttrProspect   = attribute.Key("outreachd.prospect_id")
	AttrStep       = attribute.Key("outreachd.step")
	AttrReport     = attribute.Key("outreachd.report_id")
	AttrReportKind = attribute.Key("outreachd.report_kind")
)

// startSpan starts one of the engine's spans; attrs are built only for a span that records.
func (e *Engine) startSpan(ctx context.Context, name string, attrs func() []attribute.KeyValue) (context.Context, trace.Span) {
	ctx, span := e.tracer.Start(ctx, name)
	if span.IsRecording() {
		span.SetAttributes(attrs()...)
	}
	return ctx, span
}

// endStep ends a step's span, renamed after what the step did ("" for nothing sent or withdrawn),
// marked failed when err is not nil.
func endStep(span trace.Span, did string, err error) {
	if did != "" && span.IsRecording() {
		span.SetName("engine." + did)
		span.SetAttributes(AttrStep.String(did))
	}
	telemetry.End(span, err)
}
