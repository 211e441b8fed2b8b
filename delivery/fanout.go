package delivery

import (
	"context"
	"crypto/sha256"
	stdsql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	wmetrics "github.com/ThreeDotsLabs/watermill/components/metrics"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// newFanoutRouter builds the Watermill router whose one handler expands outbox events into
// deliveries. The subscriber keeps one transaction open per batch and hands messages out one at
// a time; the handler writes the deliveries inside that same transaction (wsql.TxFromContext),
// so they commit together with the consumer offset: an event is fanned out exactly once, and a
// crash before the commit simply replays the batch. The handler does no HTTP and, with the
// destination cache warm, one statement per batch (fanOut).
func (h *Hub) newFanoutRouter() (*message.Router, error) {
	logger := outageLogger{LoggerAdapter: watermill.NewSlogLogger(h.log), health: h.health}
	// The batches commit asynchronously (storage.Store.AsyncPool): a batch lost in a database
	// crash is simply fanned out again, and its deliveries get the same ids (outreach.DerivedID).
	beginner := hookedBeginner{Beginner: wsql.BeginnerFromPgx(h.store.AsyncPool()), onBegin: h.batchBegun, onEnd: h.batchEnded}
	sub, err := wsql.NewSubscriber(beginner, wsql.SubscriberConfig{
		ConsumerGroup:  fanoutGroup,
		SchemaAdapter:  capturingSchema{SchemaAdapter: storage.OutboxSchema(), capture: h.captureRow},
		OffsetsAdapter: storage.OutboxOffsets(),
		// A failed statement is rolled back to its savepoint (storage.InsertDeliveryBatch), so the
		// resend can succeed; the deadline is the backstop that ends a stuck batch.
		AckDeadline:    ptr(15 * time.Second),
		ResendInterval: 100 * time.Millisecond,
		BackoffManager: &wakeBackoff{wake: h.wakeOutbox, idle: h.cfg.IdleWake, retry: time.Second, health: h.health},
	}, logger)
	if err != nil {
		return nil, fmt.Errorf("fan-out subscriber: %w", err)
	}
	router, err := message.NewRouter(message.RouterConfig{CloseTimeout: 10 * time.Second}, logger)
	if err != nil {
		return nil, err
	}
	wmetrics.NewPrometheusMetricsBuilder(h.reg, "outreachd", "watermill").AddPrometheusRouterMetrics(router)
	router.AddConsumerHandler("delivery_fanout", storage.EventsTopic, sub, h.fanOut)
	return router, nil
}

func ptr[T any](v T) *T { return &v }

// fanoutGroup is the outbox consumer group of the fan-out; every process joins it, and the
// offsets row lock lets one of them read a batch at a time.
const fanoutGroup = "fanout"

// capturingSchema is the outbox schema, passing every row the subscriber reads for its batch to
// capture before the batch's first message is handled: the fan-out expands the whole batch at
// once without reading it again.
type capturingSchema struct {
	wsql.SchemaAdapter
	capture func(wsql.Row)
}

func (s capturingSchema) UnmarshalMessage(p wsql.UnmarshalMessageParams) (wsql.Row, error) {
	r, err := s.SchemaAdapter.UnmarshalMessage(p)
	if err == nil {
		s.capture(r)
	}
	return r, err
}

// captureRow keeps a row of the batch being read (in the transaction begun last).
func (h *Hub) captureRow(r wsql.Row) {
	b := &h.batch
	b.mu.Lock()
	b.rows = append(b.rows, storage.OutboxRowOf(r))
	b.mu.Unlock()
}

// batchBegun starts a new batch's state: the subscriber begins its transaction before reading.
func (h *Hub) batchBegun(tx pgx.Tx) {
	b := &h.batch
	b.mu.Lock()
	stale := b.leased // only if a transaction ended unseen, which the subscriber never does
	b.tx, b.done, b.leased, b.rows = tx, map[string]bool{}, nil, nil
	b.mu.Unlock()
	for _, c := range stale {
		h.sched.unreserve(c.Target.ID)
	}
}

// hookedBeginner begins the subscriber's batch transactions so that their start and end are
// seen: the subscriber commits a batch after its last message is acknowledged and does not report
// whether the commit worked, and the fan-out must know, to start the deliveries it leased in that
// batch only once they exist (batchEnded).
type hookedBeginner struct {
	wsql.Beginner
	onBegin func(tx pgx.Tx)
	onEnd   func(tx pgx.Tx, committed bool)
}

func (b hookedBeginner) BeginTx(ctx context.Context, opts *stdsql.TxOptions) (wsql.Tx, error) {
	t, err := b.Beginner.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	ptx, ok := t.(*wsql.PgxTx)
	if !ok {
		_ = t.Rollback()
		return nil, fmt.Errorf("fan-out: unexpected subscriber transaction %T", t)
	}
	b.onBegin(ptx.Tx)
	return &hookedTx{PgxTx: ptx, onEnd: b.onEnd}, nil
}

// hookedTx is a subscriber transaction that reports how it ended.
type hookedTx struct {
	*wsql.PgxTx
	onEnd func(tx pgx.Tx, committed bool)
}

func (t *hookedTx) Commit() error {
	err := t.PgxTx.Commit()
	// A commit whose outcome is unknown (the connection broke) counts as not committed: the
	// leased deliveries, if they were written, come due when their lease ends.
	t.onEnd(t.PgxTx.Tx, err == nil)
	return err
}

func (t *hookedTx) Rollback() error {
	err := t.PgxTx.Rollback()
	t.onEnd(t.PgxTx.Tx, false)
	return err
}

// wakeBackoff replaces the subscriber's polling sleep: after an empty read it waits for an outbox
// notification (or idle, in case one was missed) instead of a fixed interval, so an event
// committed while the fan-out is idle is read at once.
// While the database is away, reading fails at every poll: that is reported to dbHealth (one
// log line per outage) and retried with its exponential backoff.
type wakeBackoff struct {
	wake   <-chan struct{}
	idle   time.Duration
	retry  time.Duration
	health *dbHealth
}

func (b *wakeBackoff) HandleError(logger watermill.LoggerAdapter, noMsg bool, err error) time.Duration {
	if err != nil {
		if outage, wait := b.health.check("reading the outbox", err); outage {
			return wait
		}
		if !errors.Is(err, context.Canceled) {
			logger.Error("fan-out: reading the outbox failed", err, nil)
		}
		return b.retry
	}
	b.health.ok()
	if !noMsg {
		return 0
	}
	t := time.NewTimer(b.idle)
	defer t.Stop()
	select {
	case <-b.wake:
	case <-t.C:
	}
	return 0
}

// batchState is the subscriber transaction now open: the rows its batch read, which of its
// events were already expanded (so their own messages are no-ops), and what it leased. The
// subscriber reads, then hands out messages one at a time, from one goroutine; the mutex makes
// the hand-over between it and the handler explicit.
type batchState struct {
	mu   sync.Mutex
	tx   pgx.Tx
	rows []storage.OutboxRow
	done map[string]bool
	// leased are the deliveries this transaction wrote leased to this process, to start when it
	// commits; their room in the dispatcher is reserved until then.
	leased []storage.ClaimedDelivery
}

// batchEnded runs when a subscriber transaction ends: the deliveries it leased at birth start if
// it committed, and their reservations are given back if it did not.
func (h *Hub) batchEnded(tx pgx.Tx, committed bool) {
	b := &h.batch
	b.mu.Lock()
	if b.tx != tx {
		b.mu.Unlock()
		return
	}
	leased := b.leased
	b.tx, b.done, b.leased, b.rows = nil, nil, nil, nil
	b.mu.Unlock()
	if len(leased) == 0 {
		return
	}
	if !committed {
		for _, c := range leased {
			h.sched.unreserve(c.Target.ID)
		}
		return
	}
	h.startLeased(leased)
}

// fanOut turns an outbox message into deliveries. The first message of a subscriber batch
// expands the whole batch: the rows the subscriber read for it (captureRow) get their deliveries
// in one statement, and the events done are remembered; the later messages of the batch then
// only acknowledge. It stays exactly once: the deliveries commit with the batch's acknowledgement
// or not at all, and if the batch ends early (a shutdown), the events not acknowledged are read
// again and their deliveries already exist (the dedupe keys and the (event, destination) key
// make the second pass write nothing).
func (h *Hub) fanOut(msg *message.Message) error {
	ctx := msg.Context()
	wtx, ok := wsql.TxFromContext(ctx)
	if !ok {
		return errors.New("fan-out: message has no subscriber transaction")
	}
	htx, ok := wtx.(*hookedTx)
	if !ok {
		return fmt.Errorf("fan-out: unexpected subscriber transaction %T", wtx)
	}
	ptx := htx.PgxTx
	b := &h.batch
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tx != ptx.Tx {
		// Not expected: batchBegun saw every transaction of this subscriber.
		b.tx, b.done, b.leased, b.rows = ptx.Tx, map[string]bool{}, nil, nil
	}
	if b.done[msg.UUID] {
		delete(b.done, msg.UUID)
		return nil
	}
	rows := b.rows
	found := false
	for _, r := range rows {
		if r.UUID == msg.UUID {
			found = true
			break
		}
	}
	if !found {
		// Not expected (the rows are the subscriber's own batch), but never lose the message.
		rows = []storage.OutboxRow{{UUID: msg.UUID, Payload: msg.Payload, EmittedAt: msg.Metadata.Get(storage.MetaEmittedAt)}}
	}
	// Events this process handed off right after their commit (handoff.go) are only acknowledged.
	todo := h.handoff.settle(rows, settleWait)
	leased, err := h.fanOutRows(ctx, ptx.Tx, todo)
	if err != nil {
		return err
	}
	h.metrics.events.WithLabelValues(pathOutbox).Add(float64(len(todo)))
	b.leased = append(b.leased, leased...)
	for _, r := range rows {
		if r.UUID != msg.UUID {
			b.done[r.UUID] = true
		}
	}
	return nil
}

// fanOutRows expands outbox rows into deliveries with one statement. The deliveries this
// process's dispatcher has room for are written leased to it and returned, with everything their
// send needs, to be started once tx commits: the common path costs no claim. The rest are due
// now, for whichever process claims them.
func (h *Hub) fanOutRows(ctx context.Context, tx pgx.Tx, rows []storage.OutboxRow) (leased []storage.ClaimedDelivery, err error) {
	nds := make([]storage.NewDeliveries, 0, len(rows))
	var targets []map[string]storage.DeliveryTarget // per nds element: the reserved destinations
	reserved := 0
	defer func() {
		if err == nil {
			return
		}
		for _, t := range targets {
			for id := range t {
				h.sched.unreserve(id)
			}
		}
	}()
	poison := 0
	for _, r := range rows {
		// Most events of most organizations go nowhere: the outbox metadata names the
		// organization and kind, so such an event is passed over without decoding its payload.
		if r.OrgID != "" && r.Kind != "" {
			dests, err := h.destinationsOf(ctx, tx, r.OrgID)
			if err != nil {
				return nil, err
			}
			if !anyMatches(outreach.EventKind(r.Kind), dests) {
				continue
			}
		}
		var ev outreach.Event
		if err := json.Unmarshal(r.Payload, &ev); err != nil || ev.OrgID == "" || !ev.Kind.Valid() {
			// The outbox is written only through storage, which validates every event; an
			// unreadable row can only be corruption, and retrying it forever would stop every
			// organization.
			poison++
			h.log.Error("fan-out: skipping an unreadable outbox message", "uuid", r.UUID, "err", err)
			continue
		}
		ev.ID = r.UUID
		emitted, err := time.Parse(time.RFC3339Nano, r.EmittedAt)
		if err != nil {
			emitted = time.Now()
		}
		nd, res, err := h.newDeliveries(ctx, tx, ev, r.Payload, emitted)
		if err != nil {
			return nil, err
		}
		if len(nd.IDs) > 0 {
			nds = append(nds, nd)
			targets = append(targets, res)
			reserved += len(res)
		}
	}
	if len(nds) > 0 {
		res, err := storage.InsertDeliveryBatch(ctx, tx, nds, h.cfg.Lease)
		if err != nil {
			return nil, err
		}
		h.metrics.created.Add(float64(res.Created))
		h.metrics.collapsed.Add(float64(res.Collapsed))
		if reserved > 0 {
			leased = make([]storage.ClaimedDelivery, 0, reserved)
		}
		for i, nd := range nds {
			for j, id := range nd.IDs {
				if !nd.Leased[j] {
					continue
				}
				t := targets[i][nd.Destinations[j]]
				if !res.Leased[id] {
					h.sched.unreserve(t.ID) // collapsed, or this event was fanned out before
					continue
				}
				leased = append(leased, storage.ClaimedDelivery{
					ID: id, OrgID: nd.OrgID, EventID: nd.EventID, EventKind: nd.EventKind, Payload: nd.Payload,
					MaxAttempts: nd.MaxAttempts, EmittedAt: nd.EmittedAt, Trigger: storage.TriggerScheduled, Target: t,
				})
			}
		}
	}
	h.metrics.poison.Add(float64(poison))
	return leased, nil
}

// startLeased starts the deliveries a committed fan-out batch leased to this process.
func (h *Hub) startLeased(cs []storage.ClaimedDelivery) {
	start, left := h.sched.addReserved(cs)
	for _, it := range start {
		go h.deliver(h.runCtx, it)
	}
	if len(left) > 0 {
		// Stopping: hand them back so they are due at once rather than after their lease.
		ids := make([]string, len(left))
		for i, c := range left {
			ids[i] = c.ID
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.store.ReleaseClaims(ctx, ids); err != nil {
			h.log.Warn("delivery: releasing leased deliveries", "n", len(ids), "err", err)
		}
	}
}

func (h *Hub) destinationsOf(ctx context.Context, tx pgx.Tx, orgID string) ([]storage.DeliveryTarget, error) {
	return h.cache.get(orgID, func() ([]storage.DeliveryTarget, error) {
		return storage.FanoutDestinations(ctx, tx, orgID)
	})
}

func anyMatches(kind outreach.EventKind, dests []storage.DeliveryTarget) bool {
	for _, d := range dests {
		if kind.Matches(d.Events) {
			return true
		}
	}
	return false
}

// newDeliveries is one event's deliveries: one per enabled destination that selected its kind,
// leased at birth where the dispatcher had room (reserved: those destinations).
// The payload identity (three JSON passes) is computed only once a destination matches.
func (h *Hub) newDeliveries(ctx context.Context, tx pgx.Tx, ev outreach.Event, payload []byte, emitted time.Time) (nd storage.NewDeliveries, reserved map[string]storage.DeliveryTarget, err error) {
	nd = storage.NewDeliveries{
		EventID: ev.ID, EventKind: string(ev.Kind), OrgID: ev.OrgID, Payload: payload, EmittedAt: emitted,
		MaxAttempts: len(h.cfg.RetrySchedule), DedupeWindow: h.cfg.DedupeWindow,
	}
	dests, err := h.destinationsOf(ctx, tx, ev.OrgID)
	if err != nil {
		return nd, nil, err
	}
	var identity []byte
	for _, d := range dests {
		if !ev.Kind.Matches(d.Events) {
			continue
		}
		if identity == nil {
			if identity, err = payloadIdentity(ev); err != nil {
				for id := range reserved {
					h.sched.unreserve(id)
				}
				return nd, nil, err
			}
		}
		lease := h.sched.reserve(d.ID)
		if lease {
			if reserved == nil {
				reserved = map[string]storage.DeliveryTarget{}
			}
			reserved[d.ID] = d
		}
		// One id per (event, destination), whoever writes it: a fan-out lost in a database crash
		// (its batches commit asynchronously) writes the same ids again, so a receiver sees the
		// same webhook-id for a repeated send.
		nd.IDs = append(nd.IDs, outreach.DerivedID("dlv", ev.ID, d.ID))
		nd.Destinations = append(nd.Destinations, d.ID)
		nd.DedupeKeys = append(nd.DedupeKeys, dedupeKey(d.ID, identity))
		nd.Leased = append(nd.Leased, lease)
	}
	return nd, reserved, nil
}

// payloadIdentity is what makes two payloads "identical" for the 24-hour duplicate rule: the event kind,
// the organization and `data`, canonically encoded (sorted keys). The timestamp is left out on
// purpose: the same fact emitted twice (a retried job, a double click) carries two timestamps,
// and collapsing exactly those is the point. Distinct facts differ in data (ids, texts, times
// inside blocks), so they never collapse. The campaign block's stats are left out for the same
// reason: they are a snapshot of the campaign when the event was emitted, not part of the fact.
func payloadIdentity(ev outreach.Event) ([]byte, error) {
	data := ev.Data
	if c := data.Campaign; c != nil && c.Stats != nil {
		bare := *c
		bare.Stats = nil
		data.Campaign = &bare
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	canon, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return nil, err
	}
	return append([]byte(string(ev.Kind)+"\x00"+ev.OrgID+"\x00"), canon...), nil
}

// dedupeKey = sha256(destination id, NUL, payload identity).
func dedupeKey(destinationID string, identity []byte) []byte {
	s := sha256.New()
	s.Write([]byte(destinationID))
	s.Write([]byte{0})
	s.Write(identity)
	return s.Sum(nil)
}

// destinationCache keeps each organization's enabled destinations for a short while, so the
// fan-out reads them once per organization rather than once per event. A change notification
// drops the organization at once; the TTL bounds staleness if a notification is missed.
type destinationCache struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]cachedDestinations
	gen uint64 // bumped by every drop, so a load that raced a drop is not kept
}

type cachedDestinations struct {
	at    time.Time
	dests []storage.DeliveryTarget
}

func newDestinationCache(ttl time.Duration) *destinationCache {
	return &destinationCache{ttl: ttl, m: map[string]cachedDestinations{}}
}

func (c *destinationCache) get(orgID string, load func() ([]storage.DeliveryTarget, error)) ([]storage.DeliveryTarget, error) {
	c.mu.Lock()
	e, ok := c.m[orgID]
	gen := c.gen
	c.mu.Unlock()
	if ok && time.Since(e.at) < c.ttl {
		return e.dests, nil
	}
	dests, err := load()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.gen == gen {
		c.m[orgID] = cachedDestinations{at: time.Now(), dests: dests}
	}
	c.mu.Unlock()
	return dests, nil
}

func (c *destinationCache) drop(orgID string) {
	c.mu.Lock()
	delete(c.m, orgID)
	c.gen++
	c.mu.Unlock()
}

func (c *destinationCache) dropAll() {
	c.mu.Lock()
	clear(c.m)
	c.gen++
	c.mu.Unlock()
}
