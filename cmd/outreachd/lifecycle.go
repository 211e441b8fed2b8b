package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/oklog/run"
)

// The process lifecycle of `serve` is one run.Group (github.com/oklog/run): every long-running
// part — the signal handler, the HTTP server, each background worker and the profiler's
// listener — is an actor with an execute and an interrupt. The first actor to return (a
// signal, or a part that failed) interrupts all the others, and Run returns once every one has.
//
// Graceful stop (SHUTDOWN_TIMEOUT): the first interrupt starts one grace period shared by all
// actors. The HTTP server stops accepting at once while requests in flight finish, and at the
// same time the workers stop taking work (the delivery hub lets its sends in flight finish and
// records every attempt within the same grace). Interrupts only start a stop and never block, so
// all parts drain side by side. A worker still running a moment after the grace (the hub's last
// bookkeeping) is abandoned: leased deliveries are sent again after their lease, with the same
// webhook-id.

// abandonAfter is the moment past the grace that a worker gets for its last bookkeeping before
// the process stops waiting for it.
const abandonAfter = 2 * time.Second

// stopping is the one grace period of a graceful stop, started by the first interrupt.
type stopping struct {
	log      *slog.Logger
	grace    time.Duration
	once     sync.Once
	begun    chan struct{}
	deadline time.Time // set before begun is closed
}

func newStopping(log *slog.Logger, grace time.Duration) *stopping {
	return &stopping{log: log, grace: grace, begun: make(chan struct{})}
}

// begin starts the grace period; later calls do nothing.
func (s *stopping) begin() {
	s.once.Do(func() {
		s.deadline = time.Now().Add(s.grace)
		s.log.Info("stopping", "grace", s.grace)
		close(s.begun)
	})
}

// signalActor ends the group on SIGINT or SIGTERM, or when ctx (main's, also signal-aware during
// start-up) is done.
func signalActor(ctx context.Context, g *run.Group) {
	g.Add(run.SignalHandler(ctx, os.Interrupt, syscall.SIGTERM))
}

// httpActor serves srv on ln; its interrupt stops accepting and lets the requests in flight
// finish within the grace, cutting those still running at its end.
func httpActor(g *run.Group, s *stopping, srv *http.Server, ln net.Listener) {
	drained := make(chan struct{})
	g.Add(func() error {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			err = fmt.Errorf("http: %w", err)
			s.log.Error("stopping after a failure", "err", err)
			return err
		}
		<-drained
		return nil
	}, func(error) {
		s.begin()
		go func() {
			defer close(drained)
			ctx, cancel := context.WithDeadline(context.Background(), s.deadline)
			defer cancel()
			if err := srv.Shutdown(ctx); err != nil {
				s.log.Warn("HTTP requests still running at the end of the shutdown grace were cut", "err", err)
				_ = srv.Close()
			}
		}()
	})
}

// workerActor runs w until interrupted. A worker that fails stops the process; one that returns
// early without an error (nothing to do) just waits for the stop. Its interrupt cancels the
// worker's context, and the actor stops waiting for it abandonAfter past the grace.
func workerActor(g *run.Group, s *stopping, w worker) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	g.Add(func() error {
		go func() { done <- w.run(ctx) }()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				err = fmt.Errorf("worker %s: %w", w.name, err)
				s.log.Error("stopping after a failure", "err", err)
				return err
			}
			<-s.begun
			return nil
		case <-s.begun:
		}
		select {
		case <-done:
		case <-time.After(time.Until(s.deadline) + abandonAfter):
			s.log.Warn("worker still running after the shutdown grace; exiting anyway", "worker", w.name, "grace", s.grace)
		}
		return nil
	}, func(error) {
		s.begin()
		cancel()
	})
}

// pprofActor exposes the Go profiler on its own address, apart from the API, so it is reachable
// only where the operator binds it. The profiler is an aid, not a part of the service: when it
// cannot listen, that is logged and the service runs on without it. Its interrupt closes it at
// once (a profile being taken is not worth the grace).
func pprofActor(g *run.Group, s *stopping, addr string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	g.Add(func() error {
		s.log.Info("pprof listening", "addr", addr)
		if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("pprof stopped", "err", err)
			<-s.begun
		}
		return nil
	}, func(error) {
		s.begin()
		_ = srv.Close()
	})
}
