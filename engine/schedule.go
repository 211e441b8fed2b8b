package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"outreachd/outreach"
)

// window is a campaign's sending schedule resolved for computation: the working weekdays and
// the daily window [start, end) in minutes after local midnight, in the campaign's time zone.
type window struct {
	loc        *time.Location
	days       [7]bool // by time.Weekday
	start, end int
}

var weekdayNames = map[string]time.Weekday{"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday,
	"wednesday": time.Wednesday, "thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday}

func newWindow(s outreach.Schedule) (window, error) {
	var w window
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		return w, fmt.Errorf("schedule time zone %q: %w", s.Timezone, err)
	}
	w.loc = loc
	for _, d := range s.WorkingDays {
		wd, ok := weekdayNames[strings.ToLower(d)]
		if !ok {
			return w, fmt.Errorf("schedule working day %q", d)
		}
		w.days[wd] = true
	}
	if w.start, err = minutesOf(s.StartTime); err != nil {
		return w, err
	}
	if w.end, err = minutesOf(s.EndTime); err != nil {
		return w, err
	}
	if w.start >= w.end {
		return w, fmt.Errorf("schedule window %s-%s is empty", s.StartTime, s.EndTime)
	}
	return w, nil
}

func minutesOf(hhmm string) (int, error) {
	h, m, ok := strings.Cut(hhmm, ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || hh < 0 || hh > 23 || mm < 0 || mm > 59 {
		return 0, fmt.Errorf("schedule time %q is not HH:MM", hhmm)
	}
	return hh*60 + mm, nil
}

// bounds returns the window of the local day that starts at midnight (local).
func (w window) bounds(midnight time.Time) (time.Time, time.Time) {
	y, mo, d := midnight.Date()
	open := time.Date(y, mo, d, w.start/60, w.start%60, 0, 0, w.loc)
	closeAt := time.Date(y, mo, d, w.end/60, w.end%60, 0, 0, w.loc)
	return open, closeAt
}

// dayStart is local midnight of t's day in the campaign's zone: the daily limit counts from it.
func (w window) dayStart(t time.Time) time.Time {
	y, mo, d := t.In(w.loc).Date()
	return time.Date(y, mo, d, 0, 0, 0, 0, w.loc)
}

func (w window) contains(t time.Time) bool {
	mid := w.dayStart(t)
	if !w.days[mid.Weekday()] {
		return false
	}
	open, closeAt := w.bounds(mid)
	return !t.Before(open) && t.Before(closeAt)
}

// nextOpen is t when t is inside the window, else the next moment the window opens.
func (w window) nextOpen(t time.Time) time.Time {
	mid := w.dayStart(t)
	for i := 0; i < 8; i++ {
		day := time.Date(mid.Year(), mid.Month(), mid.Day()+i, 0, 0, 0, 0, w.loc)
		if !w.days[day.Weekday()] {
			continue
		}
		open, closeAt := w.bounds(day)
		switch {
		case t.Before(open):
			return open
		case t.Before(closeAt):
			return t
		}
	}
	return t.Add(7 * 24 * time.Hour) // unreachable with at least one working day
}

// nextDayOpen is when the window opens on the first working day after t's local day: where a
// campaign that used up today's limit resumes.
func (w window) nextDayOpen(t time.Time) time.Time {
	mid := w.dayStart(t)
	return w.nextOpen(time.Date(mid.Year(), mid.Month(), mid.Day()+1, 0, 0, 0, 0, w.loc))
}
