package delivery

import (
	"context"
	"time"
)

// What the API and the application read of destinations and of what the hub did for them,
// through the same manager that changes them. Every read is scoped by organization.

// Get reads one destination of orgID; another organization's, or a deleted one, is not found.
func (m *Destinations) Get(ctx context.Context, orgID, id string) (Destination, error) {
	return m.store.GetDestination(ctx, orgID, id)
}

// ForLog reads a destination of orgID for its attempt and delivery logs: a deleted one too, until
// it is purged (what was sent before a deletion stays readable).
func (m *Destinations) ForLog(ctx context.Context, orgID, id string) (Destination, error) {
	d, _, err := m.store.DestinationForLog(ctx, orgID, id)
	return d, err
}

// List returns every destination of orgID, oldest first, with the newest attempt of each
// (absent: never tried).
func (m *Destinations) List(ctx context.Context, orgID string) ([]Destination, map[string]AttemptLogEntry, error) {
	return m.store.DestinationsWithLastAttempts(ctx, orgID)
}

// DestinationsWithLastAttempts returns every destination of orgID, oldest first, with the
// newest attempt of each (absent: never tried).
func (s *Store) DestinationsWithLastAttempts(ctx context.Context, orgID string) ([]Destination, map[string]AttemptLogEntry, error) {
	list, err := s.ListDestinations(ctx, orgID)
	if err != nil {
		return nil, nil, err
	}
	last, err := s.LastAttempts(ctx, orgID, IDs(list))
	if err != nil {
		return nil, nil, err
	}
	return list, last, nil
}

// IDs lists the ids of ds in order.
func IDs(ds []Destination) []string {
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	return ids
}

// LastAttempt is the newest attempt of d, of any trigger; ok is false before the first.
func (m *Destinations) LastAttempt(ctx context.Context, d Destination) (a AttemptLogEntry, ok bool, err error) {
	last, err := m.store.LastAttempts(ctx, d.OrgID, []string{d.ID})
	a, ok = last[d.ID]
	return a, ok, err
}

// Delete deletes a destination of orgID for its users (Store.DeleteDestination): nothing more is
// sent to it, its secrets are erased, its logs stay readable until it is purged.
func (m *Destinations) Delete(ctx context.Context, orgID, id string) error {
	return m.store.DeleteDestination(ctx, orgID, id)
}

// Attempts pages through a destination's attempts, newest first, and counts them all (with
// throttled, those its rate limit held back). The caller has read the destination of orgID first
// (ForLog).
func (m *Destinations) Attempts(ctx context.Context, orgID, destID string, limit, offset int, throttled bool) ([]AttemptLogEntry, int, error) {
	return m.store.AttemptLog(ctx, orgID, destID, limit, offset, throttled)
}

// FilteredAttempts pages through a destination's attempts with f applied; more reports a further
// page.
func (m *Destinations) FilteredAttempts(ctx context.Context, orgID, destID string, f AttemptFilter) (list []AttemptLogEntry, more bool, err error) {
	return m.store.FilteredAttemptLog(ctx, orgID, destID, f)
}

// Health returns the hourly attempts of each of destIDs from since on (Store.DestinationHealth).
func (m *Destinations) Health(ctx context.Context, orgID string, destIDs []string, since time.Time) (map[string][]HourHealth, error) {
	return m.store.DestinationHealth(ctx, orgID, destIDs, since)
}

// Deliveries pages through the organization's deliveries, newest first, and counts the matches.
func (m *Destinations) Deliveries(ctx context.Context, orgID string, q DeliveryLogQuery) ([]DeliveryLogEntry, int, error) {
	return m.store.DeliveryLog(ctx, orgID, q)
}

// Delivery reads one delivery of orgID, with its payload.
func (m *Destinations) Delivery(ctx context.Context, orgID, id string) (Delivery, error) {
	return m.store.GetDelivery(ctx, orgID, id)
}
