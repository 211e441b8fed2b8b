package engine

import (
	"time"
)

// A seat's caps, on top of each campaign's daily limit. LinkedIn restricts accounts that act
// like scripts, and the limits it enforces are not published: the defaults are the conservative
// end of what practitioners and hosted LinkedIn APIs advise (docs/linkedin.md, "Limits"). Each
// is configurable per seat (`admin account limits`).
//
// A seat's day runs from midnight to midnight in the seat's time zone: that of the schedule of
// the oldest active campaign that sends from it (one naming the seat, else one naming no seat
// in its organization), UTC when there is none. So a working day, which a schedule keeps inside
// one local day, never spans two counting days. The week is the 7 days up to now.

// SeatLimits are a seat's caps.
type SeatLimits struct {
	InvitesPerDay      int `json:"invites_per_day"`
	InvitesPerWeek     int `json:"invites_per_week"`
	MessagesPerDay     int `json:"messages_per_day"` // sequence messages and replies
	ProfileViewsPerDay int `json:"profile_views_per_day"`
	// MaxPending stops new invitations while this many are pending (the oldest are withdrawn
	// after the engine's InviteExpiry).
	MaxPending int `json:"max_pending"`
}

// DefaultSeatLimits are the caps of a seat nobody configured.
func DefaultSeatLimits() SeatLimits {
	return SeatLimits{InvitesPerDay: 25, InvitesPerWeek: 100, MessagesPerDay: 100, ProfileViewsPerDay: 80, MaxPending: 500}
}

// SeatUse is what a seat did in its current day and week, as its caps count it.
type SeatUse struct {
	InvitesToday      int `json:"invites_today"`
	InvitesThisWeek   int `json:"invites_this_week"`
	MessagesToday     int `json:"messages_today"`
	ProfileViewsToday int `json:"profile_views_today"`
	PendingInvites    int `json:"pending_invites"`
}

// Action kinds (linkedin_actions.kind).
const (
	actInvite   = "invite"
	actMessage  = "message"
	actWithdraw = "withdraw"
	actReply    = "reply"
	actView     = "profile_view"
)

// seatDay is a seat's counting day around an engine time.
type seatDay struct {
	zone       string
	start, end time.Time
}

// dayOf returns the seat's day holding now in zone (UTC when the zone is unknown).
func dayOf(zone string, now time.Time) seatDay {
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "" {
		zone, loc = "UTC", time.UTC
	}
	l := now.In(loc)
	start := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc)
	return seatDay{zone: zone, start: start, end: start.AddDate(0, 0, 1)}
}

// capHit says why a seat may not take an action of kind now and until when, or ok.
func (l SeatLimits) capHit(u SeatUse, kind string, lookUp bool, day seatDay, now time.Time) (reason string, until time.Time, hit bool) {
	switch kind {
	case actInvite:
		switch {
		case u.InvitesToday >= l.InvitesPerDay:
			return "invitations per day", day.end, true
		case u.InvitesThisWeek >= l.InvitesPerWeek:
			return "invitations per week", day.end, true
		case u.PendingInvites >= l.MaxPending:
			// Withdrawals free room as invitations expire; look again in an hour.
			return "pending invitations", minTime(day.end, now.Add(time.Hour)), true
		case lookUp && u.ProfileViewsToday >= l.ProfileViewsPerDay:
			return "profile views per day", day.end, true
		}
	case actMessage, actReply:
		if u.MessagesToday >= l.MessagesPerDay {
			return "messages per day", day.end, true
		}
	case actView:
		if u.ProfileViewsToday >= l.ProfileViewsPerDay {
			return "profile views per day", day.end, true
		}
	}
	return "", time.Time{}, false
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
