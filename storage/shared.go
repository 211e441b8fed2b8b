package storage

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"outreachd/outreach"
)

// What the features that own their SQL outside this package (the outreach engine, the
// application's imports) share with it: a query written over Querier runs on the pool or inside a
// transaction alike, rows missing read as outreach.ErrNotFound, savepoints keep the outbox of the
// transaction they are in, and a campaign is locked for leads as a push locks it.

// Querier is what pgxpool.Pool, pgx.Tx and Tx share.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// NotFound turns pgx.ErrNoRows into outreach.ErrNotFound naming what, so callers decide with
// errors.Is; any other error is returned as it is.
func NotFound(err error, what string) error { return notFound(err, what) }

// CampaignStats is a campaign's lifetime totals as of tx, what the events tied to it carry.
func CampaignStats(ctx context.Context, tx *Tx, orgID, campaignID string) (outreach.CampaignStats, error) {
	return campaignStats(ctx, tx, orgID, campaignID)
}

// LockOpenCampaign holds the campaign FOR SHARE as a push does, so a status change to completed
// or archived waits for tx: one of another organization or gone is outreach.ErrNotFound, one that
// can no longer take leads outreach.ErrCampaignClosed.
func LockOpenCampaign(ctx context.Context, tx *Tx, orgID, campaignID string) error {
	_, _, err := lockOpenCampaign(ctx, tx, orgID, campaignID)
	return err
}

// Savepoint runs fn in a savepoint of tx: when fn fails only its work is rolled back (and the
// events it emitted dropped), and tx stays usable, e.g. to record the failure.
func (tx *Tx) Savepoint(ctx context.Context, fn func(*Tx) error) error {
	sp, err := tx.Tx.Begin(ctx)
	if err != nil {
		return err
	}
	inner := &Tx{Tx: sp}
	if err := fn(inner); err != nil {
		_ = sp.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if err := sp.Commit(ctx); err != nil {
		return err
	}
	tx.events = append(tx.events, inner.events...)
	return nil
}
