package engine

import (
	"context"
	"strings"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// A message the seat itself wrote (ReportSeatMessaged). A provider reports every message of
// the seat's, the ones outreachd sent through it included, so the report is first matched
// against what outreachd sent to the person: a message it recorded (by the provider's message
// id, or the same text in the same chat), a reply draft it sent, or a text the person's
// campaign sequence produces for them (an invitation's note, which an accepted invitation
// turns into the chat's first message, or a step whose record has not landed yet: seat
// reports wait SeatMessageGrace before they are handled, for that). A message outreachd did
// not send was written from the seat by hand on LinkedIn: a person took the conversation over,
// so that prospect's automatic steps stop (the sequence pauses with its position kept, replies
// stop, follow-ups close) exactly as the inbox's stop does, and the message joins the chat.

// applySeatMessage handles one seat_messaged report.
func (e *Engine) applySeatMessage(ctx context.Context, tx *storage.Tx, r reportRow, acc storage.LinkedInAccount) (map[string]any, error) {
	if r.Text == "" || r.ChatID == "" {
		return nil, outreach.Invalidf("seat message report without text or chat")
	}
	p, found, err := findReportProspect(ctx, tx, acc.OrgID, r.ProfileKey, acc.ID)
	if err != nil {
		return nil, err
	}
	ours, err := sentByService(ctx, tx, acc.ID, r)
	if err == nil && !ours && found {
		ours, err = sequenceText(ctx, tx, p, r.Text)
	}
	if err != nil || ours {
		return map[string]any{"sent_by_outreachd": true}, err
	}
	msg := chatRecord{OrgID: acc.OrgID, AccountID: acc.ID, ProviderChatID: r.ChatID, LeadKey: r.ProfileKey,
		AttendeeName: r.AttendeeName, AttendeeProviderID: r.ProviderID, FromMe: true, Text: r.Text,
		ProviderMessageID: r.MessageID, At: r.At}
	if found {
		msg.ProspectID = &p.ID
	}
	chatID, _, err := recordChatMessage(ctx, tx, msg)
	if err != nil || !found {
		return map[string]any{"matched": found, "chat_id": chatID}, err
	}
	if err := stopForHandWritten(ctx, tx, p.ID, chatID, r); err != nil {
		return nil, err
	}
	return map[string]any{"matched": true, "prospect_id": p.ID, "chat_id": chatID, "stopped": true}, nil
}

// sentByService reports whether outreachd recorded this message as its own: the provider's
// message id, or the same text from the seat in the same chat, or a reply draft it sent there,
// or a message or reply of the seat with the same text that it started in the week before (its
// outcome may not be recorded yet: the answer was lost, or it is still being recorded).
func sentByService(ctx context.Context, tx *storage.Tx, accountID string, r reportRow) (bool, error) {
	var ours bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM messages m JOIN chats c ON c.id = m.chat_id
			WHERE c.account_id = $1 AND m.from_me
			  AND ((m.provider_message_id = $2 AND $2 <> '') OR (c.provider_chat_id = $3 AND btrim(m.text) = btrim($4))))
		OR EXISTS (SELECT 1 FROM reply_drafts d JOIN chats c ON c.id = d.chat_id
			WHERE c.account_id = $1 AND c.provider_chat_id = $3 AND d.status = 'sent' AND btrim(d.text) = btrim($4))
		OR EXISTS (SELECT 1 FROM linkedin_actions a WHERE a.account_id = $1 AND a.kind IN ('message', 'reply')
			AND a.state <> 'failed' AND a.started_at >= $6 AND a.text_hash = $5)`,
		accountID, r.MessageID, r.ChatID, r.Text, *textHash(r.Text), r.At.Add(-7*24*time.Hour)).Scan(&ours)
	return ours, err
}

// sequenceText reports whether text is one the prospect's campaign sequence writes for them
// (a connection note or a message step, personalized).
func sequenceText(ctx context.Context, tx *storage.Tx, p engineProspect, text string) (bool, error) {
	camp, err := getEngineCampaign(ctx, tx, p.CampaignID)
	if err != nil {
		return false, err
	}
	steps, _, err := outreach.ParseSequence(camp.Sequence, camp.OutreachType)
	if err != nil {
		return false, nil // a sequence that does not parse wrote nothing
	}
	text = strings.TrimSpace(text)
	for _, s := range steps {
		if strings.TrimSpace(outreach.Personalize(s.Text, p.Prospect.Variables())) == text {
			return true, nil
		}
	}
	return false, nil
}

// stopForHandWritten stops a prospect's automatic steps because someone wrote to them from the
// seat by hand: the sequence pauses with its position kept (as the inbox's stop pauses it),
// no reply is drafted or sent any more in their chats, and open follow-ups close.
func stopForHandWritten(ctx context.Context, tx *storage.Tx, prospectID, chatID string, r reportRow) error {
	if _, err := tx.Exec(ctx, `UPDATE prospects SET
			paused_at = coalesce(paused_at, CASE WHEN sequence_ended_at IS NULL AND status NOT IN ('opted_out', 'completed') THEN $2::timestamptz END),
			paused_next_step_at = CASE WHEN paused_at IS NULL AND sequence_ended_at IS NULL AND status NOT IN ('opted_out', 'completed')
				THEN next_step_at ELSE paused_next_step_at END,
			next_step_at = CASE WHEN paused_at IS NULL AND sequence_ended_at IS NULL AND status NOT IN ('opted_out', 'completed')
				THEN NULL ELSE next_step_at END,
			replies_stopped_at = coalesce(replies_stopped_at, $2), updated_at = $2
		WHERE id = $1`, prospectID, r.At); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE chats SET replies_stopped_at = $2 WHERE id = $1 AND replies_stopped_at IS NULL`,
		chatID, r.At); err != nil {
		return err
	}
	return closeFollowups(ctx, tx, prospectID, r.At)
}
