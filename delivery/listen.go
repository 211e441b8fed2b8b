package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/storage"
)

// Notification channels the hub listens on.
const (
	channelOutbox = storage.OutboxChannel // sent by storage after a commit that wrote events (migration 013)
)

// listen holds one dedicated connection that LISTENs for outbox commits, due deliveries and
// destination changes, and turns each notification into a wake-up. It reconnects on failure;
// after a reconnect everything is woken and the destination cache dropped, because
// notifications sent while it was away are lost.
func (h *Hub) listen(ctx context.Context) error {
	backoff := 100 * time.Millisecond
	for {
		err := h.listenOnce(ctx, func() { backoff = 100 * time.Millisecond })
		if ctx.Err() != nil {
			return ctx.Err()
		}
		wait := backoff
		if outage, w := h.health.check("listening for notifications", err); outage {
			wait = w // the database is away: one log line for the whole outage (dbHealth)
		} else {
			h.log.Warn("delivery listener lost its connection; reconnecting", "err", err, "in", backoff)
			backoff = min(2*backoff, 5*time.Second)
		}
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
	}
}

// listenOnce connects, listens and turns notifications into wake-ups until the connection
// fails; connected runs once it listens.
func (h *Hub) listenOnce(ctx context.Context, connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, h.store.Pool().Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, ch := range []string{channelOutbox, storage.NotifyDeliveries, storage.DestinationsChannel} {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return fmt.Errorf("listen %s: %w", ch, err)
		}
	}
	h.health.ok()
	connected()
	h.cache.dropAll()
	h.wakeAll()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		switch n.Channel {
		case channelOutbox:
			h.wake(h.wakeOutbox)()
		case storage.NotifyDeliveries:
			h.wake(h.wakeFirst)()
			h.wake(h.wakeRetry)()
		case storage.DestinationsChannel:
			h.cache.drop(n.Payload)
		}
	}
}

func (h *Hub) wakeAll() {
	h.wake(h.wakeOutbox)()
	h.wake(h.wakeFirst)()
	h.wake(h.wakeRetry)()
}
