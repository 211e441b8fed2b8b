package delivery

import (
	"context"
	"crypto/sha256"
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

// fanoutGroup is the outbox consumer group of the fan-out; every process joins it, and the
// offsets row lock lets one of them read a batch at a time.
const fanoutGroup = "fanout"

// newFanoutRouter builds the Watermill router whose one handler expands outbox events into
// deliveries. The subscriber keeps one transaction open per batch and hands messages out one at
// a time; the handler writes the deliveries inside that same transaction (wsql.TxFromContext),
// so they commit together with the consumer offset: an event is fanned out exactly once, and a
// crash before the commit simply replays the batch. The handler does no HTTP and, with the
// destination cache warm, two statements per batch (fanOut).
func (h *Hub) newFanoutRouter() (*message.Router, error) {
	logger := watermill.NewSlogLogger(h.log)
	sub, err := wsql.NewSubscriber(wsql.BeginnerFromPgx(h.store.Pool()), wsql.SubscriberConfig{
		ConsumerGroup:  fanoutGroup,
		SchemaAdapter:  storage.OutboxSchema(),
		OffsetsAdapter: storage.OutboxOffsets(),
		// A failed statement is rolled back to its savepoint (storage.InsertDeliveryBatch), so the
		// resend can succeed; the deadline is the backstop that ends a stuck batch.
		AckDeadline:    ptr(15 * time.Second),
		ResendInterval: 100 * time.Millisecond,
		BackoffManager: &wakeBackoff{wake: h.wakeOutbox, idle: h.cfg.IdleWake, retry: time.Second, log: logger},
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

// wakeBackoff replaces the subscriber's polling sleep: after an empty read it waits for an outbox
// notification (or idle, in case one was missed) instead of a fixed interval, so an event
// committed while the fan-out is idle is read at once.
type wakeBackoff struct {
	wake  <-chan struct{}
	idle  time.Duration
	retry time.Duration
	log   watermill.LoggerAdapter
}

func (b *wakeBackoff) HandleError(logger watermill.LoggerAdapter, noMsg bool, err error) time.Duration {
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			logger.Error("fan-out: reading the outbox failed", err, nil)
		}
		return b.retry
	}
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

// batchState remembers, for the subscriber transaction now open, which events of its batch were
// already expanded, so their own messages are no-ops. It is only ever touched by the handler,
// which the subscriber calls for one message at a time; the mutex makes that explicit.
type batchState struct {
	mu   sync.Mutex
	tx   pgx.Tx
	done map[string]bool
}

// fanOut turns an outbox message into deliveries. The first message of a subscriber batch
// expands the whole batch: it reads the batch's rows again in the same transaction
// (storage.OutboxWindow) and writes every event's deliveries in one statement, remembering the
// events it did; the later messages of the batch then only acknowledge. It stays exactly once:
// the deliveries commit with the batch's offset or not at all, and if the batch ends early (a
// shutdown), the events whose offsets were not acknowledged are read again and their deliveries
// already exist (the dedupe keys and the (event, destination) key make the second pass write
// nothing).
func (h *Hub) fanOut(msg *message.Message) error {
	ctx := msg.Context()
	wtx, ok := wsql.TxFromContext(ctx)
	if !ok {
		return errors.New("fan-out: message has no subscriber transaction")
	}
	ptx, ok := wtx.(*wsql.PgxTx)
	if !ok {
		return fmt.Errorf("fan-out: unexpected subscriber transaction %T", wtx)
	}
	b := &h.batch
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tx != ptx.Tx {
		b.tx, b.done = ptx.Tx, map[string]bool{}
	}
	if b.done[msg.UUID] {
		delete(b.done, msg.UUID)
		return nil
	}
	rows, err := storage.OutboxWindow(ctx, ptx.Tx, fanoutGroup)
	if err != nil {
		return err
	}
	found := false
	for _, r := range rows {
		if r.UUID == msg.UUID {
			found = true
			break
		}
	}
	if !found {
		// Not expected (the window is the subscriber's own query), but never lose the message.
		rows = []storage.OutboxRow{{UUID: msg.UUID, Payload: msg.Payload, EmittedAt: msg.Metadata.Get(storage.MetaEmittedAt)}}
	}
	if err := h.fanOutRows(ctx, ptx.Tx, rows); err != nil {
		return err
	}
	for _, r := range rows {
		if r.UUID != msg.UUID {
			b.done[r.UUID] = true
		}
	}
	return nil
}

// fanOutRows expands outbox rows into deliveries with one statement.
func (h *Hub) fanOutRows(ctx context.Context, tx pgx.Tx, rows []storage.OutboxRow) error {
	nds := make([]storage.NewDeliveries, 0, len(rows))
	poison := 0
	for _, r := range rows {
		// Most events of most organizations go nowhere: the outbox metadata names the
		// organization and kind, so such an event is passed over without decoding its payload.
		if r.OrgID != "" && r.Kind != "" {
			dests, err := h.destinationsOf(ctx, tx, r.OrgID)
			if err != nil {
				return err
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
		nd, err := h.newDeliveries(ctx, tx, ev, r.Payload, emitted)
		if err != nil {
			return err
		}
		if len(nd.IDs) > 0 {
			nds = append(nds, nd)
		}
	}
	if len(nds) > 0 {
		created, collapsed, err := storage.InsertDeliveryBatch(ctx, tx, nds)
		if err != nil {
			return err
		}
		h.metrics.created.Add(float64(created))
		h.metrics.collapsed.Add(float64(collapsed))
	}
	h.metrics.poison.Add(float64(poison))
	return nil
}

func (h *Hub) destinationsOf(ctx context.Context, tx pgx.Tx, orgID string) ([]storage.FanoutDestination, error) {
	return h.cache.get(orgID, func() ([]storage.FanoutDestination, error) {
		return storage.FanoutDestinations(ctx, tx, orgID)
	})
}

func anyMatches(kind outreach.EventKind, dests []storage.FanoutDestination) bool {
	for _, d := range dests {
		if kind.Matches(d.Events) {
			return true
		}
	}
	return false
}

// newDeliveries is one event's deliveries: one per enabled destination that selected its kind.
// The payload identity (three JSON passes) is computed only once a destination matches.
func (h *Hub) newDeliveries(ctx context.Context, tx pgx.Tx, ev outreach.Event, payload []byte, emitted time.Time) (storage.NewDeliveries, error) {
	nd := storage.NewDeliveries{
		EventID: ev.ID, EventKind: string(ev.Kind), OrgID: ev.OrgID, Payload: payload, EmittedAt: emitted,
		MaxAttempts: len(h.cfg.RetrySchedule), DedupeWindow: h.cfg.DedupeWindow,
	}
	dests, err := h.destinationsOf(ctx, tx, ev.OrgID)
	if err != nil {
		return nd, err
	}
	var identity []byte
	for _, d := range dests {
		if !ev.Kind.Matches(d.Events) {
			continue
		}
		if identity == nil {
			if identity, err = payloadIdentity(ev); err != nil {
				return nd, err
			}
		}
		nd.IDs = append(nd.IDs, outreach.NewID("dlv"))
		nd.Destinations = append(nd.Destinations, d.ID)
		nd.DedupeKeys = append(nd.DedupeKeys, dedupeKey(d.ID, identity))
	}
	return nd, nil
}

// payloadIdentity is what makes two payloads "identical" for §6.4's Duplicates: the event kind,
// the organization and `data`, canonically encoded (sorted keys). The timestamp is left out on
// purpose: the same fact emitted twice (a retried job, a double click) carries two timestamps,
// and collapsing exactly those is the point. Distinct facts differ in data (ids, texts, times
// inside blocks), so they never collapse.
func payloadIdentity(ev outreach.Event) ([]byte, error) {
	raw, err := json.Marshal(ev.Data)
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
	dests []storage.FanoutDestination
}

func newDestinationCache(ttl time.Duration) *destinationCache {
	return &destinationCache{ttl: ttl, m: map[string]cachedDestinations{}}
}

func (c *destinationCache) get(orgID string, load func() ([]storage.FanoutDestination, error)) ([]storage.FanoutDestination, error) {
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
