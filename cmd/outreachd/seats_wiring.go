package main

import (
	"context"
	"fmt"

	"outreachd/adapters/linkedin"
	"outreachd/engine"
	"outreachd/outreach"
	"outreachd/storage"
	"outreachd/webapp"
)

// How seats connect: on the LinkedIn simulator at once (simulatedSeats), on Unipile through its
// hosted sign-in (*unipile.Seats, unipile_wiring.go). `admin account connect`, the demo and the
// application's LinkedIn accounts page connect a simulated seat through the same code.

var _ webapp.SeatConnector = simulatedSeats{}

// simulatedSeats connects seats on the LinkedIn simulator and records them.
type simulatedSeats struct {
	sim *linkedin.Simulator
	q   storage.Querier
}

// Connect connects the seat name of orgID on the simulator and records it, or connects it
// again when it exists: the simulator derives a seat's id from organization and name, so a
// serving simulator gives the same seat the same id when it learns of it.
func (s simulatedSeats) Connect(ctx context.Context, orgID, name string) (storage.LinkedInAccount, error) {
	pa, err := s.sim.ConnectAccount(ctx, orgID, name)
	if err != nil {
		return storage.LinkedInAccount{}, err
	}
	return engine.ConnectSeat(ctx, s.q, orgID, name, pa.ID)
}

// Reconnect connects seat again, on the simulator and in the database.
func (s simulatedSeats) Reconnect(ctx context.Context, seat storage.LinkedInAccount) (storage.LinkedInAccount, error) {
	pa, err := s.sim.ConnectAccount(ctx, seat.OrgID, seat.Name)
	if err != nil {
		return storage.LinkedInAccount{}, err
	}
	if pa.ID != seat.ProviderAccountID {
		return storage.LinkedInAccount{}, fmt.Errorf("the simulator knows seat %s as %s, not %s: %w",
			seat.ID, pa.ID, seat.ProviderAccountID, outreach.ErrUnknownAccount)
	}
	return engine.ConnectSeat(ctx, s.q, seat.OrgID, seat.Name, pa.ID)
}

// seatConnection gives the application's LinkedIn accounts page the configured provider's way
// of connecting seats.
func (a *app) seatConnection(deps *webapp.Deps) {
	switch {
	case a.seatLinks != nil:
		deps.SeatLinks = a.seatLinks
	case a.sim != nil:
		deps.Seats = simulatedSeats{sim: a.sim, q: a.store.Pool()}
	}
}
