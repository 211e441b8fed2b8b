package engine

import (
	"context"
	"errors"
	"strings"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// This file is one step of one prospect (the stepper): what phase 1 of its action decides
// (plan) and what phase 3 records (record); sequencer.go runs the phases, action.go holds what
// every action shares, step_record.go what each kind of step records.

// stepper holds one step's context inside one of its transactions.
type stepper struct {
	e   *Engine
	tx  *storage.Tx
	run campaignRun
	p   *engineProspect
	acc storage.LinkedInAccount
	now time.Time
	out *stepOutcome
	// check: only an action left open is checked (act); nothing is started or ended.
	check bool
	// spread: the prospect has no seat yet and its campaign has several; a seat that cannot act
	// now (a cap reached) leaves the prospect due, for another seat of the campaign to reach.
	spread bool
}

// ref names the prospect to the provider, by member id when a look-up found it (or the key is
// one).
func (s *stepper) ref() outreach.ProfileRef { return profileRef(s.p.Prospect, s.p.MemberID) }

// profileRef names a person to the provider: by member id when a look-up found it (memberID) or
// the lead key is one.
func profileRef(p storage.Prospect, memberID *string) outreach.ProfileRef {
	r := outreach.ProfileRef{ProfileKey: p.LeadKey, Name: p.Name}
	if p.PublicIdentifier != nil {
		r.PublicIdentifier = *p.PublicIdentifier
	}
	switch {
	case memberID != nil:
		r.ProviderID = *memberID
	case strings.HasPrefix(p.LeadKey, "id:"):
		r.ProviderID = strings.TrimPrefix(p.LeadKey, "id:")
	}
	return r
}

func (s *stepper) emit(kind outreach.EventKind, data outreach.EventData) {
	data.Prospect = s.p.Prospect.EventBlock()
	data.Campaign = s.run.block()
	s.tx.Emit(outreach.NewEvent(kind, s.p.OrgID, s.now, data))
}

func (s *stepper) activity(kind string, step *int) error {
	return insertActivity(context.Background(), s.tx, activity{OrgID: s.p.OrgID, CampaignID: &s.p.CampaignID,
		ProspectID: &s.p.ID, AccountID: &s.acc.ID, Kind: kind, Step: step, At: s.now})
}

// retryLater keeps the prospect due a while later (an unexpected provider answer); a prospect
// that left the sequence meanwhile stays out of it.
func (s *stepper) retryLater(ctx context.Context, d time.Duration) error {
	if !halted(*s.p) {
		s.p.NextStepAt = timePtr(s.now.Add(d))
	}
	return saveEngineProspect(ctx, s.tx, *s.p)
}

// plan decides the prospect's due step in phase 1 (the seat g and the prospect are locked): the
// action to take on LinkedIn, or nil when there is none now (the sequence ended here, the seat
// cannot act, or the action is under way elsewhere).
func (s *stepper) plan(ctx context.Context, g seatGate) (*intent, error) {
	in := &intent{ref: s.ref(), act: action{OrgID: s.p.OrgID, ProspectID: &s.p.ID}}
	lookUp := false
	outbound := s.run.c.OutreachType != outreach.OutreachInbound
	switch {
	case outbound && s.p.InvitedAt == nil && s.p.ConnectedAt == nil:
		in.act.Kind = actInvite
		if len(s.run.steps) > 0 && s.run.steps[0].Type == outreach.StepConnect {
			in.text = outreach.Personalize(s.run.steps[0].Text, s.p.Variables())
		}
		lookUp = in.ref.ProviderID == ""
	case outbound && s.p.ConnectedAt == nil:
		in.act.Kind = actWithdraw
		if s.p.InviteID != nil {
			in.target = *s.p.InviteID
		}
	default:
		i := nextMessageStep(s.run.steps, s.p.CurrentStep)
		if i >= len(s.run.steps) {
			if s.check {
				return nil, nil
			}
			return nil, s.finish(ctx)
		}
		in.act.Kind, in.act.Step, in.step = actMessage, i, i
		in.text = outreach.Personalize(s.run.steps[i].Text, s.p.Variables())
		in.target, in.resync = s.p.LeadKey, s.p.ConnectedAt != nil
		if s.p.ChatID != nil {
			in.chatID, in.target = *s.p.ChatID, *s.p.ChatID
		}
	}
	in.act.TextHash, in.checkOnly = textHash(in.text), s.check
	r, err := s.e.begin(ctx, s.tx, g, in, lookUp, s.now)
	if err != nil || r.in != nil || s.check {
		return r.in, err
	}
	switch {
	case r.down:
		s.out.seatDown = true
		if r.wait.IsZero() || s.spread {
			s.out.rest = r.wait
			return nil, nil
		}
		s.p.NextStepAt = &r.wait // an invitation waits out the seat's rate limit
	case r.capped != "" && s.spread:
		s.out.rest = r.wait // another seat of the campaign may reach them now
		return nil, nil
	case r.capped != "":
		s.e.log.Debug("engine: seat cap reached", "account", g.acc.ID, "cap", r.capped, "prospect", s.p.ID,
			"until", r.wait)
		s.p.NextStepAt = &r.wait
	case !r.wait.IsZero():
		s.out.wait = r.wait // the seat's pace: stop this campaign until then
		return nil, nil
	case r.done:
		// The action was recorded as carried out, yet the step is due again (the prospect was
		// moved back by hand): nothing is sent twice; look again later.
		s.e.log.Warn("engine: step already carried out", "prospect", s.p.ID, "kind", in.act.Kind, "step", in.act.Step)
		s.p.NextStepAt = timePtr(s.now.Add(time.Hour))
	default:
		return nil, nil // under way in another instance
	}
	return nil, saveEngineProspect(ctx, s.tx, *s.p)
}

// nextMessageStep is the index of the first message step at or after i, or len(steps).
func nextMessageStep(steps []outreach.SequenceStep, i int) int {
	for i < len(steps) && steps[i].Type != outreach.StepMessage {
		i++
	}
	return i
}

// finish ends a sequence that has nothing more to send.
func (s *stepper) finish(ctx context.Context) error {
	if s.p.Status != outreach.ProspectReplied && s.p.Status != outreach.ProspectOptedOut {
		s.p.Status = outreach.ProspectCompleted
	}
	s.p.NextStepAt, s.p.SequenceEndedAt = nil, timePtr(s.now)
	s.out.acted, s.out.ended = true, true
	if err := closeFollowups(ctx, s.tx, s.p.ID, s.now); err != nil {
		return err
	}
	return saveEngineProspect(ctx, s.tx, *s.p)
}

// schedule sets when the prospect's next step is due after an action that was carried out: a
// prospect stopped while the call was under way keeps the wait until it for the resume (which
// counts paused_next_step_at - paused_at from the resume), and one that left the sequence
// meanwhile (blocked, lost, booked, answered, ended) gets none.
func (s *stepper) schedule(at *time.Time) {
	switch {
	case s.p.PausedAt != nil && s.p.SequenceEndedAt == nil && s.p.Status != outreach.ProspectOptedOut:
		s.p.NextStepAt, s.p.PausedNextStepAt = nil, timePtr(s.p.PausedAt.Add(at.Sub(s.now)))
	case halted(*s.p):
		s.p.NextStepAt = nil
	default:
		s.p.NextStepAt = at
	}
}

// settled reports a status an action must not overwrite: the person left the sequence.
func settled(status string) bool {
	return status == outreach.ProspectOptedOut || status == outreach.ProspectCompleted || status == outreach.ProspectReplied
}

// bumpRecheckFailed hands the conversation to a person: the thread could not be re-read
// before a follow-up, so sending it blind might talk over a reply.
func (s *stepper) bumpRecheckFailed(ctx context.Context, cause error) error {
	s.e.log.Warn("engine: thread re-read failed", "prospect", s.p.ID, "err", cause)
	if err := s.finishForHuman(ctx); err != nil {
		return err
	}
	return s.e.queueForHuman(ctx, s.tx, humanItem{p: s.p, campaign: s.run.block(), chatID: *s.p.ChatID,
		reason: outreach.ReasonBumpRecheckFailed, sentiment: outreach.SentimentNeutral, at: s.now})
}

func (s *stepper) finishForHuman(ctx context.Context) error {
	s.p.NextStepAt, s.p.SequenceEndedAt = nil, timePtr(s.now)
	s.out.acted, s.out.ended = true, true
	if err := closeFollowups(ctx, s.tx, s.p.ID, s.now); err != nil {
		return err
	}
	return saveEngineProspect(ctx, s.tx, *s.p)
}

// errorsIsAny reports whether err is any of targets.
func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
