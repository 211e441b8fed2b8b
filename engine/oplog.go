package engine

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"
)

// What the engine tells an operator at info level: campaigns launched (by whichever process)
// and completed, and per
// campaign how many invitations and messages went out, plus the engine's replies and stalls. At
// most one line per campaign and one summary line per interval (a minute by default), whatever
// the pass rate, and never a lead's name or text: ids and counts only.

// maxCampaignLines caps the per-campaign lines of one interval; the rest are folded into one.
const maxCampaignLines = 20

type opLog struct {
	log   *slog.Logger
	every time.Duration
	now   func() time.Time // wall clock; replaceable in tests

	mu      sync.Mutex
	last    time.Time // wall time of the last flush; zero: never
	since   time.Time // database time up to which milestones were logged
	camps   map[string]*campTally
	replies int
	stalls  int
	reports int
}

type campTally struct {
	org               string
	invites, messages int
}

func newOpLog(log *slog.Logger, every time.Duration) *opLog {
	return &opLog{log: log, every: every, now: time.Now, camps: map[string]*campTally{}}
}

// sent counts one invitation or sequence message of a campaign.
func (o *opLog) sent(campaignID, orgID string, invite bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t := o.camps[campaignID]
	if t == nil {
		t = &campTally{org: orgID}
		o.camps[campaignID] = t
	}
	if invite {
		t.invites++
	} else {
		t.messages++
	}
}

// pass adds a pass's engine-wide counts.
func (o *opLog) pass(st PassStats) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.replies += st.Replies
	o.stalls += st.Stalls
	o.reports += st.Reports
}

// launchReader reads the campaigns launched since a point (campaignLaunches).
type launchReader func(ctx context.Context, since time.Time, limit int) ([]campaignLaunch, time.Time, error)

// flush writes the interval's lines when the interval has passed; milestones (the campaigns
// launched) come from launches, when there is one.
func (o *opLog) flush(ctx context.Context, launches launchReader) {
	o.mu.Lock()
	now := o.now()
	first := o.last.IsZero()
	if !first && now.Sub(o.last) < o.every {
		o.mu.Unlock()
		return
	}
	o.last = now
	if first {
		// The first call starts the first interval: counts so far are carried into it, and
		// launches are logged from now on (not those before this process started).
		o.mu.Unlock()
		if launches != nil {
			if _, dbNow, err := launches(ctx, time.Time{}, 0); err == nil {
				o.mu.Lock()
				o.since = dbNow
				o.mu.Unlock()
			}
		}
		return
	}
	camps, replies, stalls, reports, since := o.camps, o.replies, o.stalls, o.reports, o.since
	o.camps, o.replies, o.stalls, o.reports = map[string]*campTally{}, 0, 0, 0
	o.mu.Unlock()

	if launches != nil {
		ms, dbNow, err := launches(ctx, since, maxCampaignLines+1)
		if err == nil {
			for i, m := range ms {
				if i == maxCampaignLines {
					o.log.Info("more campaigns launched; they are logged in the next minutes")
					break
				}
				o.log.Info("campaign launched", "campaign", m.ID, "org", m.OrgID)
				dbNow = m.At // resume after the last one logged
			}
			o.mu.Lock()
			o.since = dbNow
			o.mu.Unlock()
		}
	}
	ids := make([]string, 0, len(camps))
	for id := range camps {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var moreInv, moreMsg int
	for i, id := range ids {
		t := camps[id]
		if i >= maxCampaignLines {
			moreInv, moreMsg = moreInv+t.invites, moreMsg+t.messages
			continue
		}
		o.log.Info("campaign sends", "campaign", id, "org", t.org, "invitations_sent", t.invites, "messages_sent", t.messages,
			"over", o.every.String())
	}
	if len(ids) > maxCampaignLines {
		o.log.Info("campaign sends in other campaigns", "campaigns", len(ids)-maxCampaignLines,
			"invitations_sent", moreInv, "messages_sent", moreMsg, "over", o.every.String())
	}
	if replies+stalls > 0 {
		o.log.Info("engine replies", "replies_sent", replies, "stalls", stalls, "reports_handled", reports, "over", o.every.String())
	}
}

// completed logs a campaign the engine completed (once per campaign, as completion is).
func (o *opLog) completed(campaignID, orgID string) {
	o.log.Info("campaign completed", "campaign", campaignID, "org", orgID)
}
