package engine

import (
	"context"
	"errors"
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

func (e *Engine) sendDraft(ctx context.Context, id string) (bool, error) {
	sent := false
	err := e.store.InTx(ctx, func(tx *storage.Tx) error {
		now := e.clock.Now()
		d, ok, err := lockDraftToSend(ctx, tx, id)
		if err != nil || !ok {
			return err
		}
		var p engineProspect
		if d.ProspectID != nil {
			if p, err = lockEngineProspect(ctx, tx, *d.ProspectID); err != nil {
				return err
			}
		}
		if d.RepliesStopped || (d.ProspectID != nil && (p.LostAt != nil || p.Status == outreach.ProspectOptedOut)) {
			return setDraftStatus(ctx, tx, d.ID, "dismissed", now)
		}
		if d.ProspectID != nil {
			blocked, err := prospectBlacklisted(ctx, tx, p.Prospect)
			if err != nil {
				return err
			}
			if blocked {
				p.Status = outreach.ProspectOptedOut
				if err := saveEngineProspect(ctx, tx, p); err != nil {
					return err
				}
				return setDraftStatus(ctx, tx, d.ID, "dismissed", now)
			}
		}
		cctx, cancel := e.callCtx(ctx)
		chatID, msgID, err := e.li.SendMessage(cctx, d.ProviderAccountID, d.ProviderChatID, d.Text)
		if (errors.Is(err, outreach.ErrUnknownChat) || notConnected(err)) && e.op != nil && d.ProspectID != nil {
			ref := outreach.ProfileRef{ProfileKey: p.LeadKey, Name: p.Name}
			if e.resyncConnection(cctx, d.ProviderAccountID, ref) == nil {
				chatID, msgID, err = e.li.SendMessage(cctx, d.ProviderAccountID, p.LeadKey, d.Text)
			}
		}
		cancel()
		switch {
		case err == nil:
		case seatDown(err):
			_, err := tx.Exec(ctx, `UPDATE reply_drafts SET auto_send_at = $2 WHERE id = $1`, d.ID, now.Add(15*time.Minute))
			return err
		default:
			e.log.Warn("engine: reply not sent", "draft", d.ID, "err", err)
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
		chat, err := recordSentDraft(ctx, tx, d, p, chatID, msgID, now)
		if err != nil {
			return err
		}
		sent = true
		return emitSentDraft(ctx, tx, d, p, chat, now)
	})
	return sent, err
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
