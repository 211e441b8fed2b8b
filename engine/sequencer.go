package engine

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"outreachd/outreach"
)

// campaignRun is one campaign as the sequencer works it in a pass.
type campaignRun struct {
	c     engineCampaign
	steps []outreach.SequenceStep
	win   outreach.Window
}

func (r campaignRun) block() *outreach.CampaignBlock {
	return &outreach.CampaignBlock{ID: r.c.ID, Name: r.c.Name}
}

// runSequencer leases due campaigns batch by batch and works each one.
func (e *Engine) runSequencer(ctx context.Context, st *PassStats) error {
	if e.li == nil {
		return nil
	}
	seen := map[string]bool{}
	for range 1000 {
		now := e.clock.Now()
		camps, err := claimCampaigns(ctx, e.db, e.cfg.InstanceID, now, e.cfg.CampaignBatch, e.cfg.Lease)
		if err != nil {
			return err
		}
		fresh := 0
		runs := make([]*campaignRun, len(camps))
		var ids []string
		var since []time.Time
		for i, c := range camps {
			if !seen[c.ID] {
				fresh++
			}
			seen[c.ID] = true
			st.Campaigns++
			if runs[i], err = e.prepare(ctx, c, now); err != nil {
				e.log.Warn("engine: campaign", "campaign", c.ID, "err", err)
				continue
			}
			if runs[i] != nil {
				ids, since = append(ids, c.ID), append(since, runs[i].win.DayStart(now))
			}
		}
		sent, err := campaignSendsSinceMany(ctx, e.db, ids, since)
		if err != nil {
			for _, r := range runs {
				if r != nil {
					_ = releaseCampaign(context.WithoutCancel(ctx), e.db, r.c.ID, e.cfg.InstanceID, now, now.Add(time.Hour))
				}
			}
			return err
		}
		for _, r := range runs {
			if r == nil {
				continue
			}
			if err := e.runCampaign(ctx, *r, now, sent[r.c.ID], st); err != nil {
				e.log.Warn("engine: campaign", "campaign", r.c.ID, "err", err)
			}
		}
		if len(camps) < e.cfg.CampaignBatch || fresh == 0 {
			return nil
		}
	}
	return nil
}

// prepare parses a leased campaign's schedule and sequence. It returns nil (lease released)
// when the campaign has nothing to do now: outside its window, or unreadable.
func (e *Engine) prepare(ctx context.Context, c engineCampaign, now time.Time) (*campaignRun, error) {
	fallback := now.Add(time.Hour)
	release := func(notBefore time.Time) error {
		return releaseCampaign(context.WithoutCancel(ctx), e.db, c.ID, e.cfg.InstanceID, notBefore, fallback)
	}
	sched, err := outreach.ParseSchedule(c.Schedule)
	if err != nil {
		return nil, errors.Join(err, release(fallback))
	}
	steps, _, err := outreach.ParseSequence(c.Sequence, c.OutreachType)
	if err != nil {
		return nil, errors.Join(err, release(fallback))
	}
	w, err := sched.Window()
	if err != nil {
		return nil, errors.Join(err, release(fallback))
	}
	if !w.Contains(now) {
		return nil, release(w.NextOpen(now))
	}
	return &campaignRun{c: c, steps: steps, win: w}, nil
}

// runCampaign sends what is due in one campaign now, inside its window and under its daily
// limit (sent is what it sent since its local midnight), then releases the lease with the time
// to look again.
func (e *Engine) runCampaign(ctx context.Context, run campaignRun, now time.Time, sent int, st *PassStats) error {
	c, w := run.c, run.win
	fallback := now.Add(time.Hour)
	release := func(notBefore time.Time) error {
		return releaseCampaign(context.WithoutCancel(ctx), e.db, c.ID, e.cfg.InstanceID, notBefore, fallback)
	}
	budget := c.DailyLimit - sent
	notBefore := now
	ended := false
	anyDue := false
	done := map[string]bool{}
	// A campaign with several seats goes on while one of them can act: a seat that cannot
	// (its pace, a cap, down) rests for the rest of the pass, and the people no seat reached yet
	// go to the others.
	several := len(c.AccountIDs) > 1
	resting := map[string]time.Time{}
	allResting := false
loop:
	for budget > 0 {
		ids, err := dueProspectIDs(ctx, e.db, c.ID, now, budget+25)
		if err != nil {
			_ = release(now)
			return err
		}
		progressed := false
		for _, id := range ids {
			if done[id] {
				continue
			}
			done[id] = true
			progressed, anyDue = true, true
			out, err := e.step(ctx, run, id, now, resting)
			for several && err == nil && out.seat != "" {
				until := out.restsUntil(now)
				if until.IsZero() {
					break
				}
				_, before := resting[out.seat]
				if !before {
					resting[out.seat] = until
				}
				if !out.unassigned {
					break
				}
				if before { // the best seat left for a new person is resting too: all are
					allResting = true
					break
				}
				out, err = e.step(ctx, run, id, now, resting) // the next seat of the campaign
			}
			if err != nil {
				e.log.Warn("engine: step", "prospect", id, "err", err)
				continue
			}
			if out.acted {
				st.Steps++
			}
			ended = ended || out.ended
			if out.sent {
				st.Sends++
				e.ops.sent(c.ID, c.OrgID, out.invite)
				if budget--; budget == 0 {
					break loop
				}
			}
			if several && out.seat != "" {
				if allResting {
					break loop
				}
				continue
			}
			if out.seatDown {
				notBefore = now.Add(15 * time.Minute)
				break loop
			}
			if !out.wait.IsZero() {
				notBefore = out.wait
				break loop
			}
		}
		if !progressed || len(ids) < budget+25 {
			break
		}
	}
	if len(resting) > 0 {
		// Look again when the first resting seat may act, or within a quarter of an hour: the
		// campaign's next look is never earlier than its first due step (releaseCampaign), and a
		// seat resting until tomorrow must not hold back the steps of the others.
		first := slices.MinFunc(slices.Collect(maps.Values(resting)), time.Time.Compare)
		notBefore = first
		if later := now.Add(15 * time.Minute); first.After(later) {
			notBefore = later
		}
	}
	if budget <= 0 {
		notBefore = w.NextDayOpen(now)
	}
	if err := release(notBefore); err != nil {
		return err
	}
	if ended || !anyDue {
		completed, err := completeCampaignIfDone(ctx, e.store, c.ID, now)
		if err != nil {
			return err
		}
		if completed {
			st.Completed++
			e.ops.completed(c.ID, c.OrgID)
		}
	}
	return nil
}

type stepOutcome struct {
	acted    bool      // something changed for the prospect
	sent     bool      // an invite or a sequence message went out (counts against the daily limit)
	invite   bool      // what went out was an invite
	ended    bool      // the prospect's sequence ended
	seatDown bool      // the seat cannot act now; stop this campaign for the pass
	wait     time.Time // the seat may not act before then (its pace); stop this campaign until then
	// seat is the seat the step was for ("" when there is none); unassigned, that the prospect
	// had none of its own and its campaign has several, so another may take it.
	seat       string
	unassigned bool
	rest       time.Time // a cap of the seat holds until then (a prospect no seat reached yet)
}

// restsUntil is until when the step's seat cannot act for this campaign's pass (zero: it can,
// or the step did not find out): its pace, a cap, a rate limit's end, or a quarter of an hour
// for a seat that is down.
func (o stepOutcome) restsUntil(now time.Time) time.Time {
	switch {
	case !o.wait.IsZero():
		return o.wait
	case !o.rest.IsZero():
		return o.rest
	case o.seatDown:
		return now.Add(15 * time.Minute)
	}
	return time.Time{}
}

// halted reports a prospect the sequence must not touch: paused (POST /inbox/stop), lost,
// booked, ended, or in a final status.
func halted(p engineProspect) bool {
	return settled(p.Status) || p.PausedAt != nil || p.LostAt != nil || p.BookedAt != nil || p.SequenceEndedAt != nil ||
		p.FilterVerdict != "accepted"
}
