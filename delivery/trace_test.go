package delivery_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// The fan-out keeps the traceparent of the span that commits an event with its payload, and
// each attempt of its deliveries is a client span of its own trace, linked to that span and
// named in the webhook request's traceparent header; a retry is a new span with the same link.
// An event committed with no span has no traceparent, its attempt no link.
func TestAttemptSpansLinkToTheCommittingSpan(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	e := startHub(t, hubOpts{allowPrivate: true, traces: tp})
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // the first attempt fails: one retry
		}
	})
	d := e.destination(t, rc.URL, "", string(outreach.EventCampaignStarted))

	ctx, committing := tp.Tracer("test").Start(context.Background(), "committing request")
	traced := sample(e.org)
	if err := e.st.InTx(ctx, func(tx *storage.Tx) error { tx.Emit(traced); return nil }); err != nil {
		t.Fatal(err)
	}
	committing.End()
	got := rc.waitFor(t, 10*time.Second, "the attempt and its retry", atLeast(2))

	want := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, want)
	if stored := payloadTraceParent(t, e, traced.ID); stored == nil || *stored != want.Get("traceparent") {
		t.Fatalf("payload traceparent %v, want the committing span's %q", stored, want.Get("traceparent"))
	}

	// An attempt's span ends after its answer is read, so after the receiver saw the request:
	// wait until the span each request names has ended (other spans, the transaction's and the
	// fan-out's, end too, so a count of ended spans would not do).
	named := make([]trace.SpanContext, 2)
	for i, r := range got[:2] {
		named[i] = trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(),
			propagation.HeaderCarrier(r.header)))
	}
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	testenv.Eventually(t, 5*time.Second, func() (bool, string) {
		for _, s := range spans.Ended() {
			byID[s.SpanContext().SpanID()] = s
		}
		for i, h := range named {
			if _, ended := byID[h.SpanID()]; !ended {
				return false, fmt.Sprintf("request %d: no ended span named %s", i+1, h.SpanID())
			}
		}
		return true, ""
	})
	for i, r := range got[:2] {
		header := named[i]
		s, ok := byID[header.SpanID()]
		if !ok || s.SpanContext().TraceID() != header.TraceID() {
			t.Fatalf("request %d: traceparent %q names no recorded span", i+1, r.header.Get("traceparent"))
		}
		links := s.Links()
		if s.Name() != "delivery.attempt" || s.SpanKind() != trace.SpanKindClient || s.Parent().IsValid() ||
			len(links) != 1 || links[0].SpanContext.SpanID() != committing.SpanContext().SpanID() {
			t.Fatalf("request %d: span %s kind %v parent %v links %v, want a client root span linked to the committing span",
				i+1, s.Name(), s.SpanKind(), s.Parent(), links)
		}
		attrs := map[string]any{}
		for _, kv := range s.Attributes() {
			attrs[string(kv.Key)] = kv.Value.AsInterface()
		}
		if attrs["outreachd.destination_id"] != d.ID || attrs["outreachd.attempt"] != int64(i+1) ||
			attrs["http.response.status_code"] != int64([]int{503, 200}[i]) {
			t.Errorf("request %d: attempt span attributes %v", i+1, attrs)
		}
	}
}

// Without a span in the committing transaction's context the payload keeps no traceparent, and
// with a hub that has no tracer provider the webhook request carries no traceparent header.
func TestNoTraceParentWithoutTracing(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{allowPrivate: true})
	rc := newReceiver(t, nil)
	e.destination(t, rc.URL, "", string(outreach.EventCampaignStarted))
	ev := sample(e.org)
	e.emit(t, ev)
	got := rc.waitFor(t, 10*time.Second, "the delivery", atLeast(1))
	if v := got[0].header.Get("traceparent"); v != "" {
		t.Errorf("traceparent %q sent with tracing off", v)
	}
	if stored := payloadTraceParent(t, e, ev.ID); stored != nil {
		t.Errorf("payload traceparent %q stored with tracing off", *stored)
	}
}

// payloadTraceParent reads the traceparent kept with an event's payload (nil: NULL).
func payloadTraceParent(t *testing.T, e *hubEnv, eventID string) *string {
	t.Helper()
	var tp *string
	if err := e.st.Pool().QueryRow(context.Background(), `SELECT traceparent FROM delivery_payloads WHERE event_id = $1`,
		eventID).Scan(&tp); err != nil {
		t.Fatal(err)
	}
	return tp
}
