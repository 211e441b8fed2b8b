package engine

import (
	"context"
	"fmt"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// DisconnectSeat stops using a seat of orgID because a person asked (actor, "user:<id>"): the
// seat is disconnected at once, so the engine takes no action through it (its gate refuses, as
// for a seat LinkedIn dropped), and a provider's report that the account works again does not
// bring it back; ConnectSeat does. Nothing changes at the provider and nothing is deleted: the
// people it was working wait where they are. A seat that is already disconnected keeps its
// time and is marked as the person's.
func DisconnectSeat(ctx context.Context, q storage.Querier, orgID, accountID, actor string, now time.Time) (storage.LinkedInAccount, error) {
	if actor == "" {
		return storage.LinkedInAccount{}, outreach.Invalidf("disconnecting a seat needs the actor who asked")
	}
	a, err := storage.ScanLinkedInAccount(q.QueryRow(ctx, `UPDATE linkedin_accounts SET status = 'disconnected',
			disconnected_at = CASE WHEN status = 'disconnected' THEN coalesce(disconnected_at, $3) ELSE $3 END,
			disconnected_by = $4, cooldown_until = NULL, updated_at = now()
		WHERE id = $1 AND org_id = $2
		RETURNING `+storage.LinkedInAccountColumns, accountID, orgID, now, actor))
	if err != nil {
		return storage.LinkedInAccount{}, fmt.Errorf("disconnect seat: %w", storage.NotFound(err, "linkedin account "+accountID))
	}
	return a, nil
}
