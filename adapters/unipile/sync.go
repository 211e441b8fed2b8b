package unipile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"outreachd/outreach"
)

// Sync is the periodic reconciliation of every seat with what Unipile lists, because webhooks
// get lost and new_relation can come hours late, or never: for each seat, at most once per
// Interval and by one instance at a time (a lease), it reads the account's status, the pending
// invitations, the relations made and the chats active since its watermark, and records what
// they show (an acceptance, a reply, the seat's own message, a status change) as the same
// reports, with the same dedupe keys, as the webhooks would have: a fact already reported is
// not reported again.
type Sync struct {
	p     *Provider
	store SyncStore
	cfg   SyncConfig
}

// SyncStore keeps where each seat's reconciliation stands (the engine's ProviderInbox).
type SyncStore interface {
	// ClaimSeatSyncs leases the seats due at now; FinishSeatSync records a run that started at
	// now with what it found, and lets go of the lease.
	ClaimSeatSyncs(ctx context.Context, now time.Time, interval, lease time.Duration, limit int) ([]outreach.SeatSync, error)
	FinishSeatSync(ctx context.Context, now time.Time, next outreach.SeatSync, reports []outreach.LinkedInReport) (int, error)
	ReleaseSeatSync(ctx context.Context, accountID string) error
	RememberMembers(ctx context.Context, members []outreach.MemberHandle) error
	PruneWebhooks(ctx context.Context, before time.Time) (int, error)
}

// SyncConfig tunes the reconciliation. Zero values take the defaults in brackets.
type SyncConfig struct {
	// Interval is how often each seat is reconciled [15m].
	Interval time.Duration
	// Tick is how often the worker looks for seats due [1m, or Interval when shorter].
	Tick time.Duration
	// Lease bounds one seat's run [5m].
	Lease time.Duration
	// Overlap is how far before its watermark a run looks again, for facts Unipile lists late
	// [10m].
	Overlap time.Duration
	// KeepWebhooks is how long received webhook bodies are kept [720h].
	KeepWebhooks time.Duration
	Logger       *slog.Logger
	Now          func() time.Time
}

func (c *SyncConfig) setDefaults() {
	c.Interval = cmp.Or(c.Interval, 15*time.Minute)
	c.Tick = cmp.Or(c.Tick, min(time.Minute, c.Interval))
	c.Lease = cmp.Or(c.Lease, 5*time.Minute)
	c.Overlap = cmp.Or(c.Overlap, 10*time.Minute)
	c.KeepWebhooks = cmp.Or(c.KeepWebhooks, 30*24*time.Hour)
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Validate reports a configuration NewSync would refuse.
func (c SyncConfig) Validate() error {
	if c.Interval < 0 || c.Tick < 0 || c.Lease < 0 || c.Overlap < 0 || c.KeepWebhooks < 0 {
		return errors.New("unipile: sync durations must not be negative")
	}
	return nil
}

// NewSync builds the reconciliation over the provider and the service's store.
func NewSync(p *Provider, store SyncStore, cfg SyncConfig) (*Sync, error) {
	if p == nil || store == nil {
		return nil, errors.New("unipile: the sync needs the provider and a store")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	return &Sync{p: p, store: store, cfg: cfg}, nil
}

// Run reconciles the seats that are due every Tick until ctx ends.
func (s *Sync) Run(ctx context.Context) error {
	t := time.NewTicker(s.cfg.Tick)
	defer t.Stop()
	for {
		if _, err := s.RunOnce(ctx); err != nil && ctx.Err() == nil {
			s.cfg.Logger.Warn("unipile sync", "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// SyncStats counts what one RunOnce did.
type SyncStats struct {
	Seats, Failed, Reports int
}

// RunOnce reconciles every seat due now, one after the other, each at most once; a seat that
// fails keeps its watermark and is tried again at the next tick.
func (s *Sync) RunOnce(ctx context.Context) (SyncStats, error) {
	var st SyncStats
	if _, err := s.store.PruneWebhooks(ctx, s.cfg.Now().Add(-s.cfg.KeepWebhooks)); err != nil {
		return st, fmt.Errorf("prune webhooks: %w", err)
	}
	done := map[string]bool{}
	for {
		due, err := s.store.ClaimSeatSyncs(ctx, s.cfg.Now(), s.cfg.Interval, s.cfg.Lease, syncBatch)
		if err != nil || len(due) == 0 {
			return st, err
		}
		fresh := 0
		for _, seat := range due {
			if done[seat.AccountID] { // due again already: an interval shorter than a run
				if err := s.store.ReleaseSeatSync(ctx, seat.AccountID); err != nil {
					return st, err
				}
				continue
			}
			done[seat.AccountID] = true
			fresh++
			n, err := s.seat(ctx, seat)
			st.Seats++
			st.Reports += n
			if err == nil {
				continue
			}
			st.Failed++
			if ctx.Err() != nil {
				return st, ctx.Err()
			}
			s.cfg.Logger.Warn("unipile sync: seat", "account", seat.AccountID, "err", err)
			if err := s.store.ReleaseSeatSync(context.WithoutCancel(ctx), seat.AccountID); err != nil {
				return st, err
			}
		}
		if fresh == 0 || len(due) < syncBatch {
			return st, nil
		}
	}
}

// syncBatch is how many seats one claim leases.
const syncBatch = 10

// seat reconciles one seat and records what it found with its new watermark.
func (s *Sync) seat(ctx context.Context, st outreach.SeatSync) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Lease)
	defer cancel()
	start := s.cfg.Now()
	next := outreach.SeatSync{AccountID: st.AccountID, Since: st.Since, Pending: st.Pending}
	var reports []outreach.LinkedInReport
	status, err := s.accountStatus(ctx, st.AccountID)
	if err != nil {
		return 0, err
	}
	next.Status = status
	if st.Status != "" && status != st.Status {
		if rep, ok := statusReport(st.AccountID, status, start, statusKey(st.AccountID, status, fmt.Sprint("sync-", start.Unix()))); ok {
			reports = append(reports, rep)
		}
	}
	if status == string(SourceOK) {
		since := st.Since.Add(-s.cfg.Overlap)
		found, pending, err := s.acceptances(ctx, st, since)
		if err != nil {
			return 0, err
		}
		msgs, err := s.messages(ctx, st.AccountID, since)
		if err != nil {
			return 0, err
		}
		reports = append(append(reports, found...), msgs...)
		next.Since, next.Pending = start, pending
	}
	return s.store.FinishSeatSync(ctx, start, next, reports)
}

// accountStatus is the account's status as one word; DELETED when Unipile no longer has it.
func (s *Sync) accountStatus(ctx context.Context, accountID string) (string, error) {
	a, err := s.p.c.GetAccount(ctx, accountID)
	switch {
	case ClassOf(err) == ClassNotFound:
		return "DELETED", nil
	case err != nil:
		return "", err
	}
	return string(a.Status()), nil
}
