package engine

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"outreachd/internal/telemetry"
	"outreachd/outreach"
	"outreachd/storage"
)

// step does the one due thing of one prospect. Phase 1, in one transaction under the seat's and
// the prospect's row locks: re-read the prospect, honour stop/block/lost/booked and the
// do-not-contact list, pass the seat's gate and record the intent. Phase 2: the provider's call,
// no transaction open. Phase 3, in a second transaction: the outcome, its activity and events.
// Its span is named after the action taken (trace.go).
func (e *Engine) step(ctx context.Context, run campaignRun, id string, now time.Time, resting map[string]time.Time) (out stepOutcome, err error) {
	ctx, span := e.startSpan(ctx, "engine.step", func() []attribute.KeyValue {
		return []attribute.KeyValue{telemetry.AttrOrg.String(run.c.OrgID), AttrCampaign.String(run.c.ID), AttrProspect.String(id)}
	})
	did := ""
	defer func() { endStep(span, did, err) }()
	out, did, err = e.act(ctx, run, id, now, false, resting)
	return out, err
}

// act is step, or with check the check of an action a prospect no longer due left open (its
// answer lost, or its instance dead): nothing is started then, and the prospect is not ended.
// did is the kind of action taken or checked ("" for none).
//
// resting are the seats of a campaign with several seats that cannot act in this pass (their
// pace, a cap, down): a person no seat has reached yet goes to another seat when one can act.
func (e *Engine) act(ctx context.Context, run campaignRun, id string, now time.Time, check bool, resting map[string]time.Time) (stepOutcome, string, error) {
	var out stepOutcome
	due := func(p engineProspect) bool { return check || (p.NextStepAt != nil && !p.NextStepAt.After(now)) }
	var in *intent
	err := e.store.InTx(ctx, func(tx *storage.Tx) error {
		out, in = stepOutcome{}, nil
		// Which seat acts is read first, so that its row is locked before the prospect's, in the
		// order the report handler locks them.
		p0, err := getEngineProspect(ctx, tx, id)
		if err != nil || !due(p0) {
			return err
		}
		// An outbound campaign's new people are shared among its seats; an inbound campaign
		// writes to connections, who are the connections of the seat it names first.
		share := p0.AccountID == nil && len(run.c.AccountIDs) > 1 && run.c.OutreachType == outreach.OutreachOutbound
		var seat storage.LinkedInAccount
		if share {
			seat, err = pickSharedSeat(ctx, tx, run.c.ID, p0.OrgID, run.c.AccountIDs, slices.Collect(maps.Keys(resting)))
		} else {
			seat, err = pickSendingSeat(ctx, tx, p0.OrgID, p0.AccountID, run.c.AccountIDs)
		}
		noSeat := errors.Is(err, outreach.ErrNotFound)
		if err != nil && !noSeat {
			return err
		}
		if !noSeat {
			out.seat, out.unassigned = seat.ID, share
		}
		var g seatGate
		if !noSeat {
			if g, err = readSeatGate(ctx, tx, seat.ID, now, true); err != nil {
				return err
			}
		}
		p, err := lockEngineProspect(ctx, tx, id)
		if err != nil || !due(p) {
			return err
		}
		if !check {
			if ended, err := e.endIfOut(ctx, tx, &p, now, &out); err != nil || ended {
				return err
			}
		}
		if noSeat || g.acc.Status == "disconnected" {
			out.seatDown = true
			return nil
		}
		if !sameSeat(p.AccountID, p0.AccountID) {
			return nil // the prospect moved to another seat meanwhile: the next pass acts from it
		}
		s := &stepper{e: e, tx: tx, run: run, p: &p, acc: g.acc, now: now, out: &out, check: check, spread: out.unassigned}
		in, err = s.plan(ctx, g)
		return err
	})
	if err != nil || in == nil {
		return out, "", err
	}
	r := e.perform(ctx, in)
	if ctx.Err() != nil {
		return out, in.act.Kind, ctx.Err() // shutting down: the action's lease runs out and the next look checks it
	}
	err = e.store.InTx(ctx, func(tx *storage.Tx) error {
		out = stepOutcome{seat: in.acc.ID}
		if err := e.seatTold(ctx, tx, in.acc.ID, r.err, now); err != nil {
			return err
		}
		p, err := lockEngineProspect(ctx, tx, id)
		if err != nil {
			return err
		}
		s := &stepper{e: e, tx: tx, run: run, p: &p, acc: in.acc, now: now, out: &out}
		return s.record(ctx, in, r)
	})
	return out, in.act.Kind, err
}

// endIfOut ends the sequence of a prospect who left it (stopped, lost, booked, ended) or is on
// the do-not-contact list; true when it did.
func (e *Engine) endIfOut(ctx context.Context, tx *storage.Tx, p *engineProspect, now time.Time, out *stepOutcome) (bool, error) {
	if halted(*p) {
		p.NextStepAt = nil
		out.acted = true
		return true, saveEngineProspect(ctx, tx, *p)
	}
	blocked, err := prospectBlacklisted(ctx, tx, p.Prospect)
	if err != nil || !blocked {
		return false, err
	}
	p.Status, p.NextStepAt, p.SequenceEndedAt = outreach.ProspectOptedOut, nil, timePtr(now)
	out.acted, out.ended = true, true
	if err := closeFollowups(ctx, tx, p.ID, now); err != nil {
		return true, err
	}
	return true, saveEngineProspect(ctx, tx, *p)
}

func sameSeat(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
