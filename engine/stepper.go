package engine

import (
	"context"
	"errors"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// This file is one step of one prospect (the stepper); sequencer.go chooses the campaigns and
// prospects whose step is due.

// stepper holds one step's context.
type stepper struct {
	e   *Engine
	tx  *storage.Tx
	run campaignRun
	p   *engineProspect
	acc storage.LinkedInAccount
	now time.Time
	out *stepOutcome
}

func (s *stepper) ref() outreach.ProfileRef {
	pub := ""
	if s.p.PublicIdentifier != nil {
		pub = *s.p.PublicIdentifier
	}
	return outreach.ProfileRef{ProfileKey: s.p.LeadKey, PublicIdentifier: pub, Name: s.p.Name}
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

// retryLater keeps the prospect due a while later (an unexpected provider answer).
func (s *stepper) retryLater(ctx context.Context, d time.Duration) error {
	s.p.NextStepAt = timePtr(s.now.Add(d))
	return saveEngineProspect(ctx, s.tx, *s.p)
}

func (s *stepper) invite(ctx context.Context) error {
	if s.acc.Status == "rate_limited" && s.acc.CooldownUntil != nil && s.acc.CooldownUntil.After(s.now) {
		s.out.seatDown = true
		s.p.NextStepAt = timePtr(*s.acc.CooldownUntil)
		return saveEngineProspect(ctx, s.tx, *s.p)
	}
	note := ""
	connectStep := len(s.run.steps) > 0 && s.run.steps[0].Type == outreach.StepConnect
	if connectStep {
		note = outreach.Personalize(s.run.steps[0].Text, s.p.Variables())
	}
	cctx, cancel := s.e.callCtx(ctx)
	inviteID, err := s.e.li.SendInvite(cctx, s.acc.ProviderAccountID, s.ref(), note)
	cancel()
	switch {
	case err == nil, errors.Is(err, outreach.ErrAlreadyInvited), errors.Is(err, outreach.ErrAlreadyConnected):
	case seatDown(err):
		s.out.seatDown = true
		return nil
	default:
		s.e.log.Warn("engine: invite", "prospect", s.p.ID, "err", err)
		return s.retryLater(ctx, time.Hour)
	}
	s.p.Status, s.p.InvitedAt, s.p.AccountID, s.p.Contacted = outreach.ProspectConnectionSent, timePtr(s.now), &s.acc.ID, true
	s.p.InviteID = nil
	if inviteID != "" {
		s.p.InviteID = &inviteID
	}
	if connectStep {
		s.p.CurrentStep = 1
	}
	s.p.NextStepAt = timePtr(s.now.Add(s.e.cfg.InviteExpiry))
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

// withdraw takes back an invite nobody answered within InviteExpiry and ends the sequence.
func (s *stepper) withdraw(ctx context.Context) error {
	inviteID := ""
	if s.p.InviteID != nil {
		inviteID = *s.p.InviteID
	}
	cctx, cancel := s.e.callCtx(ctx)
	err := s.e.li.WithdrawInvite(cctx, s.acc.ProviderAccountID, inviteID, s.ref())
	cancel()
	switch {
	case err == nil, errors.Is(err, outreach.ErrNoPendingInvite), notConnected(err):
	case seatDown(err):
		s.out.seatDown = true
		return nil
	default:
		return s.retryLater(ctx, time.Hour)
	}
	s.p.Status, s.p.NextStepAt, s.p.SequenceEndedAt, s.p.WithdrawnAt = outreach.ProspectCompleted, nil, timePtr(s.now), timePtr(s.now)
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

// message sends the next message step, or completes the sequence after the last one.
func (s *stepper) message(ctx context.Context) error {
	i := nextMessageStep(s.run.steps, s.p.CurrentStep)
	if i >= len(s.run.steps) {
		return s.finish(ctx)
	}
	if s.p.ChatID != nil {
		// A follow-up: re-read the thread first, so nothing is sent over a reply not yet seen.
		cctx, cancel := s.e.callCtx(ctx)
		msgs, err := s.e.li.Messages(cctx, *s.p.ChatID)
		cancel()
		switch {
		case errors.Is(err, outreach.ErrAccountDisconnected):
			s.out.seatDown = true
			return nil
		case err != nil:
			return s.bumpRecheckFailed(ctx, err)
		case len(msgs) > 0 && !msgs[len(msgs)-1].FromMe:
			// The person wrote; their report is on its way and ends the sequence.
			return s.retryLater(ctx, 10*time.Minute)
		}
	}
	text := outreach.Personalize(s.run.steps[i].Text, s.p.Variables())
	target := s.p.LeadKey
	if s.p.ChatID != nil {
		target = *s.p.ChatID
	}
	chatID, msgID, err := s.send(ctx, target, text)
	switch {
	case err == nil:
	case seatDown(err):
		s.out.seatDown = true
		return nil
	case notConnected(err):
		// Inbound: not a connection after all. Nothing can be sent; the sequence ends.
		s.e.log.Debug("engine: not connected, sequence ends", "prospect", s.p.ID)
		return s.finish(ctx)
	default:
		s.e.log.Warn("engine: message", "prospect", s.p.ID, "err", err)
		return s.retryLater(ctx, time.Hour)
	}
	chat, _, err := recordChatMessage(ctx, s.tx, chatRecord{OrgID: s.p.OrgID, AccountID: s.acc.ID,
		ProviderChatID: chatID, LeadKey: s.p.LeadKey, ProspectID: &s.p.ID, AttendeeName: s.p.Name, FromMe: true,
		Text: text, ProviderMessageID: msgID, At: s.now})
	if err != nil {
		return err
	}
	s.p.ChatID, s.p.AccountID, s.p.Contacted, s.p.Status = &chat, &s.acc.ID, true, outreach.ProspectMessaged
	s.p.CurrentStep = i + 1
	s.p.LastActivityAt = timePtr(s.now)
	if j := nextMessageStep(s.run.steps, i+1); j < len(s.run.steps) {
		s.p.NextStepAt = timePtr(s.now.Add(days(s.run.steps[j].DelayDays)))
		if err := openFollowup(ctx, s.tx, s.p.OrgID, s.p.ID, &chat, *s.p.NextStepAt, j); err != nil {
			return err
		}
	} else {
		s.p.NextStepAt = timePtr(s.now.Add(s.e.cfg.ReplyWindow))
		if err := closeFollowups(ctx, s.tx, s.p.ID, s.now); err != nil {
			return err
		}
	}
	s.out.acted, s.out.sent = true, true
	if err := saveEngineProspect(ctx, s.tx, *s.p); err != nil {
		return err
	}
	if err := s.activity(outreach.ActivityMessageSent, new(i)); err != nil {
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

// send sends a message; a simulator that lost its memory of a connection the database knows
// (a restart, or an operator's report handled without it) is brought back in line first.
func (s *stepper) send(ctx context.Context, target, text string) (string, string, error) {
	cctx, cancel := s.e.callCtx(ctx)
	defer cancel()
	chatID, msgID, err := s.e.li.SendMessage(cctx, s.acc.ProviderAccountID, target, text)
	if (notConnected(err) || errors.Is(err, outreach.ErrUnknownChat)) && s.e.op != nil && s.p.ConnectedAt != nil {
		if s.e.resyncConnection(cctx, s.acc.ProviderAccountID, s.ref()) == nil {
			chatID, msgID, err = s.e.li.SendMessage(cctx, s.acc.ProviderAccountID, s.p.LeadKey, text)
		}
	}
	return chatID, msgID, err
}

// resyncConnection makes a simulator's person connected to the seat: invite, then accept.
func (e *Engine) resyncConnection(ctx context.Context, providerAccountID string, ref outreach.ProfileRef) error {
	if _, err := e.li.SendInvite(ctx, providerAccountID, ref, ""); err != nil && !errors.Is(err, outreach.ErrAlreadyInvited) {
		return err
	}
	if err := e.op.InjectAccept(ref.ProfileKey); err != nil && !errors.Is(err, outreach.ErrNoPendingInvite) {
		return err
	}
	return nil
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
