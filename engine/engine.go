package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/trace"

	"outreachd/internal/telemetry"
	"outreachd/outreach"
	"outreachd/storage"
)

// Store is what the engine needs of package storage (*storage.Store is one): business
// transactions that commit with the events they emit, and the pool its own queries run on
// outside one. The engine's SQL is its own (the db_*.go files).
type Store interface {
	InTx(ctx context.Context, fn func(*storage.Tx) error) error
	Pool() *pgxpool.Pool
}

// Config tunes the outreach engine. Zero values take the defaults in brackets.
type Config struct {
	// PublicURL is the service's origin, for inbox, reconnect and report links.
	PublicURL string
	// ProviderName names the provider's report sequence: the poll cursor and the stored reports
	// are kept under it, so every process reading the same sequence passes the same name. The
	// simulator's sequence is its world's (rebuilt from the world's journal at each start, under
	// the same numbers), so the simulator's world name is passed; one serving process owns a
	// simulated world ["provider"].
	ProviderName string
	// InstanceID names this engine among running instances [a fresh id].
	InstanceID string
	// Tick is the real time between two passes of Run [250ms].
	Tick time.Duration
	// CampaignBatch is how many campaigns one claim leases [100].
	CampaignBatch int
	// Lease bounds how long (wall clock) an instance holds a campaign it works [2m].
	Lease time.Duration
	// StallDays is how long a positive replier is silent before the conversation stalls [5].
	StallDays int
	// InviteExpiry is when an unanswered connection request is withdrawn [21 days].
	InviteExpiry time.Duration
	// ReplyWindow is how long after the last step a prospect may still answer before the
	// sequence is completed [7 days].
	ReplyWindow time.Duration
	// BookingHorizonDays is how far ahead an automatic booking looks for a free slot [14].
	BookingHorizonDays int
	// CallTimeout bounds one provider or drafter call [15s].
	CallTimeout time.Duration
	// SimulatedContent makes the engine produce the content events (posts, market analyses,
	// weekly reports) whose source lies outside this service; on with the simulator.
	SimulatedContent bool
	// ClockSpeed is recorded with the heartbeat so the CLI can extrapolate engine time [1].
	ClockSpeed float64
	// ActivityLogEvery is how often (wall clock) Run logs at info the campaigns launched and
	// completed and what each campaign sent [1m].
	ActivityLogEvery time.Duration
	// SeatMessageGrace is how long (wall clock) a report of the seat's own message waits before
	// it is handled, so that a message outreachd sent is recorded as its own first
	// (reports_seat.go) [2m; negative: no wait].
	SeatMessageGrace time.Duration
	// Traces records a span per step and per report handled (trace.go) [nil: none].
	Traces trace.TracerProvider
	// ActionSpacing is the random gap, in engine time, between two LinkedIn actions of one seat,
	// held across instances [2m-5m].
	ActionSpacing Spacing
}

func (c *Config) setDefaults() {
	c.ProviderName = cmp.Or(c.ProviderName, "provider")
	if c.InstanceID == "" {
		c.InstanceID = outreach.NewID("eng")
	}
	c.Tick = cmp.Or(c.Tick, 250*time.Millisecond)
	c.CampaignBatch = cmp.Or(c.CampaignBatch, 100)
	c.Lease = cmp.Or(c.Lease, 2*time.Minute)
	c.StallDays = cmp.Or(c.StallDays, 5)
	c.InviteExpiry = cmp.Or(c.InviteExpiry, 21*24*time.Hour)
	c.ReplyWindow = cmp.Or(c.ReplyWindow, 7*24*time.Hour)
	c.BookingHorizonDays = cmp.Or(c.BookingHorizonDays, 14)
	c.CallTimeout = cmp.Or(c.CallTimeout, 15*time.Second)
	c.ClockSpeed = cmp.Or(c.ClockSpeed, 1)
	c.ActivityLogEvery = cmp.Or(c.ActivityLogEvery, time.Minute)
	c.SeatMessageGrace = cmp.Or(c.SeatMessageGrace, 2*time.Minute)
	c.ActionSpacing = c.ActionSpacing.orDefault()
}

// Validate reports a configuration the engine cannot run with.
func (c Config) Validate() error {
	switch {
	case c.Tick < 0 || c.Lease < 0 || c.ActivityLogEvery < 0 || c.InviteExpiry < 0 || c.ReplyWindow < 0 || c.CallTimeout < 0:
		return errors.New("engine: durations must not be negative")
	case c.CampaignBatch < 0 || c.StallDays < 0 || c.BookingHorizonDays < 0:
		return errors.New("engine: counts must not be negative")
	}
	return c.ActionSpacing.Validate()
}

// Engine works campaigns through their sequences, turns provider reports into statuses,
// activities and events, answers replies through the drafter and its guardrails, and emits
// the periodic events (stalls, daily digest, simulated content). Every change and the events
// it causes commit in one transaction; campaigns are leased and rows locked, so several
// instances share the work without acting twice.
type Engine struct {
	store   Store
	db      storage.Querier // store's pool
	li      LinkedIn        // nil in the admin CLI, which only handles reports
	op      Operator        // non-nil when li is a simulator that can re-enact operator reports
	drafter Drafter
	clock   outreach.Clock
	log     *slog.Logger
	ops     *opLog
	cfg     Config
	tracer  trace.Tracer

	mu     sync.Mutex
	known  map[string]bool // provider account ids the provider is known to have
	cursor int64
	polled bool
}

// New builds an engine. li may be nil for an engine that only handles reports (the CLI);
// when li also implements Operator, operator reports are re-enacted on it.
func New(store Store, li LinkedIn, drafter Drafter, clock outreach.Clock, log *slog.Logger, cfg Config) (*Engine, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if store == nil || drafter == nil || clock == nil {
		return nil, errors.New("engine: store, drafter and clock are required")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &Engine{store: store, db: store.Pool(), li: li, drafter: drafter, clock: clock, log: log, cfg: cfg, known: map[string]bool{},
		ops: newOpLog(log, cfg.ActivityLogEvery), tracer: telemetry.Tracer(cfg.Traces, TracerName)}
	if op, ok := li.(Operator); ok && li != nil {
		e.op = op
	}
	return e, nil
}

// Run makes passes until ctx ends.
func (e *Engine) Run(ctx context.Context) error {
	t := time.NewTicker(e.cfg.Tick)
	defer t.Stop()
	defer func() { _ = gone(context.WithoutCancel(ctx), e.db, e.cfg.InstanceID) }()
	for {
		if err := heartbeat(ctx, e.db, e.cfg.InstanceID, e.clock.Now(), e.cfg.ClockSpeed); err != nil && ctx.Err() == nil {
			e.log.Warn("engine heartbeat", "err", err)
		}
		st, err := e.Pass(ctx)
		if err != nil && ctx.Err() == nil {
			e.log.Warn("engine pass", "err", err)
		}
		e.ops.pass(st)
		e.ops.flush(ctx, e.launches)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// PassStats counts what one pass did.
type PassStats struct {
	Reports   int // reports handled (or forwarded)
	Admitted  int // accepted leads put at the start of their sequence
	Campaigns int // campaigns looked at
	Sends     int // invites and sequence messages sent
	Steps     int // prospects acted on (sends, withdrawals, completions)
	Replies   int // drafted replies sent
	Stalls    int
	Digests   int
	Content   int
	Completed int // campaigns completed
}

// Pass runs every part of the engine once, at the clock's now. Each part's failure is logged
// and the others still run; the first error is returned.
func (e *Engine) Pass(ctx context.Context) (PassStats, error) {
	var st PassStats
	var first error
	note := func(what string, err error) {
		if err == nil || ctx.Err() != nil {
			return
		}
		e.log.Warn("engine: "+what, "err", err)
		if first == nil {
			first = fmt.Errorf("%s: %w", what, err)
		}
	}
	note("sync accounts", e.syncAccounts(ctx))
	n, err := e.ProcessReports(ctx)
	st.Reports = n
	note("reports", err)
	note("lift rate limits", liftRateLimits(ctx, e.db, e.clock.Now()))
	st.Admitted, err = admitProspects(ctx, e.db, e.clock.Now())
	note("admit", err)
	note("sequencer", e.runSequencer(ctx, &st))
	_, err = e.checkOpenActions(ctx)
	note("open actions", err)
	st.Replies, err = e.sendDrafts(ctx)
	note("send drafts", err)
	st.Stalls, err = e.detectStalls(ctx)
	note("stalls", err)
	st.Digests, err = e.sendDigests(ctx)
	note("digest", err)
	if e.cfg.SimulatedContent {
		st.Content, err = e.simulateContent(ctx)
		note("content", err)
	}
	return st, first
}

// syncAccounts makes sure the provider has every seat the database holds: a simulator starts
// empty in each process, and `admin account connect` runs in another one.
func (e *Engine) syncAccounts(ctx context.Context) error {
	if e.li == nil {
		return nil
	}
	accs, err := Seats(ctx, e.db)
	if err != nil {
		return err
	}
	e.mu.Lock()
	var missing []storage.LinkedInAccount
	for _, a := range accs {
		if !e.known[a.ProviderAccountID] {
			missing = append(missing, a)
		}
	}
	e.mu.Unlock()
	if len(missing) == 0 {
		return nil
	}
	have, err := e.li.Accounts(ctx)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, a := range have {
		known[a.ID] = true
	}
	for _, a := range missing {
		if !known[a.ProviderAccountID] {
			got, err := e.li.ConnectAccount(ctx, a.OrgID, a.Name)
			switch {
			case errors.Is(err, outreach.ErrUnknownAccount):
				// A hosted provider that no longer holds the account cannot make it again: the
				// seat's own calls fail and report it down. Said once, not at every pass.
				e.log.Warn("engine: the provider does not hold this seat's account", "account", a.ID, "err", err)
			case err != nil:
				return fmt.Errorf("connect %s on the provider: %w", a.ID, err)
			case got.ID != a.ProviderAccountID:
				e.log.Warn("engine: provider gave a seat another id", "account", a.ID, "want", a.ProviderAccountID, "got", got.ID)
				continue
			}
		}
		e.mu.Lock()
		e.known[a.ProviderAccountID] = true
		e.mu.Unlock()
	}
	return nil
}

// launches reads the campaigns launched since a point, for the operator log.
func (e *Engine) launches(ctx context.Context, since time.Time, limit int) ([]campaignLaunch, time.Time, error) {
	return campaignLaunches(ctx, e.db, since, limit)
}

// callCtx bounds one outside call.
func (e *Engine) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, e.cfg.CallTimeout)
}

func timePtr(t time.Time) *time.Time { return &t }

// zeroNil is &t, or nil for the zero time.
func zeroNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func days(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }
