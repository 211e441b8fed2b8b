package engine

import (
	"context"
	"fmt"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// SeatRow is one LinkedIn seat as the operator and the application list it (`admin account
// list`, `admin account limits`, the application's LinkedIn accounts page): the one place such a
// row is built, so each fact a seat shows is added here once for all of them.
type SeatRow struct {
	AccountID         string `json:"account_id"`
	Name              string `json:"name"`
	ProviderAccountID string `json:"provider_account_id"`
	// Status is connected, disconnected or rate_limited.
	Status string `json:"status"`
	// CooldownUntil is when a rate-limited seat may invite again; null otherwise.
	CooldownUntil *string `json:"cooldown_until"`
	// DisconnectedAt is when LinkedIn ended the seat's session; null while connected.
	DisconnectedAt *string `json:"disconnected_at"`
	// DisconnectedBy is the person who disconnected the seat (user:<id>); null when LinkedIn
	// ended its session, or while it is connected.
	DisconnectedBy *string `json:"disconnected_by"`
	ConnectedAt    string  `json:"connected_at"`
	// SNVerdict is the Sales Navigator verdict LinkedIn last reported (active, lapsed,
	// session_expired) and SNChangedAt when; both null while nothing was reported.
	SNVerdict   *string `json:"sn_verdict"`
	SNChangedAt *string `json:"sn_changed_at"`
	// DayZone is the time zone the seat's day counts in (seat_limits.go).
	DayZone string `json:"day_zone"`
	// Limits are the seat's caps, Used what it used of them in its current day and week.
	Limits SeatLimits `json:"limits"`
	Used   SeatUse    `json:"used"`
	// NextActionAt is the earliest moment the seat may act again (its pace), when later than now.
	NextActionAt *string `json:"next_action_at"`
}

// SeatRows lists an organization's seats, oldest first, with their caps and use at now (engine
// time; EngineNow for a process that runs no engine).
func SeatRows(ctx context.Context, q storage.Querier, orgID string, now time.Time) ([]SeatRow, error) {
	accs, err := storage.OrgLinkedInAccounts(ctx, q, orgID)
	if err != nil {
		return nil, fmt.Errorf("list seats: %w", err)
	}
	out := make([]SeatRow, len(accs))
	for i, a := range accs {
		g, err := readSeatGate(ctx, q, a.ID, now, false)
		if err != nil {
			return nil, fmt.Errorf("list seats: %w", err)
		}
		out[i] = seatRow(g, now)
	}
	return out, nil
}

// seatRow is a seat's row from its gate at now.
func seatRow(g seatGate, now time.Time) SeatRow {
	a := g.acc
	r := SeatRow{AccountID: a.ID, Name: a.Name, ProviderAccountID: a.ProviderAccountID, Status: a.Status,
		ConnectedAt: outreach.FormatTime(a.CreatedAt), SNVerdict: a.SNVerdict, SNChangedAt: outreach.FormatTimePtr(a.SNChangedAt),
		DayZone: g.day.zone, Limits: g.limits, Used: g.use}
	if g.next != nil && g.next.After(now) {
		r.NextActionAt = outreach.FormatTimePtr(g.next)
	}
	if a.Status == "rate_limited" && a.CooldownUntil != nil {
		r.CooldownUntil = outreach.FormatTimePtr(a.CooldownUntil)
	}
	if a.Status == "disconnected" && a.DisconnectedAt != nil {
		r.DisconnectedAt, r.DisconnectedBy = outreach.FormatTimePtr(a.DisconnectedAt), a.DisconnectedBy
	}
	return r
}
