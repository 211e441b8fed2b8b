package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"outreachd/engine"
)

// adminAccountLimits is `admin account limits --account A [--invites-per-day N]
// [--invites-per-week N] [--messages-per-day N] [--profile-views-per-day N] [--max-pending N]`:
// it sets the caps given (0 stops that kind of action; the others stay) and prints the seat's
// caps with what it used of them in its current day and week.
func adminAccountLimits(ctx context.Context, env *adminEnv, fs *flag.FlagSet, args []string) (any, error) {
	account := fs.String("account", "", "LinkedIn account id (from admin account connect)")
	var c engine.SeatLimitsChange
	for _, f := range []struct {
		name, usage string
		dst         **int
	}{
		{"invites-per-day", "invitations a day", &c.InvitesPerDay},
		{"invites-per-week", "invitations in 7 days", &c.InvitesPerWeek},
		{"messages-per-day", "messages and replies a day", &c.MessagesPerDay},
		{"profile-views-per-day", "profile look-ups a day (enrichment included)", &c.ProfileViewsPerDay},
		{"max-pending", "pending invitations beyond which no new one is sent", &c.MaxPending},
	} {
		fs.Func(f.name, f.usage, func(s string) error {
			n, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("must be a whole number")
			}
			*f.dst = &n
			return nil
		})
	}
	if err := parseFlags(fs, args, "account"); err != nil {
		return nil, err
	}
	seat, err := engine.Seat(ctx, env.store.Pool(), *account)
	if err != nil {
		return nil, err
	}
	return engine.SetSeatLimits(ctx, env.store.Pool(), seat.OrgID, seat.ID, c, engine.EngineNow(ctx, env.store.Pool()))
}
