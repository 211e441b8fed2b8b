package engine

import (
	"context"
	"fmt"

	"outreachd/outreach"
	"outreachd/storage"
)

// SeatRow is one LinkedIn seat as the operator and the application list it (`admin account
// list`, the application's LinkedIn accounts page): the one place such a row is built, so each
// fact a seat shows (its limits, today's use) is added here once for both.
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
	ConnectedAt    string  `json:"connected_at"`
}

// SeatRows lists an organization's seats, oldest first.
func SeatRows(ctx context.Context, q storage.Querier, orgID string) ([]SeatRow, error) {
	accs, err := storage.OrgLinkedInAccounts(ctx, q, orgID)
	if err != nil {
		return nil, fmt.Errorf("list seats: %w", err)
	}
	out := make([]SeatRow, len(accs))
	for i, a := range accs {
		out[i] = seatRow(a)
	}
	return out, nil
}

// seatRow is a seat's row from its record.
func seatRow(a storage.LinkedInAccount) SeatRow {
	r := SeatRow{AccountID: a.ID, Name: a.Name, ProviderAccountID: a.ProviderAccountID, Status: a.Status,
		ConnectedAt: outreach.FormatTime(a.CreatedAt)}
	if a.Status == "rate_limited" && a.CooldownUntil != nil {
		r.CooldownUntil = outreach.FormatTimePtr(a.CooldownUntil)
	}
	if a.Status == "disconnected" && a.DisconnectedAt != nil {
		r.DisconnectedAt = outreach.FormatTimePtr(a.DisconnectedAt)
	}
	return r
}
