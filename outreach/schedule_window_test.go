package outreach_test

import (
	"testing"
	"time"

	"outreachd/outreach"
)

func mustWindow(t *testing.T, tz string, days []string, start, end string) outreach.Window {
	t.Helper()
	w, err := outreach.Schedule{Timezone: tz, WorkingDays: days, StartTime: start, EndTime: end}.Window()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestScheduleWindow(t *testing.T) {
	t.Parallel()
	weekdays := []string{"monday", "tuesday", "wednesday", "thursday", "friday"}
	ny := mustWindow(t, "America/New_York", weekdays, "09:00", "17:00")
	berlin := mustWindow(t, "Europe/Berlin", []string{"monday"}, "06:00", "23:00")
	nyLoc, _ := time.LoadLocation("America/New_York")
	at := func(loc *time.Location, y int, m time.Month, d, h, min int) time.Time {
		return time.Date(y, m, d, h, min, 0, 0, loc)
	}
	cases := []struct {
		name     string
		w        outreach.Window
		t        time.Time
		contains bool
		nextOpen time.Time
	}{
		{"NY Monday 08:59 is before the window", ny, at(nyLoc, 2026, 11, 23, 8, 59), false, at(nyLoc, 2026, 11, 23, 9, 0)},
		{"NY Monday 09:00 opens it", ny, at(nyLoc, 2026, 11, 23, 9, 0), true, at(nyLoc, 2026, 11, 23, 9, 0)},
		{"NY Monday 16:59 inside", ny, at(nyLoc, 2026, 11, 23, 16, 59), true, at(nyLoc, 2026, 11, 23, 16, 59)},
		{"NY Monday 17:00 closed; Tuesday next", ny, at(nyLoc, 2026, 11, 23, 17, 0), false, at(nyLoc, 2026, 11, 24, 9, 0)},
		{"NY Friday evening -> Monday", ny, at(nyLoc, 2026, 11, 27, 18, 0), false, at(nyLoc, 2026, 11, 30, 9, 0)},
		{"NY Saturday -> Monday", ny, at(nyLoc, 2026, 11, 28, 12, 0), false, at(nyLoc, 2026, 11, 30, 9, 0)},
		// 14:30 UTC on Monday is 09:30 in New York (EST, UTC-5).
		{"UTC instant inside NY window", ny, time.Date(2026, 11, 23, 14, 30, 0, 0, time.UTC), true, time.Date(2026, 11, 23, 14, 30, 0, 0, time.UTC)},
		{"UTC instant before NY window", ny, time.Date(2026, 11, 23, 13, 30, 0, 0, time.UTC), false, time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)},
		// Across the spring-forward weekend the window still opens at 09:00 local (13:00 UTC, EDT).
		{"DST: NY window after spring forward", ny, time.Date(2026, 3, 9, 12, 30, 0, 0, time.UTC), false, time.Date(2026, 3, 9, 13, 0, 0, 0, time.UTC)},
		{"Berlin Monday only: Tuesday -> next Monday", berlin, time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC), false, time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)},
		{"Berlin Monday 23:30 local is Monday 22:30 UTC, closed", berlin, time.Date(2026, 11, 23, 22, 30, 0, 0, time.UTC), false, time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.w.Contains(c.t); got != c.contains {
				t.Errorf("contains(%s) = %v", c.t, got)
			}
			if got := c.w.NextOpen(c.t); !got.Equal(c.nextOpen) {
				t.Errorf("NextOpen(%s) = %s, want %s", c.t, got, c.nextOpen)
			}
		})
	}
	t.Run("dayStart is local midnight", func(t *testing.T) {
		got := ny.DayStart(time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)) // 22:00 Monday in NY
		if want := at(nyLoc, 2026, 11, 23, 0, 0); !got.Equal(want) {
			t.Fatalf("DayStart = %s, want %s", got, want)
		}
	})
	t.Run("nextDayOpen skips the rest of today", func(t *testing.T) {
		got := ny.NextDayOpen(at(nyLoc, 2026, 11, 23, 10, 0))
		if want := at(nyLoc, 2026, 11, 24, 9, 0); !got.Equal(want) {
			t.Fatalf("NextDayOpen = %s, want %s", got, want)
		}
	})
}
