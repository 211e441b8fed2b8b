package delivery

import (
	"context"
	"net/http"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"outreachd/internal/telemetry"
)

// BenchmarkAttemptSpan is what tracing adds to one delivery attempt, apart from the send: the
// attempt's span started (linked to its committing span when one was recorded), the traceparent
// header and the span ended with its answer. "off" is the no-op tracer every process without an
// OTLP endpoint runs; "on" is the SDK recording every span, with no exporter behind it.
//
//	go test -run '^$' -bench AttemptSpan -benchmem ./delivery/
func BenchmarkAttemptSpan(b *testing.B) {
	for _, tc := range []struct {
		name string
		tp   trace.TracerProvider
		link string
	}{
		{"off", nil, ""},
		{"on", sdktrace.NewTracerProvider(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			h := &Hub{cfg: Config{Traces: tc.tp}, tracer: telemetry.Tracer(tc.tp, TracerName)}
			c := ClaimedDelivery{ID: "dlv_1", EventID: "evt_1", EventKind: "prospect_added", Trigger: "new",
				Target: DeliveryTarget{ID: "dst_1"}, TraceParent: tc.link}
			hdr := http.Header{}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				actx, span := h.startAttempt(ctx, c)
				injectTraceParent(actx, hdr)
				endAttempt(span, sendResult{StatusCode: 200, OK: true})
			}
		})
	}
}
