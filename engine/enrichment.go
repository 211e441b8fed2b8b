package engine

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// Enricher looks up what is publicly known about a person. A profile the provider does not
// know at all is Person{Found: false} with a nil error; an error means "try again later".
type Enricher interface {
	Enrich(ctx context.Context, req outreach.LookupRequest) (outreach.PersonLookup, error)
}

// EnricherFunc adapts a function to Enricher, so cmd can plug in an adapter without a type.
type EnricherFunc func(ctx context.Context, req outreach.LookupRequest) (outreach.PersonLookup, error)

// Enrich calls f.
func (f EnricherFunc) Enrich(ctx context.Context, req outreach.LookupRequest) (outreach.PersonLookup, error) {
	return f(ctx, req)
}

// EnrichmentConfig tunes the enrichment worker.
type EnrichmentConfig struct {
	// PollInterval is how long the worker sleeps when the queue is empty (default 250ms), so a
	// pushed lead is picked up well within a second.
	PollInterval time.Duration
	// BatchSize is how many leads one transaction claims (default 50).
	BatchSize int
	// Concurrency bounds the enricher calls in flight within a batch (default 8).
	Concurrency int
	// CallTimeout bounds one enricher call (default 20s).
	CallTimeout time.Duration
	// MaxAttempts is how many failed calls a lead gets before it is decided without enrichment
	// (enrichment_status failed); default 5.
	MaxAttempts int
	// RetryBackoff is the wait after the first failure, doubled after each (default 30s).
	RetryBackoff time.Duration
}

func (c *EnrichmentConfig) setDefaults() {
	c.PollInterval = cmp.Or(c.PollInterval, 250*time.Millisecond)
	c.BatchSize = cmp.Or(c.BatchSize, 50)
	c.Concurrency = cmp.Or(c.Concurrency, 8)
	c.CallTimeout = cmp.Or(c.CallTimeout, 20*time.Second)
	c.MaxAttempts = cmp.Or(c.MaxAttempts, 5)
	c.RetryBackoff = cmp.Or(c.RetryBackoff, 30*time.Second)
}

// Validate refuses settings that cannot work.
func (c EnrichmentConfig) Validate() error {
	if c.PollInterval < 0 || c.BatchSize < 1 || c.Concurrency < 1 || c.CallTimeout <= 0 || c.MaxAttempts < 1 || c.RetryBackoff < 0 {
		return errors.New("enrichment: poll interval and backoff must not be negative; batch size, concurrency, timeout and attempts must be positive")
	}
	return nil
}

// EnrichmentWorker resolves pushed leads: it enriches each pending lead, judges it against its
// campaign's filters with nothing left to learn (final), and records enrichment_status,
// filter_verdict and lead_accepted or lead_rejected in one transaction per batch. Several
// workers, in one process or many, share the queue (storage claims with SKIP LOCKED).
type EnrichmentWorker struct {
	store    LeadQueue
	enricher LeadEnricher
	log      *slog.Logger
	cfg      EnrichmentConfig
	now      func() time.Time
}

// LeadEnricher looks a pushed lead up knowing whose lead it is: the engine's EnrichLead goes
// through a LinkedIn seat of the lead's organization. An error that is a *SeatWait postpones
// the lead without counting a failed attempt.
type LeadEnricher interface {
	EnrichLead(ctx context.Context, l storage.PendingLead) (outreach.PersonLookup, error)
}

// LeadQueue is the queue of pushed leads awaiting enrichment (*storage.Store is one): it claims
// up to limit of them, hands them to resolve with no transaction open, and records what resolve
// decided, returning how many it claimed.
type LeadQueue interface {
	EnrichPendingLeads(ctx context.Context, limit int, resolve func(context.Context, []storage.PendingLead) ([]storage.LeadResolution, error)) (int, error)
}

// NewEnrichmentWorker builds the worker on an enricher that is given what the lead says of the
// person, each call bounded by CallTimeout.
func NewEnrichmentWorker(store LeadQueue, enricher Enricher, log *slog.Logger, cfg EnrichmentConfig) (*EnrichmentWorker, error) {
	if enricher == nil {
		return nil, errors.New("enrichment: store and enricher are required")
	}
	cfg.setDefaults()
	return NewLeadEnrichmentWorker(store, byRequest{enricher: enricher, timeout: cfg.CallTimeout}, log, cfg)
}

// NewLeadEnrichmentWorker builds the worker on an enricher that takes the whole lead (the
// engine, looking people up through the organization's LinkedIn seats).
func NewLeadEnrichmentWorker(store LeadQueue, enricher LeadEnricher, log *slog.Logger, cfg EnrichmentConfig) (*EnrichmentWorker, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if store == nil || enricher == nil {
		return nil, errors.New("enrichment: store and enricher are required")
	}
	if log == nil {
		log = slog.Default()
	}
	return &EnrichmentWorker{store: store, enricher: enricher, log: log, cfg: cfg, now: time.Now}, nil
}

// byRequest is an Enricher given what a lead says of the person, each call bounded by timeout.
type byRequest struct {
	enricher Enricher
	timeout  time.Duration
}

func (b byRequest) EnrichLead(ctx context.Context, l storage.PendingLead) (outreach.PersonLookup, error) {
	callCtx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	return b.enricher.Enrich(callCtx, requestFor(l.Prospect))
}

// Run works the queue until ctx is cancelled. A full batch is followed at once by the next;
// an empty or partial one by a PollInterval pause.
func (w *EnrichmentWorker) Run(ctx context.Context) error {
	for {
		n, err := w.RunOnce(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			w.log.Warn("enrichment batch failed", "err", err)
		}
		if err == nil && n == w.cfg.BatchSize {
			continue
		}
		t := time.NewTimer(w.cfg.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// RunOnce resolves one batch and returns how many leads it claimed.
func (w *EnrichmentWorker) RunOnce(ctx context.Context) (int, error) {
	return w.store.EnrichPendingLeads(ctx, w.cfg.BatchSize, w.resolve)
}

func (w *EnrichmentWorker) resolve(ctx context.Context, leads []storage.PendingLead) ([]storage.LeadResolution, error) {
	out := make([]storage.LeadResolution, len(leads))
	sem := make(chan struct{}, w.cfg.Concurrency)
	var wg sync.WaitGroup
	for i := range leads {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = w.resolveOne(ctx, leads[i])
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err // roll back: the leads go back to the queue untouched
	}
	return out, nil
}

func (w *EnrichmentWorker) resolveOne(ctx context.Context, l storage.PendingLead) storage.LeadResolution {
	if l.FiltersErr != nil {
		w.log.Error("campaign filters unreadable; lead left pending", "campaign", l.CampaignID, "lead", l.ID, "err", l.FiltersErr)
		return w.retry(l)
	}
	found, err := w.enricher.EnrichLead(ctx, l)
	res := storage.LeadResolution{ID: l.ID, Person: l.Person}
	var wait *SeatWait
	switch {
	case errors.As(err, &wait):
		return storage.LeadResolution{ID: l.ID, Retry: true, RetryAt: w.now().Add(wait.After), Wait: true}
	case err != nil && ctx.Err() != nil:
		return w.retry(l)
	case err != nil && l.Attempts+1 < w.cfg.MaxAttempts:
		w.log.Warn("enrichment call failed; will retry", "lead", l.ID, "attempt", l.Attempts+1, "err", err)
		return w.retry(l)
	case err != nil:
		w.log.Warn("enrichment gave up; deciding on what is known", "lead", l.ID, "attempts", l.Attempts+1, "err", err)
		res.EnrichmentStatus = outreach.EnrichmentFailed
	case !found.Found:
		res.EnrichmentStatus = outreach.EnrichmentNotFound
	default:
		res.EnrichmentStatus = outreach.EnrichmentDone
		res.Person = l.Person.Enriched(found.Person)
	}
	res.Verdict = l.Filters.Evaluate(res.Person.Facts(), true)
	return res
}

func (w *EnrichmentWorker) retry(l storage.PendingLead) storage.LeadResolution {
	wait := w.cfg.RetryBackoff << min(l.Attempts, 10)
	return storage.LeadResolution{ID: l.ID, Retry: true, RetryAt: w.now().Add(wait)}
}

func requestFor(p storage.Prospect) outreach.LookupRequest {
	s := func(v *string) string {
		if v == nil {
			return ""
		}
		return *v
	}
	return outreach.LookupRequest{ProfileKey: p.LeadKey, PublicIdentifier: s(p.PublicIdentifier), Name: p.Name,
		Company: s(p.Company), Title: s(p.Role), Location: s(p.Location)}
}
