package engine

import (
	"context"
	"errors"
	"strings"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// Prospect statuses as the engine moves them:
// pending -> active (admitted) -> connection_sent (invited) -> connected -> messaged ->
// replied | opted_out (negative reply, blacklisted, blocked) | completed (sequence done or
// invite withdrawn). Inbound campaigns skip the invite.
const (
	statusActive         = "active"
	statusConnectionSent = "connection_sent"
	statusConnected      = "connected"
	statusMessaged       = "messaged"
	statusReplied        = "replied"
	statusOptedOut       = "opted_out"
	statusCompleted      = "completed"
)

// campaignRun is one campaign as the sequencer works it in a pass.
type campaignRun struct {
	c     storage.EngineCampaign
	steps []outreach.SequenceStep
	win   window
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
		camps, err := e.store.ClaimCampaigns(ctx, e.cfg.InstanceID, now, e.cfg.CampaignBatch, e.cfg.Lease)
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
				ids, since = append(ids, c.ID), append(since, runs[i].win.dayStart(now))
			}
		}
		sent, err := e.store.CampaignSendsSinceMany(ctx, ids, since)
		if err != nil {
			for _, r := range runs {
				if r != nil {
					_ = e.store.ReleaseCampaign(context.WithoutCancel(ctx), r.c.ID, e.cfg.InstanceID, now, now.Add(time.Hour))
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
func (e *Engine) prepare(ctx context.Context, c storage.EngineCampaign, now time.Time) (*campaignRun, error) {
	fallback := now.Add(time.Hour)
	release := func(notBefore time.Time) error {
		return e.store.ReleaseCampaign(context.WithoutCancel(ctx), c.ID, e.cfg.InstanceID, notBefore, fallback)
	}
	sched, err := outreach.ParseSchedule(c.Schedule)
	if err != nil {
		return nil, errors.Join(err, release(fallback))
	}
	steps, _, err := outreach.ParseSequence(c.Sequence, c.OutreachType)
	if err != nil {
		return nil, errors.Join(err, release(fallback))
	}
	w, err := newWindow(sched)
	if err != nil {
		return nil, errors.Join(err, release(fallback))
	}
	if !w.contains(now) {
		return nil, release(w.nextOpen(now))
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
		return e.store.ReleaseCampaign(context.WithoutCancel(ctx), c.ID, e.cfg.InstanceID, notBefore, fallback)
	}
	budget := c.DailyLimit - sent
	notBefore := now
	ended := false
	anyDue := false
	done := map[string]bool{}
loop:
	for budget > 0 {
		ids, err := e.store.DueProspectIDs(ctx, c.ID, now, budget+25)
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
			out, err := e.step(ctx, run, id, now)
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
			if out.seatDown {
				notBefore = now.Add(15 * time.Minute)
				break loop
			}
		}
		if !progressed || len(ids) < budget+25 {
			break
		}
	}
	if budget <= 0 {
		notBefore = w.nextDayOpen(now)
	}
	if err := release(notBefore); err != nil {
		return err
	}
	if ended || !anyDue {
		completed, err := e.store.CompleteCampaignIfDone(ctx, c.ID, now)
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
	acted    bool // something changed for the prospect
	sent     bool // an invite or a sequence message went out (counts against the daily limit)
	invite   bool // what went out was an invite
	ended    bool // the prospect's sequence ended
	seatDown bool // the seat cannot act now; stop this campaign for the pass
}

// halted reports a prospect the sequence must not touch: paused (POST /inbox/stop), lost,
// booked, ended, or in a final status.
func halted(p storage.EngineProspect) bool {
	switch p.Status {
	case statusOptedOut, statusCompleted, statusReplied:
		return true
	}
	return p.PausedAt != nil || p.LostAt != nil || p.BookedAt != nil || p.SequenceEndedAt != nil ||
		p.FilterVerdict != "accepted"
}

// step does the one due thing of one prospect in one transaction: re-read and lock the row,
// honour stop/block/lost/booked and the do-not-contact list, act on LinkedIn, record the
// result, its activity and its events.
func (e *Engine) step(ctx context.Context, run campaignRun, id string, now time.Time) (stepOutcome, error) {
	var out stepOutcome
	err := e.store.InTx(ctx, func(tx *storage.Tx) error {
		out = stepOutcome{}
		p, err := tx.LockEngineProspect(ctx, id)
		if err != nil {
			return err
		}
		if p.NextStepAt == nil || p.NextStepAt.After(now) {
			return nil
		}
		if halted(p) {
			p.NextStepAt = nil
			out.acted = true
			return tx.SaveEngineProspect(ctx, p)
		}
		blocked, err := tx.ProspectBlacklisted(ctx, p.Prospect)
		if err != nil {
			return err
		}
		if blocked {
			p.Status, p.NextStepAt, p.SequenceEndedAt = statusOptedOut, nil, timePtr(now)
			out.acted, out.ended = true, true
			if err := tx.CloseFollowups(ctx, p.ID, now); err != nil {
				return err
			}
			return tx.SaveEngineProspect(ctx, p)
		}
		acc, err := tx.PickSendingAccount(ctx, p.OrgID, p.AccountID, run.c.AccountIDs)
		if errors.Is(err, outreach.ErrNotFound) || (err == nil && acc.Status == "disconnected") {
			out.seatDown = true
			return nil
		}
		if err != nil {
			return err
		}
		s := &stepper{e: e, tx: tx, run: run, p: &p, acc: acc, now: now, out: &out}
		outbound := run.c.OutreachType != outreach.OutreachInbound
		switch {
		case outbound && p.InvitedAt == nil && p.ConnectedAt == nil:
			err = s.invite(ctx)
		case outbound && p.ConnectedAt == nil:
			err = s.withdraw(ctx)
		default:
			err = s.message(ctx)
		}
		return err
	})
	return out, err
}

// stepper holds one step's context.
type stepper struct {
	e   *Engine
	tx  *storage.Tx
	run campaignRun
	p   *storage.EngineProspect
	acc storage.LinkedInAccount
	now time.Time
	out *stepOutcome
}

func (s *stepper) ref() ProfileRef {
	pub := ""
	if s.p.PublicIdentifier != nil {
		pub = *s.p.PublicIdentifier
	}
	return ProfileRef{ProfileKey: s.p.LeadKey, PublicIdentifier: pub, Name: s.p.Name}
}

func (s *stepper) emit(kind outreach.EventKind, data outreach.EventData) {
	data.Prospect = storage.EventProspect(s.p.Prospect)
	data.Campaign = s.run.block()
	s.tx.Emit(outreach.NewEvent(kind, s.p.OrgID, s.now, data))
}

func (s *stepper) activity(kind string, step *int) error {
	return s.tx.InsertActivity(context.Background(), storage.Activity{OrgID: s.p.OrgID, CampaignID: &s.p.CampaignID,
		ProspectID: &s.p.ID, AccountID: &s.acc.ID, Kind: kind, Step: step, At: s.now})
}

// retryLater keeps the prospect due a while later (an unexpected provider answer).
func (s *stepper) retryLater(ctx context.Context, d time.Duration) error {
	s.p.NextStepAt = timePtr(s.now.Add(d))
	return s.tx.SaveEngineProspect(ctx, *s.p)
}

func (s *stepper) invite(ctx context.Context) error {
	if s.acc.Status == "rate_limited" && s.acc.CooldownUntil != nil && s.acc.CooldownUntil.After(s.now) {
		s.out.seatDown = true
		s.p.NextStepAt = timePtr(*s.acc.CooldownUntil)
		return s.tx.SaveEngineProspect(ctx, *s.p)
	}
	note := ""
	connectStep := len(s.run.steps) > 0 && s.run.steps[0].Type == outreach.StepConnect
	if connectStep {
		note = personalize(s.run.steps[0].Text, s.p.Prospect)
	}
	cctx, cancel := s.e.callCtx(ctx)
	err := s.e.li.SendInvite(cctx, s.acc.ProviderAccountID, s.ref(), note)
	cancel()
	switch {
	case err == nil, errors.Is(err, ErrAlreadyInvited):
	case errors.Is(err, ErrRateLimited), errors.Is(err, ErrAccountDown):
		s.out.seatDown = true
		return nil
	default:
		s.e.log.Warn("engine: invite", "prospect", s.p.ID, "err", err)
		return s.retryLater(ctx, time.Hour)
	}
	s.p.Status, s.p.InvitedAt, s.p.AccountID, s.p.Contacted = statusConnectionSent, timePtr(s.now), &s.acc.ID, true
	if connectStep {
		s.p.CurrentStep = 1
	}
	s.p.NextStepAt = timePtr(s.now.Add(s.e.cfg.InviteExpiry))
	s.p.LastActivityAt = timePtr(s.now)
	s.out.acted, s.out.sent, s.out.invite = true, true, true
	if err := s.tx.SaveEngineProspect(ctx, *s.p); err != nil {
		return err
	}
	if err := s.activity(storage.ActivityInviteSent, new(0)); err != nil {
		return err
	}
	s.emit(outreach.EventInviteSent, outreach.EventData{})
	return nil
}

// withdraw takes back an invite nobody answered within InviteExpiry and ends the sequence.
func (s *stepper) withdraw(ctx context.Context) error {
	cctx, cancel := s.e.callCtx(ctx)
	err := s.e.li.WithdrawInvite(cctx, s.acc.ProviderAccountID, s.ref())
	cancel()
	switch {
	case err == nil, errors.Is(err, ErrNoPendingInvite), errors.Is(err, ErrNotConnected):
	case errors.Is(err, ErrAccountDown), errors.Is(err, ErrRateLimited):
		s.out.seatDown = true
		return nil
	default:
		return s.retryLater(ctx, time.Hour)
	}
	s.p.Status, s.p.NextStepAt, s.p.SequenceEndedAt, s.p.WithdrawnAt = statusCompleted, nil, timePtr(s.now), timePtr(s.now)
	s.out.acted, s.out.ended = true, true
	if err := s.tx.SaveEngineProspect(ctx, *s.p); err != nil {
		return err
	}
	if err := s.tx.CloseFollowups(ctx, s.p.ID, s.now); err != nil {
		return err
	}
	if err := s.activity(storage.ActivityInviteWithdrawn, nil); err != nil {
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
	if s.p.Status != statusReplied && s.p.Status != statusOptedOut {
		s.p.Status = statusCompleted
	}
	s.p.NextStepAt, s.p.SequenceEndedAt = nil, timePtr(s.now)
	s.out.acted, s.out.ended = true, true
	if err := s.tx.CloseFollowups(ctx, s.p.ID, s.now); err != nil {
		return err
	}
	return s.tx.SaveEngineProspect(ctx, *s.p)
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
		case errors.Is(err, ErrAccountDown):
			s.out.seatDown = true
			return nil
		case err != nil:
			return s.bumpRecheckFailed(ctx, err)
		case len(msgs) > 0 && !msgs[len(msgs)-1].FromMe:
			// The person wrote; their report is on its way and ends the sequence.
			return s.retryLater(ctx, 10*time.Minute)
		}
	}
	text := personalize(s.run.steps[i].Text, s.p.Prospect)
	target := s.p.LeadKey
	if s.p.ChatID != nil {
		target = *s.p.ChatID
	}
	chatID, msgID, err := s.send(ctx, target, text)
	switch {
	case err == nil:
	case errors.Is(err, ErrAccountDown), errors.Is(err, ErrRateLimited):
		s.out.seatDown = true
		return nil
	case errors.Is(err, ErrNotConnected):
		// Inbound: not a connection after all. Nothing can be sent; the sequence ends.
		s.e.log.Debug("engine: not connected, sequence ends", "prospect", s.p.ID)
		return s.finish(ctx)
	default:
		s.e.log.Warn("engine: message", "prospect", s.p.ID, "err", err)
		return s.retryLater(ctx, time.Hour)
	}
	chat, _, err := s.tx.RecordChatMessage(ctx, storage.ChatMessage{OrgID: s.p.OrgID, AccountID: s.acc.ID,
		ProviderChatID: chatID, LeadKey: s.p.LeadKey, ProspectID: &s.p.ID, AttendeeName: s.p.Name, FromMe: true,
		Text: text, ProviderMessageID: msgID, At: s.now})
	if err != nil {
		return err
	}
	s.p.ChatID, s.p.AccountID, s.p.Contacted, s.p.Status = &chat, &s.acc.ID, true, statusMessaged
	s.p.CurrentStep = i + 1
	s.p.LastActivityAt = timePtr(s.now)
	if j := nextMessageStep(s.run.steps, i+1); j < len(s.run.steps) {
		s.p.NextStepAt = timePtr(s.now.Add(days(s.run.steps[j].DelayDays)))
		if err := s.tx.OpenFollowup(ctx, s.p.OrgID, s.p.ID, &chat, *s.p.NextStepAt, j); err != nil {
			return err
		}
	} else {
		s.p.NextStepAt = timePtr(s.now.Add(s.e.cfg.ReplyWindow))
		if err := s.tx.CloseFollowups(ctx, s.p.ID, s.now); err != nil {
			return err
		}
	}
	s.out.acted, s.out.sent = true, true
	if err := s.tx.SaveEngineProspect(ctx, *s.p); err != nil {
		return err
	}
	if err := s.activity(storage.ActivityMessageSent, new(i)); err != nil {
		return err
	}
	recent, err := s.tx.RecentTurns(ctx, chat, outreach.MaxRecentConversation)
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
	if (errors.Is(err, ErrNotConnected) || errors.Is(err, ErrUnknownChat)) && s.e.op != nil && s.p.ConnectedAt != nil {
		if s.e.resyncConnection(cctx, s.acc.ProviderAccountID, s.ref()) == nil {
			chatID, msgID, err = s.e.li.SendMessage(cctx, s.acc.ProviderAccountID, s.p.LeadKey, text)
		}
	}
	return chatID, msgID, err
}

// resyncConnection makes a simulator's person connected to the seat: invite, then accept.
func (e *Engine) resyncConnection(ctx context.Context, providerAccountID string, ref ProfileRef) error {
	if err := e.li.SendInvite(ctx, providerAccountID, ref, ""); err != nil && !errors.Is(err, ErrAlreadyInvited) {
		return err
	}
	if err := e.op.InjectAccept(ref.ProfileKey); err != nil && !errors.Is(err, ErrNoPendingInvite) {
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
	if err := s.tx.CloseFollowups(ctx, s.p.ID, s.now); err != nil {
		return err
	}
	return s.tx.SaveEngineProspect(ctx, *s.p)
}

// personalize fills the placeholders a sequence text may use: {first_name}, {name},
// {company} (also written with double braces). Unknown values become "" (first name "there").
func personalize(text string, p storage.Prospect) string {
	first := "there"
	if f := strings.Fields(p.Name); len(f) > 0 {
		first = f[0]
	}
	company := ""
	if p.Company != nil {
		company = *p.Company
	}
	r := strings.NewReplacer("{{first_name}}", first, "{first_name}", first, "{{name}}", p.Name, "{name}", p.Name,
		"{{company}}", company, "{company}", company)
	return r.Replace(text)
}
