package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// Sign-in links a provider made for seats-to-be (seat_links), and the provider's locks. Only a
// token's SHA-256 is kept: the token itself travels in the link and comes back in the
// provider's call-back.

// errNoLiveLink is a call-back for a link that is unknown, expired or used already.
var errNoLiveLink = outreach.NotFound("live sign-in link for this call-back")

// SaveSeatLink keeps a sign-in link under the SHA-256 of its token.
func (pi *ProviderInbox) SaveSeatLink(ctx context.Context, tokenHash []byte, l outreach.SeatLink) error {
	_, err := pi.st.Pool().Exec(ctx, `INSERT INTO seat_links (token_hash, provider, org_id, name, expires_at)
		VALUES ($1, $2, $3, $4, $5)`, tokenHash, pi.provider, l.OrgID, l.Name, l.ExpiresAt)
	if err != nil {
		return fmt.Errorf("save sign-in link: %w", err)
	}
	return nil
}

// LiveSeatLink reads the link whose token hashes to tokenHash, if it is neither used nor
// expired at now; outreach.ErrNotFound otherwise.
func (pi *ProviderInbox) LiveSeatLink(ctx context.Context, tokenHash []byte, now time.Time) (outreach.SeatLink, error) {
	var l outreach.SeatLink
	err := pi.st.Pool().QueryRow(ctx, `SELECT org_id, name, expires_at FROM seat_links
		WHERE token_hash = $1 AND provider = $2 AND used_at IS NULL AND expires_at > $3`,
		tokenHash, pi.provider, now).Scan(&l.OrgID, &l.Name, &l.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return l, errNoLiveLink
	}
	return l, err
}

// JoinSeat uses the live link whose token hashes to tokenHash and connects providerAccountID
// as its seat, in one transaction, and returns the seat's id; outreach.ErrNotFound, with
// nothing changed, when the link is unknown, expired or was used (a replayed call-back).
func (pi *ProviderInbox) JoinSeat(ctx context.Context, tokenHash []byte, providerAccountID string, now time.Time) (string, error) {
	var seat string
	err := pi.st.InTx(ctx, func(tx *storage.Tx) error {
		var orgID, name string
		err := tx.QueryRow(ctx, `UPDATE seat_links SET used_at = $3, provider_account_id = $4
			WHERE token_hash = $1 AND provider = $2 AND used_at IS NULL AND expires_at > $3
			RETURNING org_id, name`, tokenHash, pi.provider, now, providerAccountID).Scan(&orgID, &name)
		if errors.Is(err, pgx.ErrNoRows) {
			return errNoLiveLink
		}
		if err != nil {
			return err
		}
		acc, err := ConnectSeat(ctx, tx, orgID, name, providerAccountID)
		seat = acc.ID
		return err
	})
	return seat, err
}

// providerLockClass namespaces the session advisory locks Lock takes.
const providerLockClass = 0x707276 // "prv"

// Lock holds a session advisory lock named name on a connection of its own until unlock is
// called, waiting for another holder (another instance) to let go; no transaction stays open
// meanwhile, so the holder may call the provider under it.
func (pi *ProviderInbox) Lock(ctx context.Context, name string) (unlock func(), err error) {
	conn, err := pi.st.Pool().Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	key := pi.provider + ":" + name
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext($2))`, providerLockClass, key); err != nil {
		conn.Release()
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	return func() {
		_, err := conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1, hashtext($2))`, providerLockClass, key)
		if err != nil {
			// A connection that may still hold the lock must not go back to the pool.
			_ = conn.Conn().Close(context.Background())
		}
		conn.Release()
	}, nil
}
