package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// A seat's caps and what it used of them, as operators see them: `admin account list` and
// `admin account limits`, and the application's LinkedIn accounts page.

// SeatCaps is one seat's caps and use at an engine time.
type SeatCaps struct {
	AccountID string `json:"account_id"`
	// DayZone is the time zone the seat's day counts in (seat_limits.go).
	DayZone string     `json:"day_zone"`
	Limits  SeatLimits `json:"limits"`
	Used    SeatUse    `json:"used"`
	// NextActionAt is the earliest moment the seat may act again (its pace), when later than now.
	NextActionAt *string `json:"next_action_at"`
}

func capsOf(g seatGate, now time.Time) SeatCaps {
	c := SeatCaps{AccountID: g.acc.ID, DayZone: g.day.zone, Limits: g.limits, Used: g.use}
	if g.next != nil && g.next.After(now) {
		at := outreach.FormatTime(*g.next)
		c.NextActionAt = &at
	}
	return c
}

// SeatUsage lists the caps and use of every seat of an organization at now (engine time), in
// the order seats were connected.
func SeatUsage(ctx context.Context, q storage.Querier, orgID string, now time.Time) ([]SeatCaps, error) {
	rows, err := q.Query(ctx, `SELECT id FROM linkedin_accounts WHERE org_id = $1 ORDER BY created_at, id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("seat usage: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("seat usage: %w", err)
	}
	out := make([]SeatCaps, 0, len(ids))
	for _, id := range ids {
		g, err := readSeatGate(ctx, q, id, now, false)
		if err != nil {
			return nil, fmt.Errorf("seat usage: %w", err)
		}
		out = append(out, capsOf(g, now))
	}
	return out, nil
}

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

// SetSeatLimits changes caps of an organization's seat and returns its caps and use at now.
func SetSeatLimits(ctx context.Context, q storage.Querier, orgID, accountID string, c SeatLimitsChange, now time.Time) (SeatCaps, error) {
	if err := c.Validate(); err != nil {
		return SeatCaps{}, err
	}
	tag, err := q.Exec(ctx, `UPDATE linkedin_accounts SET invites_per_day = coalesce($3, invites_per_day),
			invites_per_week = coalesce($4, invites_per_week), messages_per_day = coalesce($5, messages_per_day),
			profile_views_per_day = coalesce($6, profile_views_per_day), max_pending_invites = coalesce($7, max_pending_invites),
			updated_at = now()
		WHERE id = $1 AND org_id = $2`, accountID, orgID, c.InvitesPerDay, c.InvitesPerWeek, c.MessagesPerDay,
		c.ProfileViewsPerDay, c.MaxPending)
	if err != nil {
		return SeatCaps{}, fmt.Errorf("set seat limits: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return SeatCaps{}, outreach.NotFound("linkedin account %s", accountID)
	}
	g, err := readSeatGate(ctx, q, accountID, now, false)
	if err != nil {
		return SeatCaps{}, err
	}
	return capsOf(g, now), nil
}
