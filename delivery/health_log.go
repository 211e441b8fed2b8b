package delivery

import (
	"context"
	"log/slog"
	"time"
)

// What the hub tells an operator: a destination starting to fail and recovering, and the hub
// falling behind and catching up. Transitions only, at most linesPerWindow lines per destination
// (and for the backlog) per window, with a reminder while behind; ids and counts, never a URL
// (a Slack webhook URL is a credential) nor a payload.

const (
	// failingAfter is the run of failed attempts after which a destination counts as failing.
	failingAfter = 3
	// behindAfter is how late the longest-waiting due delivery may be before the hub is behind.
	behindAfter    = 30 * time.Second
	logWindow      = time.Minute
	linesPerWindow = 2
	// watchLimit bounds the destinations looked at per refresh.
	watchLimit = 500
)

type healthLog struct {
	log     *slog.Logger
	now     func() time.Time
	failing map[string]bool // destination id -> counted as failing
	lines   map[string][]time.Time
	behind  bool
}

func newHealthLog(log *slog.Logger) *healthLog {
	return &healthLog{log: log, now: time.Now, failing: map[string]bool{}, lines: map[string][]time.Time{}}
}

// allow reports whether one more line about key fits in the window.
func (l *healthLog) allow(key string) bool {
	now := l.now()
	kept := l.lines[key][:0]
	for _, t := range l.lines[key] {
		if now.Sub(t) < logWindow {
			kept = append(kept, t)
		}
	}
	if len(kept) >= linesPerWindow {
		l.lines[key] = kept
		return false
	}
	l.lines[key] = append(kept, now)
	return true
}

// destinations compares the destinations' runs of failures with the last refresh.
func (l *healthLog) destinations(ds []DestinationFailures) {
	seen := map[string]bool{}
	for _, d := range ds {
		seen[d.ID] = true
		was := l.failing[d.ID]
		switch {
		case !was && d.Enabled && d.ConsecutiveFailures >= failingAfter:
			l.failing[d.ID] = true
			if l.allow(d.ID) {
				l.log.Warn("delivery: destination failing", "destination", d.ID, "org", d.OrgID, "kind", d.Kind,
					"consecutive_failures", d.ConsecutiveFailures)
			}
		case was && d.ConsecutiveFailures == 0:
			delete(l.failing, d.ID)
			if l.allow(d.ID) {
				l.log.Info("delivery: destination recovered", "destination", d.ID, "org", d.OrgID, "kind", d.Kind)
			}
		case was && !d.Enabled:
			delete(l.failing, d.ID) // disabled while failing: nothing more will be sent to it
		}
	}
	for id := range l.failing {
		if !seen[id] {
			delete(l.failing, id) // deleted
		}
	}
	for id, ts := range l.lines {
		if len(ts) > 0 && l.now().Sub(ts[len(ts)-1]) >= logWindow && !l.failing[id] {
			delete(l.lines, id)
		}
	}
}

// backlog compares the queue with the hub's pace.
func (l *healthLog) backlog(st DeliveryQueueStats) {
	late := st.OldestDue > behindAfter
	switch {
	case late && (!l.behind || l.allow("backlog")):
		if !l.behind {
			l.lines["backlog"] = []time.Time{l.now()}
		}
		l.behind = true
		l.log.Warn("delivery: falling behind", "due", st.Due, "pending", st.Pending, "oldest_due", st.OldestDue.Round(time.Second).String())
	case !late && l.behind:
		l.behind = false
		l.log.Info("delivery: caught up", "due", st.Due, "pending", st.Pending)
	}
}

// observe runs both checks on one refresh of the queue stats.
func (l *healthLog) observe(ctx context.Context, store *Store, st DeliveryQueueStats) {
	l.backlog(st)
	watch := make([]string, 0, len(l.failing))
	for id := range l.failing {
		watch = append(watch, id)
	}
	ds, err := store.DestinationsFailing(ctx, watch, watchLimit)
	if err != nil {
		return
	}
	l.destinations(ds)
}
