package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// Traces (docs/operations.md, "Traces"): with an OTLP endpoint configured, the process's spans go
// through the OpenTelemetry SDK's batching processor to its OTLP/HTTP exporter, both configured by
// the SDK's standard environment variables (endpoint, headers, timeout, compression, sampler,
// batching, resource attributes), as service "outreachd" unless OTEL_SERVICE_NAME names another.
// Without one no SDK is built at all: every part gets a nil provider and records through the
// no-op tracer, and nothing is dialled.

// defaultServiceName is the service the spans are exported as, unless OTEL_SERVICE_NAME says.
const defaultServiceName = "outreachd"

// adminTracer is the instrumentation scope of the operator CLI's spans (one per command).
const adminTracer = "outreachd/cmd/admin"

// traceFlushTimeout bounds the export of the spans still buffered when the process ends.
const traceFlushTimeout = 5 * time.Second

// newTraces builds the tracer provider for cfg.TracesEndpoint into cfg.Traces and returns the
// flush to run when the process ends (after the last span: serve's run group has stopped); with
// tracing off it sets nothing and the flush does nothing.
func newTraces(ctx context.Context, cfg *Config, log *slog.Logger) (flush func(), err error) {
	if cfg.TracesEndpoint == "" {
		return func() {}, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("traces: OTLP exporter: %w", err)
	}
	// Later detectors win: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES over the default name.
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName(defaultServiceName)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("traces: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	// The SDK reports what it cannot do (an export the collector refused or never answered)
	// through OpenTelemetry's one error handler; it goes to the process's log.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("traces", "err", err) }))
	cfg.Traces = tp
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), traceFlushTimeout)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			log.Warn("traces: spans still buffered at exit were not all exported", "err", err)
		}
	}, nil
}
