package engine

import (
	"context"
	"fmt"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// Replies: a person's message is recorded, classified (outreach.ClassifyReply), and for a
// campaign person answered with a draft (Drafter). outreach.RouteReply decides whether the
// draft may go out on its own; everything else goes to the needs-human queue with its reason.
// The lead's text is data: it reaches the classifier and the drafter as a value and decides
// nothing but through the classifier's fixed rules.

// replyPlan is what is decided about a message before its transaction: classification and
// draft (the drafter may be a slow HTTP call, so it runs outside any transaction).
type replyPlan struct {
	class    outreach.Classification
	draft    string
	draftErr error
}

// planReply classifies r's text and, for a campaign person, asks the drafter for an answer
// unless the text tries to instruct the AI.
func (e *Engine) planReply(ctx context.Context, r reportRow, acc storage.LinkedInAccount) replyPlan {
	plan := replyPlan{class: outreach.ClassifyReply(r.Text)}
	if plan.class.Injection {
		return plan // written to steer the model: never shown to the drafter, a person answers it
	}
	var p engineProspect
	var found bool
	var campaignName string
	err := e.store.InTx(ctx, func(tx *storage.Tx) error {
		var err error
		if p, found, err = findReportProspect(ctx, tx, acc.OrgID, r.ProfileKey, acc.ID); err != nil || !found {
			return err
		}
		c, err := getEngineCampaign(ctx, tx, p.CampaignID)
		campaignName = c.Name
		return err
	})
	if err != nil {
		plan.draftErr = err
		return plan
	}
	if !found {
		return plan
	}
	var history []DraftTurn
	if r.ChatID != "" {
		turns, err := storage.RecentTurns(ctx, e.db, r.ChatID, 20)
		if err != nil {
			plan.draftErr = err
			return plan
		}
		for _, t := range turns {
			at, _ := time.Parse(outreach.TimeLayout, t.At)
			history = append(history, DraftTurn{FromMe: t.FromMe, Text: t.Text, At: at})
		}
	}
	company := ""
	if p.Company != nil {
		company = *p.Company
	}
	cctx, cancel := e.callCtx(ctx)
	defer cancel()
	plan.draft, plan.draftErr = e.drafter.Draft(cctx, DraftInput{ProspectName: p.Name, Company: company,
		CampaignName: campaignName, Incoming: r.Text, Classification: plan.class, History: history})
	return plan
}

// applyMessage records a person's message and everything it causes.
func (e *Engine) applyMessage(ctx context.Context, tx *storage.Tx, r reportRow, acc storage.LinkedInAccount, plan replyPlan) (map[string]any, error) {
	p, found, err := findReportProspect(ctx, tx, acc.OrgID, r.ProfileKey, acc.ID)
	if err != nil {
		return nil, err
	}
	sentiment := string(plan.class.Sentiment)
	msg := chatRecord{OrgID: acc.OrgID, AccountID: acc.ID, ProviderChatID: r.ChatID, LeadKey: r.ProfileKey,
		AttendeeName: r.AttendeeName, AttendeeProviderID: r.ProviderID, Text: r.Text, Sentiment: &sentiment,
		ProviderMessageID: r.MessageID, At: r.At}
	if found {
		msg.ProspectID = &p.ID
		if msg.AttendeeName == "" {
			msg.AttendeeName = p.Name
		}
	}
	chatID, stopped, err := recordChatMessage(ctx, tx, msg)
	if err != nil {
		return nil, err
	}
	result := map[string]any{"chat_id": chatID}
	if !found {
		// Not a campaign person: no reply events (reply events are for campaign people only) and no automatic answer to a
		// stranger, but a request only a person can answer still reaches the queue.
		reason, human := outreach.RouteReply(plan.class, "")
		if stopped || !human || reason == outreach.ReasonEmptyOrTooShort {
			return result, nil
		}
		return result, e.queueForHuman(ctx, tx, humanItem{chatID: chatID, name: r.AttendeeName, providerID: r.ProviderID,
			message: r.Text, intent: &plan.class.Intent, reason: reason, sentiment: plan.class.Sentiment, at: r.At})
	}
	camp, err := getEngineCampaign(ctx, tx, p.CampaignID)
	if err != nil {
		return nil, err
	}
	block := &outreach.CampaignBlock{ID: camp.ID, Name: camp.Name}
	markReplied(&p, plan.class.Sentiment, chatID, acc.ID, r.At)
	if p.SequenceEndedAt == nil {
		p.SequenceEndedAt = timePtr(r.At)
		// The sequencer looks at the campaign soon: it may be complete now.
		if err := lowerCampaignNext(ctx, tx, camp.ID, r.At); err != nil {
			return nil, err
		}
	}
	p.NextStepAt = nil
	if err := closeFollowups(ctx, tx, p.ID, r.At); err != nil {
		return nil, err
	}
	if err := resolveStalls(ctx, tx, p.ID, r.At); err != nil {
		return nil, err
	}
	if err := insertActivity(ctx, tx, activity{OrgID: p.OrgID, CampaignID: &p.CampaignID, ProspectID: &p.ID,
		AccountID: &acc.ID, Kind: outreach.ActivityReply, Sentiment: &sentiment, At: r.At}); err != nil {
		return nil, err
	}
	if err := emitReply(ctx, tx, p, block, chatID, r, plan.class.Sentiment); err != nil {
		return nil, err
	}
	// Nothing is drafted where replies were stopped or the person is out (lost, blocked, or
	// a clear no: answering "stop messaging me" is exactly what not to do).
	answer := !stopped && p.LostAt == nil && p.Status != outreach.ProspectOptedOut
	if answer {
		if err := e.answer(ctx, tx, &p, camp, block, acc, chatID, r, plan); err != nil {
			return nil, err
		}
	}
	return result, saveEngineProspect(ctx, tx, p)
}

// markReplied moves a campaign person who wrote to us: replied (or opted_out on a clear no), with
// the chat, the seat and the connection the message implies; the first reply time and a
// sentiment stick (a neutral message does not overwrite an earlier one).
func markReplied(p *engineProspect, s outreach.Sentiment, chatID, accountID string, at time.Time) {
	sentiment := string(s)
	if p.RepliedAt == nil {
		p.RepliedAt = timePtr(at)
	}
	if s != outreach.SentimentNeutral || p.Sentiment == nil {
		p.Sentiment = &sentiment
	}
	p.LastActivityAt = timePtr(at)
	p.Contacted = true
	if p.ChatID == nil {
		p.ChatID = &chatID
	}
	if p.AccountID == nil {
		p.AccountID = &accountID
	}
	if p.ConnectedAt == nil {
		p.ConnectedAt = timePtr(at) // a message implies the connection
	}
	switch {
	case s == outreach.SentimentNegative:
		p.Status = outreach.ProspectOptedOut
	case p.Status != outreach.ProspectOptedOut:
		p.Status = outreach.ProspectReplied
	}
}

// emitReply emits reply_received and, for a clear yes or no, reply_positive or reply_negative,
// each with the thread's recent turns.
func emitReply(ctx context.Context, tx *storage.Tx, p engineProspect, block *outreach.CampaignBlock, chatID string,
	r reportRow, s outreach.Sentiment) error {
	recent, err := storage.RecentTurns(ctx, tx, chatID, outreach.MaxRecentConversation)
	if err != nil {
		return err
	}
	mb := &outreach.MessageBlock{Text: r.Text, ChatID: chatID, Sentiment: s, RecentConversation: recent}
	data := outreach.EventData{Prospect: p.Prospect.EventBlock(), Message: mb, Campaign: block}
	tx.Emit(outreach.NewEvent(outreach.EventReplyReceived, p.OrgID, r.At, data))
	switch s {
	case outreach.SentimentPositive:
		tx.Emit(outreach.NewEvent(outreach.EventReplyPositive, p.OrgID, r.At, data))
	case outreach.SentimentNegative:
		tx.Emit(outreach.NewEvent(outreach.EventReplyNegative, p.OrgID, r.At, data))
	}
	return nil
}

// answer routes a campaign person's message: a draft the guardrails pass is queued for sending;
// anything else goes to a person with its reason.
func (e *Engine) answer(ctx context.Context, tx *storage.Tx, p *engineProspect, camp engineCampaign,
	block *outreach.CampaignBlock, acc storage.LinkedInAccount, chatID string, r reportRow, plan replyPlan) error {
	draft := plan.draft
	reason, human := outreach.RouteReply(plan.class, draft)
	if plan.draftErr != nil {
		e.log.Warn("engine: drafter failed", "prospect", p.ID, "err", plan.draftErr)
		reason, human, draft = outreach.ReasonNeedsHuman, true, ""
	}
	if !human && camp.Status != string(outreach.CampaignActive) {
		// A campaign that is not running (paused, or not launched yet) sends nothing on its own:
		// the reply and its draft go to a person, who may still send it.
		reason, human = outreach.ReasonNeedsHuman, true
	}
	if !human {
		// Re-check the do-not-contact list before anything is sent. A failing check must not
		// fail the report (the reply itself is recorded), so it runs under a savepoint.
		blocked, err := blacklistedSafe(ctx, tx, p.Prospect)
		switch {
		case err != nil:
			e.log.Warn("engine: blacklist check", "prospect", p.ID, "err", err)
			reason, human = outreach.ReasonBlacklistCheckFailed, true
		case blocked:
			p.Status = outreach.ProspectOptedOut
			return nil
		}
	}
	if reason == outreach.ReasonAutoBooked {
		if err := e.autoBook(ctx, tx, p, camp, block, acc, r.At); err != nil {
			return err
		}
	}
	if human {
		return e.queueForHuman(ctx, tx, humanItem{p: p, campaign: block, chatID: chatID, message: r.Text, draft: draft,
			intent: &plan.class.Intent, reason: reason, sentiment: plan.class.Sentiment, at: r.At})
	}
	return insertDraft(ctx, tx, replyDraft{ID: outreach.NewID("drf"), OrgID: p.OrgID, ProspectID: &p.ID,
		ChatID: chatID, Text: draft, AutoSendAt: timePtr(r.At)})
}

func blacklistedSafe(ctx context.Context, tx *storage.Tx, p storage.Prospect) (bool, error) {
	var hit bool
	err := tx.Savepoint(ctx, func(inner *storage.Tx) error {
		var err error
		hit, err = prospectBlacklisted(ctx, inner, p)
		return err
	})
	return hit, err
}

// humanItem is one entry for the needs-human queue; p and campaign are nil for a person who is
// in no campaign.
type humanItem struct {
	p          *engineProspect
	campaign   *outreach.CampaignBlock
	chatID     string
	name       string
	providerID string
	message    string
	draft      string
	intent     *string
	reason     outreach.NeedsHumanReason
	sentiment  outreach.Sentiment
	at         time.Time
}

// queueForHuman writes the queue item (with the draft kept for approval) and emits needs_human.
func (e *Engine) queueForHuman(ctx context.Context, tx *storage.Tx, h humanItem) error {
	recent, err := storage.RecentTurns(ctx, tx, h.chatID, outreach.MaxRecentConversation)
	if err != nil {
		return err
	}
	if h.message == "" {
		for _, t := range recent {
			if !t.FromMe {
				h.message = t.Text
			}
		}
	}
	n := newNeedsHuman{ID: outreach.NewID("nhu"), ChatID: h.chatID, Name: h.name, Message: h.message,
		AIDraft: h.draft, Intent: h.intent, Reason: string(h.reason), WaitingSince: h.at}
	prospect := &outreach.ProspectBlock{Name: h.name, LinkedInID: h.providerID}
	if h.p != nil {
		n.OrgID, n.ProspectID, n.CampaignID, n.Name = h.p.OrgID, &h.p.ID, &h.p.CampaignID, h.p.Name
		prospect = h.p.Prospect.EventBlock()
	} else {
		var err error
		if n.OrgID, err = e.chatOrg(ctx, tx, h.chatID); err != nil {
			return err
		}
	}
	if h.draft != "" {
		id := outreach.NewID("drf")
		if err := insertDraft(ctx, tx, replyDraft{ID: id, OrgID: n.OrgID, ProspectID: n.ProspectID,
			ChatID: h.chatID, Text: h.draft}); err != nil {
			return err
		}
		n.DraftID = &id
	}
	if err := insertNeedsHuman(ctx, tx, n); err != nil {
		return err
	}
	data := outreach.EventData{Prospect: prospect, Campaign: h.campaign,
		Message: &outreach.MessageBlock{Text: h.message, ChatID: h.chatID, Sentiment: h.sentiment, RecentConversation: recent},
		NeedsHuman: &outreach.NeedsHumanBlock{Reason: h.reason, ReasonLabel: h.reason.Label(), AIDraft: h.draft,
			QueueID: n.ID, InboxURL: outreach.ConversationURL(e.cfg.PublicURL, h.chatID)}}
	tx.Emit(outreach.NewEvent(outreach.EventNeedsHuman, n.OrgID, h.at, data))
	return nil
}

func (e *Engine) chatOrg(ctx context.Context, tx *storage.Tx, chatID string) (string, error) {
	var org string
	err := tx.QueryRow(ctx, `SELECT org_id FROM chats WHERE id = $1`, chatID).Scan(&org)
	return org, err
}

// bookingProvider names the calendar of automatic bookings: the engine's own slot finder.
const bookingProvider = "outreachd"

// autoBook books the first free 30-minute slot at least a day ahead inside the campaign's
// sending window on the seat's calendar (slots other bookings of the seat hold are taken). A
// booking counts at once (activity, booked_at, call_booked); the needs-human item auto_booked
// asks a person to confirm it. No free slot within the horizon is auto_booking_failed.
func (e *Engine) autoBook(ctx context.Context, tx *storage.Tx, p *engineProspect, camp engineCampaign,
	block *outreach.CampaignBlock, acc storage.LinkedInAccount, at time.Time) error {
	if p.BookedAt != nil {
		return nil
	}
	title := fmt.Sprintf("%s x %s - intro call", camp.Name, p.Name)
	data := outreach.EventData{Prospect: p.Prospect.EventBlock(), Campaign: block,
		Booking: &outreach.BookingBlock{Provider: bookingProvider, Title: title}}
	slot, ok, err := e.findSlot(ctx, tx, camp, acc.ID, at)
	if err != nil {
		return err
	}
	if !ok {
		data.Booking.FailureReason = fmt.Sprintf("no free 30-minute slot in the campaign's schedule within %d days", e.cfg.BookingHorizonDays)
		tx.Emit(outreach.NewEvent(outreach.EventAutoBookingFailed, p.OrgID, at, data))
		return nil
	}
	p.BookingStartAt, p.BookedAt = &slot, timePtr(at)
	if err := insertActivity(ctx, tx, activity{OrgID: p.OrgID, CampaignID: &p.CampaignID, ProspectID: &p.ID,
		AccountID: &acc.ID, Kind: outreach.ActivityBooking, At: at}); err != nil {
		return err
	}
	data.Booking.StartTime = outreach.FormatTime(slot)
	tx.Emit(outreach.NewEvent(outreach.EventAutoBookingCreated, p.OrgID, at, data))
	tx.Emit(outreach.NewEvent(outreach.EventCallBooked, p.OrgID, at, data))
	return nil
}

const slotLength = 30 * time.Minute

func (e *Engine) findSlot(ctx context.Context, tx *storage.Tx, camp engineCampaign, accountID string, at time.Time) (time.Time, bool, error) {
	sched, err := outreach.ParseSchedule(camp.Schedule)
	if err != nil {
		return time.Time{}, false, nil
	}
	w, err := sched.Window()
	if err != nil {
		return time.Time{}, false, nil
	}
	from := at.Add(24 * time.Hour).Truncate(slotLength)
	to := from.Add(days(e.cfg.BookingHorizonDays))
	taken, err := takenBookingSlots(ctx, tx, accountID, from, to)
	if err != nil {
		return time.Time{}, false, err
	}
	busy := map[int64]bool{}
	for _, t := range taken {
		busy[t.Unix()] = true
	}
	for t := w.NextOpen(from); t.Before(to); t = w.NextOpen(t.Add(slotLength)) {
		mid := w.DayStart(t)
		_, closeAt := w.Bounds(mid)
		if t.Add(slotLength).After(closeAt) {
			t = closeAt.Add(-slotLength) // jump to the day's end; the loop moves to the next day
			continue
		}
		if !busy[t.Unix()] {
			return t, true, nil
		}
	}
	return time.Time{}, false, nil
}
