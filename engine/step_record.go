package engine

import (
	"context"
	"errors"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// Phase 3 of a step: the outcome of its action and everything it causes, recorded on the
// prospect as it stands now (locked and re-read: a stop, block or reply that landed during the
// call is honoured).

// record finishes the action's attempt and records what it causes; nothing is written when
// the attempt is no longer this instance's.
func (s *stepper) record(ctx context.Context, in *intent, r callResult) error {
	var done bool
	switch in.act.Kind {
	case actInvite:
		done = succeeded(in, r, outreach.ErrAlreadyInvited, outreach.ErrAlreadyConnected)
	case actWithdraw:
		done = succeeded(in, r, outreach.ErrNoPendingInvite, outreach.ErrNotConnected, outreach.ErrUnknownProfile)
	default:
		done = succeeded(in, r)
	}
	ok, err := finishAction(ctx, s.tx, in.act.ID, in.act.Attempts, attemptEnd(in, r, done, s.now))
	if err != nil || !ok {
		return err
	}
	if err := finishView(ctx, s.tx, in.view, r, s.p, s.now); err != nil {
		return err
	}
	if !done {
		return s.notDone(ctx, in, r)
	}
	switch in.act.Kind {
	case actInvite:
		return s.invited(ctx, r)
	case actWithdraw:
		return s.withdrawn(ctx)
	}
	return s.messaged(ctx, in, r)
}

// notDone handles an action that was not carried out, or whose outcome is not known yet (the
// prospect stays due: the next look checks it).
func (s *stepper) notDone(ctx context.Context, in *intent, r callResult) error {
	switch {
	case r.unknown || in.reconcile:
		s.out.seatDown = seatDown(r.err)
		return saveEngineProspect(ctx, s.tx, *s.p)
	case seatDown(r.err):
		s.out.seatDown = true
		return saveEngineProspect(ctx, s.tx, *s.p)
	case r.wrote:
		// The person wrote; their report is on its way and ends the sequence.
		return s.retryLater(ctx, 10*time.Minute)
	case r.reread != nil && !halted(*s.p):
		return s.bumpRecheckFailed(ctx, r.reread)
	case errors.Is(r.viewErr, outreach.ErrUnknownProfile) && !halted(*s.p):
		s.e.log.Debug("engine: LinkedIn does not know the person, sequence ends", "prospect", s.p.ID)
		return s.finish(ctx)
	case in.act.Kind == actMessage && notConnected(r.err) && !halted(*s.p):
		// Inbound: not a connection after all. Nothing can be sent; the sequence ends.
		s.e.log.Debug("engine: not connected, sequence ends", "prospect", s.p.ID)
		return s.finish(ctx)
	}
	s.e.log.Warn("engine: "+in.act.Kind, "prospect", s.p.ID, "err", r.err)
	return s.retryLater(ctx, time.Hour)
}

// invited records an invitation sent.
func (s *stepper) invited(ctx context.Context, r callResult) error {
	if !settled(s.p.Status) {
		s.p.Status = outreach.ProspectConnectionSent
	}
	s.p.InvitedAt, s.p.AccountID, s.p.Contacted = timePtr(s.now), &s.acc.ID, true
	s.p.InviteID = nil
	if r.inviteID != "" {
		s.p.InviteID = &r.inviteID
	}
	if len(s.run.steps) > 0 && s.run.steps[0].Type == outreach.StepConnect && s.p.CurrentStep == 0 {
		s.p.CurrentStep = 1
	}
	s.schedule(timePtr(s.now.Add(s.e.cfg.InviteExpiry)))
	s.p.LastActivityAt = timePtr(s.now)
	s.out.acted, s.out.sent, s.out.invite = true, true, true
	if err := saveEngineProspect(ctx, s.tx, *s.p); err != nil {
		return err
	}
	if err := s.activity(outreach.ActivityInviteSent, new(0)); err != nil {
		return err
	}
	s.emit(outreach.EventInviteSent, outreach.EventData{})
	return nil
}

// withdrawn records an invitation nobody answered within InviteExpiry taken back; the sequence
// ends.
func (s *stepper) withdrawn(ctx context.Context) error {
	if !settled(s.p.Status) {
		s.p.Status = outreach.ProspectCompleted
	}
	if s.p.SequenceEndedAt == nil {
		s.p.SequenceEndedAt = timePtr(s.now)
	}
	s.p.NextStepAt, s.p.PausedNextStepAt, s.p.WithdrawnAt = nil, nil, timePtr(s.now)
	s.out.acted, s.out.ended = true, true
	if err := saveEngineProspect(ctx, s.tx, *s.p); err != nil {
		return err
	}
	if err := closeFollowups(ctx, s.tx, s.p.ID, s.now); err != nil {
		return err
	}
	if err := s.activity(outreach.ActivityInviteWithdrawn, nil); err != nil {
		return err
	}
	s.emit(outreach.EventInviteWithdrawn, outreach.EventData{})
	return nil
}

// messaged records a sequence message sent and schedules the next step (or the end of the
// reply window after the last one).
func (s *stepper) messaged(ctx context.Context, in *intent, r callResult) error {
	provChat, text := r.chatID, in.text
	if provChat == "" {
		provChat = in.chatID
	}
	if r.text != "" {
		text = r.text // found by a check: what was sent, should the sequence's text have changed since
	}
	chat, _, err := recordChatMessage(ctx, s.tx, chatRecord{OrgID: s.p.OrgID, AccountID: s.acc.ID,
		ProviderChatID: provChat, LeadKey: s.p.LeadKey, ProspectID: &s.p.ID, AttendeeName: s.p.Name, FromMe: true,
		Text: text, ProviderMessageID: r.messageID, At: s.now})
	if err != nil {
		return err
	}
	s.p.ChatID, s.p.AccountID, s.p.Contacted = &chat, &s.acc.ID, true
	if !settled(s.p.Status) {
		s.p.Status = outreach.ProspectMessaged
	}
	s.p.CurrentStep = in.step + 1
	s.p.LastActivityAt = timePtr(s.now)
	j := nextMessageStep(s.run.steps, in.step+1)
	if j < len(s.run.steps) {
		s.schedule(timePtr(s.now.Add(days(s.run.steps[j].DelayDays))))
	} else {
		s.schedule(timePtr(s.now.Add(s.e.cfg.ReplyWindow)))
	}
	if j < len(s.run.steps) && s.p.NextStepAt != nil {
		err = openFollowup(ctx, s.tx, s.p.OrgID, s.p.ID, &chat, *s.p.NextStepAt, j)
	} else {
		err = closeFollowups(ctx, s.tx, s.p.ID, s.now)
	}
	if err != nil {
		return err
	}
	s.out.acted, s.out.sent = true, true
	if err := saveEngineProspect(ctx, s.tx, *s.p); err != nil {
		return err
	}
	if err := s.activity(outreach.ActivityMessageSent, new(in.step)); err != nil {
		return err
	}
	recent, err := storage.RecentTurns(ctx, s.tx, chat, outreach.MaxRecentConversation)
	if err != nil {
		return err
	}
	s.emit(outreach.EventMessageSent, outreach.EventData{Message: &outreach.MessageBlock{Text: text, ChatID: chat,
		RecentConversation: recent}})
	return nil
}
