// Package delivery is the event-delivery hub: it writes the deliveries of every event inside the
// business transaction that commits it (Store.FanOut, which storage.Store.InTx calls through the
// storage.Deliveries interface: one per matching destination of the organization), sends them to
// each destination (dispatch), retries on the configured schedule, records every attempt, keeps
// the destinations, their logs and health, prunes what is past retention, and exports the metrics
// operators watch. It owns its SQL (store*.go) on the pools of the storage.Store it is attached
// to; storage never imports it.
//
// Every process on the database runs the same loops: it hears of new deliveries by NOTIFY,
// claims due ones with FOR UPDATE SKIP LOCKED, and sends them from its own goroutines with a cap
// per destination, so one slow or dead destination can only ever hold its own slots, and no
// transaction is open while anything is sent. The design and its reasons are in
// docs/decisions/delivery.md.
package delivery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"outreachd/adapters/slack"
	"outreachd/adapters/webhook"
	"outreachd/internal/telemetry"
	"outreachd/outreach"
)

// WebhookSender makes one HTTPS attempt (adapters/webhook.Sender).
type WebhookSender interface {
	Send(ctx context.Context, req webhook.Request) webhook.Result
}

// SlackSender posts one event to a Slack destination (adapters/slack.Sender).
type SlackSender interface {
	Send(ctx context.Context, t slack.Target, ev outreach.Event) (slack.Result, error)
}

// SecretOpener opens sealed destination secrets and Slack tokens (SecretBox).
type SecretOpener interface {
	Open(sealed string) (string, error)
}

// Config tunes the hub. Zero values take the defaults of setDefaults.
type Config struct {
	// Timeout bounds one attempt (DELIVERY_TIMEOUT); it also sizes the claim lease.
	Timeout time.Duration
	// RetrySchedule is the delay before each attempt (DELIVERY_RETRY_SCHEDULE); its length is the
	// number of attempts a delivery gets.
	RetrySchedule []time.Duration
	// Jitter is the ± fraction applied to each scheduled delay (default 0.1).
	Jitter float64
	// FirstAttemptSlots and RetrySlots cap the sends in flight in this process for first attempts
	// and for retries: separate budgets, so a backlog of retries never starves fresh events.
	FirstAttemptSlots int
	RetrySlots        int
	// PerDestination caps one destination's sends in flight in this process.
	PerDestination int
	// ClaimBatch is the most deliveries one claim takes.
	ClaimBatch int
	// Lease is how long a claimed delivery stays invisible to other claims; a process killed
	// mid-send leaves deliveries that come due again after it. It covers the wait in the
	// destination's local queue (at most 4 × PerDestination − 1 rows, so at most four attempt
	// timeouts ahead of it) plus its own attempt: default 5 × Timeout + 5 s, and it must exceed
	// 5 × Timeout.
	Lease time.Duration
	// DedupeWindow is how long identical payloads to one destination collapse (24 h).
	DedupeWindow time.Duration
	// IdleWake bounds how long a dispatcher sleeps without a notification; it only matters when
	// a notification was missed.
	IdleWake time.Duration
	// StatsInterval is how often the queue gauges are refreshed.
	StatsInterval time.Duration
	// Secrets opens sealed secrets; nil means destinations with a secret or a bot token fail.
	Secrets SecretOpener
	// ShutdownGrace bounds how long Run takes to stop once its context ends (SHUTDOWN_TIMEOUT):
	// sends in flight finish (each is bounded by Timeout) and every attempt made is recorded
	// within it. What cannot finish in time stays leased and is sent again after its lease, with
	// the same webhook-id. Default 20 s.
	ShutdownGrace time.Duration
	// Logger receives warnings; nil discards them.
	Logger *slog.Logger
	// Traces records a span per attempt (trace.go); nil records none.
	Traces trace.TracerProvider
}

func (c *Config) setDefaults() {
	c.Timeout = cmp.Or(c.Timeout, 10*time.Second)
	if len(c.RetrySchedule) == 0 {
		c.RetrySchedule = []time.Duration{0, 30 * time.Second, 5 * time.Minute, 30 * time.Minute}
	}
	c.Jitter = cmp.Or(c.Jitter, 0.1)
	c.FirstAttemptSlots = cmp.Or(c.FirstAttemptSlots, 256)
	c.RetrySlots = cmp.Or(c.RetrySlots, 64)
	c.PerDestination = cmp.Or(c.PerDestination, 32)
	c.ClaimBatch = cmp.Or(c.ClaimBatch, 200)
	c.Lease = cmp.Or(c.Lease, (queueDepth+1)*c.Timeout+5*time.Second)
	c.DedupeWindow = cmp.Or(c.DedupeWindow, 24*time.Hour)
	c.IdleWake = cmp.Or(c.IdleWake, time.Second)
	c.StatsInterval = cmp.Or(c.StatsInterval, 5*time.Second)
	c.ShutdownGrace = cmp.Or(c.ShutdownGrace, 20*time.Second)
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
}

// Validate reports a configuration NewHub refuses.
func (c Config) Validate() error {
	if c.Timeout <= 0 {
		return errors.New("delivery: timeout must be positive")
	}
	for _, d := range c.RetrySchedule {
		if d < 0 {
			return errors.New("delivery: retry schedule delays must not be negative")
		}
	}
	if c.Jitter < 0 || c.Jitter >= 1 {
		return errors.New("delivery: jitter must be in [0, 1)")
	}
	if c.Lease <= (queueDepth+1)*c.Timeout {
		return fmt.Errorf("delivery: lease must be longer than %d attempt timeouts (the wait in a destination's queue and the attempt)", queueDepth+1)
	}
	if c.ShutdownGrace < 0 {
		return errors.New("delivery: shutdown grace must not be negative")
	}
	if c.PerDestination < 1 || c.FirstAttemptSlots < 1 || c.RetrySlots < 1 || c.ClaimBatch < 1 {
		return errors.New("delivery: slots and batch sizes must be positive")
	}
	return nil
}

// Hub is the delivery pipeline of one process. Several processes on one database share the work.
type Hub struct {
	store   *Store
	webhook WebhookSender
	slack   SlackSender
	cfg     Config
	log     *slog.Logger
	metrics *metrics
	reg     prometheus.Registerer
	policy  policy

	tracer   trace.Tracer
	sched    *sched
	chunks   chunks
	recorder *recorder
	health   *dbHealth

	wakeFirst, wakeRetry chan struct{}

	runMu   sync.Mutex
	running bool
}

// NewHub builds the hub. slackSender may be nil (Slack destinations then fail their attempts).
// Metrics are registered on reg; nil registers nowhere.
func NewHub(store *Store, webhookSender WebhookSender, slackSender SlackSender, reg prometheus.Registerer, cfg Config) (*Hub, error) {
	if store == nil || webhookSender == nil {
		return nil, errors.New("delivery: a store and a webhook sender are required")
	}
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	// The fan-out writes this hub's retry budget and duplicate window into every delivery it
	// creates, whichever process commits the event.
	store.SetFanoutPolicy(FanoutPolicy{Attempts: len(cfg.RetrySchedule), DedupeWindow: cfg.DedupeWindow,
		QueueChunk: cfg.PerDestination})
	m, err := newMetrics(reg, store.FanoutCounts)
	if err != nil {
		return nil, err
	}
	h := &Hub{
		store: store, webhook: webhookSender, slack: slackSender, cfg: cfg, log: cfg.Logger, metrics: m, reg: reg,
		tracer: telemetry.Tracer(cfg.Traces, TracerName),
		policy: policy{schedule: cfg.RetrySchedule, jitter: cfg.Jitter, rand: rand.Float64},
		sched:  newSched(cfg.PerDestination, cfg.FirstAttemptSlots, cfg.RetrySlots),
		// Buffered by one: a wake-up that arrives while its loop is busy is kept, not lost.
		wakeFirst: make(chan struct{}, 1), wakeRetry: make(chan struct{}, 1),
	}
	h.health = newDBHealth(cfg.Logger)
	h.recorder = newRecorder(store, cfg.Logger, h.health, h.wake(h.wakeRetry))
	return h, nil
}

func (h *Hub) wake(ch chan struct{}) func() {
	return func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Run runs the listener, both dispatch loops, the recorder and the gauges until ctx ends. It then stops taking work, lets the sends in flight finish and
// records every attempt, within Config.ShutdownGrace (stop).
func (h *Hub) Run(ctx context.Context) error {
	h.runMu.Lock()
	if h.running {
		h.runMu.Unlock()
		return errors.New("delivery: hub is already running")
	}
	h.running = true
	h.runMu.Unlock()

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	fail := func(name string, err error) {
		if err != nil && !errors.Is(err, context.Canceled) {
			cancel(fmt.Errorf("delivery %s: %w", name, err))
		}
	}
	// The recorder outlives ctx: it is stopped by stop, within the grace.
	recCtx, stopRec := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRec()
	recDone := make(chan struct{})
	go func() { defer close(recDone); h.recorder.run(recCtx) }()

	run := func(name string, f func(context.Context) error) {
		wg.Add(1)
		go func() { defer wg.Done(); fail(name, f(ctx)) }()
	}
	run("listener", h.listen)
	run("first-attempt dispatcher", func(ctx context.Context) error { return h.dispatch(ctx, false) })
	run("retry dispatcher", func(ctx context.Context) error { return h.dispatch(ctx, true) })
	run("stats", h.stats)
	<-ctx.Done()
	h.stop(&wg, stopRec, recDone)
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// stop is the graceful end of Run, bounded by ShutdownGrace: no new work (the loops end), the deliveries queued locally are handed back (due at once rather
// than after their lease), the sends in flight finish, and the recorder writes every outcome
// before it returns. Sends still running when only recordReserve of the grace is left are
// abandoned: their deliveries stay leased and are sent again after the lease, with the same
// webhook-id (a receiver that saw the first one drops the second).
func (h *Hub) stop(loops *sync.WaitGroup, stopRec context.CancelFunc, recDone <-chan struct{}) {
	deadline := time.Now().Add(h.cfg.ShutdownGrace)
	loops.Wait()
	// The queued deliveries' own rows are handed back at once; their chunks only once every
	// attempt made here is recorded, because a chunk due again gives the next claim every
	// delivery it lists still pending, and those in flight here are until their records land.
	// A chunk with a send abandoned or a record given up stays leased.
	own, chunked := h.queuedRows(h.sched.close())
	h.release(deadline, own)
	sends := make(chan struct{})
	go func() { h.sched.wait(); close(sends) }()
	reserve := min(h.cfg.ShutdownGrace/4, 5*time.Second)
	wait := time.NewTimer(max(time.Until(deadline)-reserve, 0))
	defer wait.Stop()
	sent := false
	select {
	case <-sends:
		sent = true
	case <-wait.C:
		h.log.Warn("delivery: sends still in flight at the end of the shutdown grace are abandoned; their deliveries stay leased and are sent again after the lease",
			"grace", h.cfg.ShutdownGrace)
	}
	close(h.recorder.stop)
	hard := time.AfterFunc(max(time.Until(deadline), 0), stopRec)
	<-recDone
	if recorded := hard.Stop(); sent && recorded {
		h.release(deadline, chunked)
	}
}

// queuedRows splits the queue rows of deliveries claimed but never started into the deliveries'
// own rows and chunks (each chunk once).
func (h *Hub) queuedRows(queued []claimed) (own, chunked []string) {
	seen := map[string]bool{}
	for _, it := range queued {
		switch chunk := it.c.ChunkID(); {
		case chunk == "":
			own = append(own, it.c.ID)
		case !seen[chunk]:
			seen[chunk] = true
			chunked = append(chunked, chunk)
		}
	}
	return own, chunked
}

// release hands queue rows back (due at once) if the shutdown grace still has time for it;
// otherwise they come due after their lease.
func (h *Hub) release(deadline time.Time, ids []string) {
	if len(ids) == 0 || !time.Now().Before(deadline) {
		return
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if err := h.store.ReleaseClaims(ctx, ids); err != nil {
		h.log.Warn("delivery: releasing queued deliveries", "rows", len(ids), "err", err)
	}
}
