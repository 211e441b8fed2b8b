package api

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"outreachd/internal/telemetry"
)

// Traces of HTTP requests (docs/operations.md, "Traces"), when Deps.Traces is set: one server
// span per request, named by its method and route template ("POST /api/v1/campaigns/{id}/leads"),
// with the status code and, once the key is known, the organization's id. Never the path itself
// (an intake URL's path is its token), a query, a header or a body: no key and no lead's text
// reach a span. A request that carries a W3C traceparent continues the caller's trace. Probes and
// scrapes (/healthz, /readyz, /metrics) get no span.

// TracerName is the instrumentation scope of the API's spans.
const TracerName = "outreachd/api"

// untraced tells the paths of probes and scrapes, which would only bury the requests in spans.
func untraced(path string) bool {
	switch path {
	case "/healthz", "/readyz", "/metrics":
		return true
	}
	return false
}

// traceRequests starts each request's span around next (the whole handler, with the checks
// before routing) and ends it with the status code; a 5xx marks it failed.
func traceRequests(tp trace.TracerProvider, next http.Handler) http.Handler {
	tracer := tp.Tracer(TracerName)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if untraced(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		ctx := propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(r.Method)))
		defer span.End()
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r.WithContext(ctx))
		span.SetAttributes(semconv.HTTPResponseStatusCode(rec.code))
		if rec.code >= 500 {
			span.SetStatus(codes.Error, http.StatusText(rec.code))
		}
	})
}

// nameSpan is the router's middleware that names the request's span after the route matched.
func nameSpan(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if span := trace.SpanFromContext(r.Context()); span.IsRecording() && mux.CurrentRoute(r) != nil {
			if tpl, err := mux.CurrentRoute(r).GetPathTemplate(); err == nil {
				span.SetName(r.Method + " " + tpl)
				span.SetAttributes(semconv.HTTPRoute(tpl))
			}
		}
		next.ServeHTTP(w, r)
	})
}

// traceOrg records on the request's span which organization its key belongs to.
func traceOrg(ctx context.Context, orgID string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(telemetry.AttrOrg.String(orgID))
	}
}
