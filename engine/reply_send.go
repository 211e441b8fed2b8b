package engine

import (
	"context"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// This file sends the reply drafts the guardrails let through (replies.go drafts and routes them).

// sendDrafts sends the drafts the guardrails let through.
func (e *Engine) sendDrafts(ctx context.Context) (int, error) {
	if e.li == nil {
		return 0, nil
	}
	ids, err := dueAutoDrafts(ctx, e.db, e.clock.Now(), 100)
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, id := range ids {
		ok, err := e.sendDraft(ctx, id)
		if err != nil {
			e.log.Warn("engine: send draft", "draft", id, "err", err)
		}
		if ok {
			sent++
		}
	}
	return sent, nil
}

// sendDraft sends one due draft as a two-phase action (action.go): phase 1 locks the draft, the
// seat and the person, re-checks stop, block and opt-out, passes the seat's gate and records the
// intent; phase 2 sends; phase 3 records the message and the draft as sent, or what the refusal
// means. It reports whether the reply went out now.
func (e *Engine) sendDraft(ctx context.Context, id string) (bool, error) {
	var in *intent
	now := e.clock.Now()
	err := e.store.InTx(ctx, func(tx *storage.Tx) error {
		in = nil
		d, ok, err := lockDraftToSend(ctx, tx, id)
		if err != nil || !ok {
			return err
		}
		g, err := readSeatGate(ctx, tx, d.AccountID, now, true)
		if err != nil {
			return err
		}
		act := action{OrgID: d.OrgID, ProspectID: d.ProspectID, DraftID: &d.ID, Kind: actReply, TextHash: textHash(d.Text)}
		// A reply left open (its answer lost, its instance dead) may have gone out: it is checked
		// before anything else, whatever happened to the person since.
		prev, open, err := findAction(ctx, tx, act)
		if err != nil {
			return err
		}
		open = open && (prev.State == actStarted || prev.State == actUnknown)
		p, out, err := e.draftPerson(ctx, tx, d, now, open)
		if err != nil || out {
			return err
		}
		in = &intent{act: act, text: d.Text, target: d.ProviderChatID, chatID: d.ProviderChatID,
			resync: d.ProspectID != nil, ref: outreach.ProfileRef{ProfileKey: p.LeadKey, Name: p.Name}}
		r, err := e.begin(ctx, tx, g, in, false, now)
		switch {
		case err != nil || r.in != nil:
			in = r.in
			return err
		case r.down:
			return postponeDraft(ctx, tx, d.ID, now.Add(15*time.Minute))
		case !r.wait.IsZero():
			return postponeDraft(ctx, tx, d.ID, r.wait)
		case r.done:
			e.log.Warn("engine: reply already sent", "draft", d.ID)
			return postponeDraft(ctx, tx, d.ID, now.Add(time.Hour))
		}
		return nil // under way in another instance
	})
	if err != nil || in == nil {
		return false, err
	}
	r := e.perform(ctx, in)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	sent := false
	err = e.store.InTx(ctx, func(tx *storage.Tx) error {
		// The locks in phase 1's order (draft, seat, person), so that this transaction and
		// another instance's phase 1 of the same draft never wait on each other.
		d, err := lockDraft(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := e.seatTold(ctx, tx, in.acc.ID, r.err, now); err != nil {
			return err
		}
		var p engineProspect
		if d.ProspectID != nil {
			if p, err = lockEngineProspect(ctx, tx, *d.ProspectID); err != nil {
				return err
			}
		}
		done := succeeded(in, r)
		ok, err := finishAction(ctx, tx, in.act.ID, in.act.Attempts, attemptEnd(in, r, done, now))
		if err != nil || !ok {
			return err
		}
		if !done {
			return e.replyNotSent(ctx, tx, in, r, d, p, now)
		}
		chat, err := recordSentDraft(ctx, tx, d, p, r.chatID, r.messageID, now)
		if err != nil {
			return err
		}
		sent = true
		return emitSentDraft(ctx, tx, d, p, chat, now)
	})
	return sent, err
}

// draftPerson locks a draft's person and re-checks them right before sending: a stopped chat, a
// lost or opted-out person dismisses the draft, one on the do-not-contact list is opted out too.
// out is true when the draft is not to be sent. A reply left open is not re-checked: it may
// have gone out, and is checked with the provider first.
func (e *Engine) draftPerson(ctx context.Context, tx *storage.Tx, d draftToSend, now time.Time, open bool) (engineProspect, bool, error) {
	var p engineProspect
	if d.ProspectID != nil {
		var err error
		if p, err = lockEngineProspect(ctx, tx, *d.ProspectID); err != nil {
			return p, true, err
		}
	}
	if open {
		return p, false, nil
	}
	if d.RepliesStopped || (d.ProspectID != nil && (p.LostAt != nil || p.Status == outreach.ProspectOptedOut)) {
		return p, true, setDraftStatus(ctx, tx, d.ID, "dismissed", now)
	}
	if d.ProspectID == nil {
		return p, false, nil
	}
	blocked, err := prospectBlacklisted(ctx, tx, p.Prospect)
	if err != nil || !blocked {
		return p, false, err
	}
	p.Status = outreach.ProspectOptedOut
	if err := saveEngineProspect(ctx, tx, p); err != nil {
		return p, true, err
	}
	return p, true, setDraftStatus(ctx, tx, d.ID, "dismissed", now)
}

// replyNotSent handles a reply that did not go out: its outcome is not known yet (the draft
// stays due and the next look checks it), the seat is down (it waits), or the provider refused
// it (a person takes the conversation over).
func (e *Engine) replyNotSent(ctx context.Context, tx *storage.Tx, in *intent, r callResult, d draftToSend, p engineProspect, now time.Time) error {
	switch {
	case r.unknown || in.reconcile:
		return nil
	case seatDown(r.err):
		return postponeDraft(ctx, tx, d.ID, now.Add(15*time.Minute))
	}
	e.log.Warn("engine: reply not sent", "draft", d.ID, "err", r.err)
	if err := setDraftStatus(ctx, tx, d.ID, "dismissed", now); err != nil {
		return err
	}
	if d.ProspectID == nil {
		return nil
	}
	c, err := getEngineCampaign(ctx, tx, p.CampaignID)
	if err != nil {
		return err
	}
	return e.queueForHuman(ctx, tx, humanItem{p: &p, campaign: &outreach.CampaignBlock{ID: c.ID, Name: c.Name},
		chatID: d.ChatID, draft: d.Text, reason: outreach.ReasonNeedsHuman, sentiment: outreach.SentimentNeutral, at: now})
}

// recordSentDraft records a reply the provider took: the message in its chat and the draft as
// sent. It returns our chat id.
func recordSentDraft(ctx context.Context, tx *storage.Tx, d draftToSend, p engineProspect, chatID, msgID string, now time.Time) (string, error) {
	if chatID == "" {
		chatID = d.ProviderChatID
	}
	msg := chatRecord{OrgID: d.OrgID, AccountID: d.AccountID, ProviderChatID: chatID, ProspectID: d.ProspectID,
		FromMe: true, Text: d.Text, ProviderMessageID: msgID, At: now}
	if d.ProspectID != nil {
		msg.LeadKey, msg.AttendeeName = p.LeadKey, p.Name
	}
	chat, _, err := recordChatMessage(ctx, tx, msg)
	if err != nil {
		return "", err
	}
	return chat, setDraftStatus(ctx, tx, d.ID, "sent", now)
}

// emitSentDraft records the prospect's activity and emits message_sent (with an empty
// prospect block for a stranger).
func emitSentDraft(ctx context.Context, tx *storage.Tx, d draftToSend, p engineProspect, chat string, now time.Time) error {
	recent, err := storage.RecentTurns(ctx, tx, chat, outreach.MaxRecentConversation)
	if err != nil {
		return err
	}
	data := outreach.EventData{Message: &outreach.MessageBlock{Text: d.Text, ChatID: chat, RecentConversation: recent}}
	if d.ProspectID == nil {
		data.Prospect = &outreach.ProspectBlock{}
		tx.Emit(outreach.NewEvent(outreach.EventMessageSent, d.OrgID, now, data))
		return nil
	}
	p.LastActivityAt = timePtr(now)
	if err := saveEngineProspect(ctx, tx, p); err != nil {
		return err
	}
	if err := insertActivity(ctx, tx, activity{OrgID: p.OrgID, CampaignID: &p.CampaignID, ProspectID: &p.ID,
		AccountID: &d.AccountID, Kind: outreach.ActivityMessageSent, At: now}); err != nil {
		return err
	}
	c, err := getEngineCampaign(ctx, tx, p.CampaignID)
	if err != nil {
		return err
	}
	data.Prospect, data.Campaign = p.Prospect.EventBlock(), &outreach.CampaignBlock{ID: c.ID, Name: c.Name}
	tx.Emit(outreach.NewEvent(outreach.EventMessageSent, p.OrgID, now, data))
	return nil
}
