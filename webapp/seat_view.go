package webapp

import (
	"fmt"
	"strings"
	"time"

	"outreachd/engine"
	"outreachd/outreach"
)

// A seat as the LinkedIn accounts pages say it: its row (engine.SeatRow, the figures `admin
// account list` prints) put in words.

// seatView is one seat on the pages.
type seatView struct {
	engine.SeatRow
	Badge      string // connected, rate limited, disconnected
	BadgeClass string // ok, warn, bad
	Words      string // what the status means for its campaigns
	Added      string // when it was first connected
	SalesNav   string
	Next       string // when it may act next
	Day        string // which day "today" is, in which time zone
	Caps       []capView
	OwnPage    bool // shown on its own page (no link to it)
}

// capView is one cap with what the seat used of it.
type capView struct {
	Label string
	Used  int
	Cap   int
	Left  int
	Low   int    // from here on the meter warns
	Full  bool   // the cap is reached
	Until string // when a reached cap lets the seat act again
}

func seatViewOf(row engine.SeatRow, people map[string]string, now time.Time) seatView {
	s := seatView{SeatRow: row}
	loc, err := time.LoadLocation(row.DayZone)
	if err != nil {
		loc = time.UTC
	}
	switch row.Status {
	case "connected":
		s.Badge, s.BadgeClass = "connected", "ok"
		s.Words = "Connected: its campaigns send from it."
	case "rate_limited":
		s.Badge, s.BadgeClass = "rate limited", "warn"
		s.Words = "LinkedIn is refusing its invitations for now; messages and replies still go."
		if t := parsedTime(row.CooldownUntil); t != nil {
			s.Words = fmt.Sprintf("Rate limited until %s, %s: LinkedIn is refusing its invitations until then; messages and replies still go.",
				at(*t, loc), inAbout(t.Sub(now)))
		}
	default:
		s.Badge, s.BadgeClass = "disconnected", "bad"
		since := ""
		if t := parsedTime(row.DisconnectedAt); t != nil {
			since = " since " + at(*t, loc)
		}
		s.Words = "Disconnected" + since + ": LinkedIn ended its session. Nothing is sent from it until it is reconnected."
		if row.DisconnectedBy != nil {
			s.Words = "Disconnected" + since + " by " + personOf(people, *row.DisconnectedBy) +
				": outreachd sends nothing from it until it is reconnected."
		}
	}
	if t := parsedTime(&row.ConnectedAt); t != nil {
		s.Added = at(*t, loc)
	}
	s.SalesNav = salesNavWords(row, loc)
	s.Day = dayWords(row.DayZone, loc, now)
	s.Next = nextWords(row, loc, now)
	s.Caps = capsOf(row)
	return s
}

// personOf names who an actor ("user:<id>") is, from the organization's people.
func personOf(people map[string]string, actor string) string {
	if id, ok := strings.CutPrefix(actor, "user:"); ok {
		if e, ok := people[id]; ok {
			return e
		}
		return "a former member"
	}
	return "an operator"
}

func salesNavWords(row engine.SeatRow, loc *time.Location) string {
	if row.SNVerdict == nil {
		return "nothing reported yet"
	}
	since := ""
	if t := parsedTime(row.SNChangedAt); t != nil {
		since = " since " + at(*t, loc)
	}
	switch *row.SNVerdict {
	case outreach.SalesNavActive:
		return "works" + since
	case outreach.SalesNavLapsed:
		return "lapsed" + since + "; classic LinkedIn still works"
	case outreach.SalesNavSessionExpired:
		return "session expired" + since + "; classic LinkedIn still works"
	}
	return *row.SNVerdict + since
}

// dayWords says which day the "today" figures count, in which time zone.
func dayWords(zone string, loc *time.Location, now time.Time) string {
	why := "the time zone of the schedule of the oldest active campaign that sends from it"
	if zone == "UTC" {
		why = "UTC, as no active campaign with a schedule sends from it"
	}
	return fmt.Sprintf("Today counts from midnight to midnight in %s (%s); it is %s there now. The week is the 7 days up to now.",
		zone, why, now.In(loc).Format("Mon 2 Jan 15:04"))
}

func nextWords(row engine.SeatRow, loc *time.Location, now time.Time) string {
	switch {
	case row.Status == "disconnected":
		return "none while it is disconnected"
	case row.NextActionAt != nil:
		if t := parsedTime(row.NextActionAt); t != nil && t.After(now) {
			return fmt.Sprintf("not before %s, %s: a seat waits a random few minutes between two actions", at(*t, loc), inAbout(t.Sub(now)))
		}
	}
	return "now, as far as its pace goes (inside a campaign's schedule, under the caps below)"
}

func capsOf(row engine.SeatRow) []capView {
	midnight := "until midnight " + row.DayZone
	l, u := row.Limits, row.Used
	caps := []capView{
		{Label: "Invitations today", Used: u.InvitesToday, Cap: l.InvitesPerDay, Until: midnight},
		{Label: "Invitations in the last 7 days", Used: u.InvitesThisWeek, Cap: l.InvitesPerWeek,
			Until: "until older invitations leave the 7 days"},
		{Label: "Messages today (sequence messages and replies)", Used: u.MessagesToday, Cap: l.MessagesPerDay, Until: midnight},
		{Label: "Profile views today (look-ups and enrichment)", Used: u.ProfileViewsToday, Cap: l.ProfileViewsPerDay, Until: midnight},
		{Label: "Pending invitations", Used: u.PendingInvites, Cap: l.MaxPending,
			Until: "until some are accepted or withdrawn (after 21 days)"},
	}
	for i := range caps {
		caps[i].Left, caps[i].Full, caps[i].Low = max(caps[i].Cap-caps[i].Used, 0), caps[i].Used >= caps[i].Cap, caps[i].Cap*8/10
	}
	return caps
}

// parsedTime reads a time a seat row carries (outreach.FormatTime).
func parsedTime(s *string) *time.Time {
	if s == nil {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return nil
	}
	return &t
}

// at is a moment in the seat's time zone, with UTC beside it when that zone is another.
func at(t time.Time, loc *time.Location) string {
	s := t.In(loc).Format("Mon 2 Jan 15:04 MST")
	if _, off := t.In(loc).Zone(); off != 0 {
		s += " (" + t.UTC().Format("15:04 UTC") + ")"
	}
	return s
}

// inAbout says a wait ahead as people do.
func inAbout(d time.Duration) string {
	if d <= time.Minute {
		return "in less than a minute"
	}
	return "in " + duration(d)
}
