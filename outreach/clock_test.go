package outreach

import (
	"testing"
	"time"
)

func TestVirtualClock(t *testing.T) {
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	real := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	fakeReal := func() time.Time { return real }

	t.Run("manual only", func(t *testing.T) {
		c := NewVirtualClock(start, 0)
		c.real = fakeReal
		real = real.Add(time.Hour)
		if got := c.Now(); !got.Equal(start) {
			t.Fatalf("speed 0 clock moved with real time: %v", got)
		}
		c.Advance(90 * time.Minute)
		if got, want := c.Now(), start.Add(90*time.Minute); !got.Equal(want) {
			t.Fatalf("Now = %v, want %v", got, want)
		}
	})

	t.Run("sped up plus manual", func(t *testing.T) {
		c := &VirtualClock{start: start, speed: 60, real: fakeReal, realStart: real}
		real = real.Add(time.Minute) // one real minute = one virtual hour
		c.Advance(2 * time.Hour)
		if got, want := c.Now(), start.Add(3*time.Hour); !got.Equal(want) {
			t.Fatalf("Now = %v, want %v", got, want)
		}
		later := start.Add(48 * time.Hour)
		c.Set(later)
		if got := c.Now(); !got.Equal(later) {
			t.Fatalf("after Set, Now = %v, want %v", got, later)
		}
		real = real.Add(time.Second)
		if got, want := c.Now(), later.Add(time.Minute); !got.Equal(want) {
			t.Fatalf("after Set and 1s real, Now = %v, want %v", got, want)
		}
	})

	t.Run("negative speed is manual", func(t *testing.T) {
		if s := NewVirtualClock(start, -3).Speed(); s != 0 {
			t.Fatalf("speed = %v, want 0", s)
		}
	})
}
