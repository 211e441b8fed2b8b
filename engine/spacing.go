package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Spacing is the random gap between two LinkedIn actions of one seat (LINKEDIN_ACTION_SPACING):
// a gap drawn uniformly between Min and Max after each action, so that a seat never acts at a
// machine's regular beat. The zero value takes the default, 2m-5m; Immediate lets a seat act as
// soon as the schedule and its caps allow (tests).
type Spacing struct {
	Min, Max  time.Duration
	Immediate bool
}

// DefaultSpacing is the gap a seat keeps between two actions unless configured otherwise: a few
// minutes, at random, the pace of a person working through a list.
func DefaultSpacing() Spacing { return Spacing{Min: 2 * time.Minute, Max: 5 * time.Minute} }

// ParseSpacing reads LINKEDIN_ACTION_SPACING: "MIN-MAX" as Go durations ("2m-5m", "30s-90s"),
// or "0" to act as soon as the schedule and the caps allow.
func ParseSpacing(s string) (Spacing, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return Spacing{Immediate: true}, nil
	}
	lo, hi, ok := strings.Cut(s, "-")
	if !ok {
		return Spacing{}, fmt.Errorf("LINKEDIN_ACTION_SPACING must be MIN-MAX as Go durations like 2m-5m, or 0; got %q", s)
	}
	minGap, err1 := time.ParseDuration(strings.TrimSpace(lo))
	maxGap, err2 := time.ParseDuration(strings.TrimSpace(hi))
	if err1 != nil || err2 != nil {
		return Spacing{}, fmt.Errorf("LINKEDIN_ACTION_SPACING must be MIN-MAX as Go durations like 2m-5m, or 0; got %q", s)
	}
	sp := Spacing{Min: minGap, Max: maxGap, Immediate: minGap == 0 && maxGap == 0}
	return sp, sp.Validate()
}

// Validate refuses a negative gap or a maximum below the minimum.
func (s Spacing) Validate() error {
	if s.Min < 0 || s.Max < s.Min {
		return fmt.Errorf("LINKEDIN_ACTION_SPACING: the gap must be MIN-MAX with 0 <= MIN <= MAX, got %s-%s", s.Min, s.Max)
	}
	return nil
}

func (s Spacing) orDefault() Spacing {
	if !s.Immediate && s.Min == 0 && s.Max == 0 {
		return DefaultSpacing()
	}
	return s
}

// gap draws the wait after one action.
func (s Spacing) gap() time.Duration {
	if s.Immediate || s.Max <= s.Min {
		return s.Min
	}
	return s.Min + rand.N(s.Max-s.Min+1)
}

func (s Spacing) String() string {
	if s.Immediate {
		return "0"
	}
	return s.Min.String() + "-" + s.Max.String()
}
