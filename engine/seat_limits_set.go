package engine

import (
	"context"
	"fmt"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// Changing a seat's caps: `admin account limits`, the application's LinkedIn accounts page.

// SeatLimitsChange sets some of a seat's caps; nil fields stay as they are.
type SeatLimitsChange struct {
	InvitesPerDay      *int
	InvitesPerWeek     *int
	MessagesPerDay     *int
	ProfileViewsPerDay *int
	MaxPending         *int
}

// maxSeatCap bounds any cap: far above anything LinkedIn allows, so a typo is refused.
const maxSeatCap = 100_000

// Validate refuses a cap below 0 (0 stops that kind of action) or above maxSeatCap.
func (c SeatLimitsChange) Validate() error {
	for _, f := range []struct {
		name string
		v    *int
	}{{"invites per day", c.InvitesPerDay}, {"invites per week", c.InvitesPerWeek}, {"messages per day", c.MessagesPerDay},
		{"profile views per day", c.ProfileViewsPerDay}, {"max pending", c.MaxPending}} {
		if f.v != nil && (*f.v < 0 || *f.v > maxSeatCap) {
			return outreach.Invalidf("%s must be between 0 and %d, got %d", f.name, maxSeatCap, *f.v)
		}
	}
	return nil
}

// SetSeatLimits changes caps of an organization's seat and returns its row (caps and use) at
// now.
func SetSeatLimits(ctx context.Context, q storage.Querier, orgID, accountID string, c SeatLimitsChange, now time.Time) (SeatRow, error) {
	if err := c.Validate(); err != nil {
		return SeatRow{}, err
	}
	tag, err := q.Exec(ctx, `UPDATE linkedin_accounts SET invites_per_day = coalesce($3, invites_per_day),
			invites_per_week = coalesce($4, invites_per_week), messages_per_day = coalesce($5, messages_per_day),
			profile_views_per_day = coalesce($6, profile_views_per_day), max_pending_invites = coalesce($7, max_pending_invites),
			updated_at = now()
		WHERE id = $1 AND org_id = $2`, accountID, orgID, c.InvitesPerDay, c.InvitesPerWeek, c.MessagesPerDay,
		c.ProfileViewsPerDay, c.MaxPending)
	if err != nil {
		return SeatRow{}, fmt.Errorf("set seat limits: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return SeatRow{}, outreach.NotFound("linkedin account %s", accountID)
	}
	g, err := readSeatGate(ctx, q, accountID, now, false)
	if err != nil {
		return SeatRow{}, err
	}
	return seatRow(g, now), nil
}
