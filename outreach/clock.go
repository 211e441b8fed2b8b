package outreach

import (
	"sync"
	"time"
)

// Clock is where the engine and the simulators read the time. Production wires SystemClock;
// demos and tests wire a VirtualClock so days of simulated LinkedIn activity can pass in
// minutes, or exactly when a test says so.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// VirtualClock is a clock that runs at a multiple of real time and can also be moved by hand.
// It is safe for concurrent use.
//
// Now() = start + (real time elapsed since start was set) × speed + manual advances.
// With speed 0 the clock moves only when Advance or Set is called, which is what tests want.
type VirtualClock struct {
	mu        sync.Mutex
	start     time.Time // virtual time at realStart, before manual advances
	realStart time.Time
	speed     float64
	manual    time.Duration
	real      func() time.Time // time.Now; replaceable in this package's tests
}

// NewVirtualClock returns a clock reading start now and running at speed× real time.
// A negative speed is treated as 0: a clock that runs backwards would reorder every
// scheduled event in the simulators.
func NewVirtualClock(start time.Time, speed float64) *VirtualClock {
	if speed < 0 {
		speed = 0
	}
	c := &VirtualClock{start: start, speed: speed, real: time.Now}
	c.realStart = c.real()
	return c
}

// Now returns the current virtual time.
func (c *VirtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *VirtualClock) nowLocked() time.Time {
	t := c.start.Add(c.manual)
	if c.speed != 0 {
		elapsed := c.real().Sub(c.realStart)
		t = t.Add(time.Duration(float64(elapsed) * c.speed))
	}
	return t
}

// Advance moves the clock forward by d, on top of whatever the speed adds.
// A negative d moves it back; nothing in this module does that.
func (c *VirtualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.manual += d
}

// Set makes the clock read t now; it keeps running at its speed from there.
func (c *VirtualClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.start = t
	c.manual = 0
	c.realStart = c.real()
}

// Speed reports how many virtual seconds pass per real second.
func (c *VirtualClock) Speed() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.speed
}
