// Command otlpsink is a local OTLP/HTTP trace receiver for measuring outreachd with tracing on:
// it decodes every export request (as a collector would) and counts the spans, keeping none, and
// prints the totals when it is stopped (SIGINT or SIGTERM). Point the service at it with
// OTEL_EXPORTER_OTLP_ENDPOINT=http://<addr> (docs/performance.md, "Traces").
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"outreachd/internal/testenv"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:4318", "listen address (loopback only)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := &testenv.Collector{Discard: true}
	srv := &http.Server{Addr: *addr, Handler: c, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "otlpsink:", err)
		os.Exit(1)
	}
	spans, requests := c.Counts()
	fmt.Printf("otlpsink: %d spans in %d export requests\n", spans, requests)
}
