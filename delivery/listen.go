package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// listen holds one dedicated connection that LISTENs for deliveries that became due now (sent by
// every process's store after a commit that wrote deliveries, and by resend and recover) and
// turns each notification into a wake-up of the dispatchers. It reconnects on failure; after a
// reconnect both dispatchers are woken, because notifications sent while it was away are lost.
func (h *Hub) listen(ctx context.Context) error {
	backoff := 100 * time.Millisecond
	for {
		err := h.listenOnce(ctx, func() { backoff = 100 * time.Millisecond })
		if ctx.Err() != nil {
			return ctx.Err()
		}
		wait := backoff
		if outage, w := h.health.check("listening for notifications", time.Now(), err); outage {
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
	started := time.Now()
	conn, err := pgx.ConnectConfig(ctx, h.store.connConfig())
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{NotifyDeliveries}.Sanitize()); err != nil {
		return fmt.Errorf("listen %s: %w", NotifyDeliveries, err)
	}
	h.health.ok(started)
	connected()
	for {
		h.wake(h.wakeFirst)()
		h.wake(h.wakeRetry)()
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
	}
}
