package outreach

import (
	"fmt"
	"time"
)

// Window is a campaign's Schedule resolved for computing with instants: the working weekdays
// and the daily window [start, end) in minutes after local midnight, in the schedule's time
// zone. The engine sends only inside it; the application says from it when a launched campaign
// first sends.
type Window struct {
	loc        *time.Location
	days       [7]bool // by time.Weekday
	start, end int
}

// Window resolves s; a schedule ParseSchedule accepted always resolves.
func (s Schedule) Window() (Window, error) {
	var w Window
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		return w, fmt.Errorf("schedule time zone %q: %w", s.Timezone, err)
	}
	w.loc = loc
	for _, d := range s.WorkingDays {
		n := dayNumber(d)
		if n == 0 {
			return w, fmt.Errorf("schedule working day %q", d)
		}
		w.days[time.Weekday(n%7)] = true // ISO 7 (Sunday) is time.Sunday (0)
	}
	var ok bool
	if w.start, ok = clockMinutes(s.StartTime); !ok {
		return w, fmt.Errorf("schedule time %q is not HH:MM", s.StartTime)
	}
	if w.end, ok = clockMinutes(s.EndTime); !ok {
		return w, fmt.Errorf("schedule time %q is not HH:MM", s.EndTime)
	}
	if w.start >= w.end {
		return w, fmt.Errorf("schedule window %s-%s is empty", s.StartTime, s.EndTime)
	}
	return w, nil
}

// Location is the schedule's time zone.
func (w Window) Location() *time.Location { return w.loc }

// Bounds returns the window of the local day that starts at midnight (local).
func (w Window) Bounds(midnight time.Time) (open, closeAt time.Time) {
	y, mo, d := midnight.Date()
	open = time.Date(y, mo, d, w.start/60, w.start%60, 0, 0, w.loc)
	closeAt = time.Date(y, mo, d, w.end/60, w.end%60, 0, 0, w.loc)
	return open, closeAt
}

// DayStart is local midnight of t's day in the schedule's zone: the daily limit counts from it.
func (w Window) DayStart(t time.Time) time.Time {
	y, mo, d := t.In(w.loc).Date()
	return time.Date(y, mo, d, 0, 0, 0, 0, w.loc)
}

// Contains reports whether t is inside the window.
func (w Window) Contains(t time.Time) bool {
	mid := w.DayStart(t)
	if !w.days[mid.Weekday()] {
		return false
	}
	open, closeAt := w.Bounds(mid)
	return !t.Before(open) && t.Before(closeAt)
}

// NextOpen is t when t is inside the window, else the next moment the window opens.
func (w Window) NextOpen(t time.Time) time.Time {
	mid := w.DayStart(t)
	for i := 0; i < 8; i++ {
		day := time.Date(mid.Year(), mid.Month(), mid.Day()+i, 0, 0, 0, 0, w.loc)
		if !w.days[day.Weekday()] {
			continue
		}
		open, closeAt := w.Bounds(day)
		switch {
		case t.Before(open):
			return open
		case t.Before(closeAt):
			return t
		}
	}
	return t.Add(7 * 24 * time.Hour) // unreachable with at least one working day
}

// NextDayOpen is when the window opens on the first working day after t's local day: where a
// campaign that used up today's limit resumes.
func (w Window) NextDayOpen(t time.Time) time.Time {
	mid := w.DayStart(t)
	return w.NextOpen(time.Date(mid.Year(), mid.Month(), mid.Day()+1, 0, 0, 0, 0, w.loc))
}
