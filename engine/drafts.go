package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"outreachd/outreach"
	"outreachd/storage"
)

// approvalGrace is how long (real time) an approved draft waits before the engine's loop may
// send it; the approving call sends it at once.
const approvalGrace = time.Minute

// ErrNoProvider: approving a draft needs a LinkedIn provider, and this engine has none.
var ErrNoProvider = errors.New("no LinkedIn provider is configured")

// ApproveDraft sends a needs-human item's draft — or the person's edited text — through the
// LinkedIn provider and closes the item. It is irreversible: a message sent on LinkedIn cannot
// be taken back. The application's Needs Human desk, the assistant's approve_draft and the API
// all call this one action.
//
// The item is closed and its draft released in one transaction; the send then goes through the
// same path as automatic replies (sendDraft), which re-checks stop, block and opt-out right
// before sending. The released draft is due only a real minute later (approvalGrace), so the
// engine's loop does not race this call for it, yet still sends it if this process dies before
// its send. If the seat is rate-limited or down the draft stays due and the engine sends it
// later (DraftScheduled).
func (e *Engine) ApproveDraft(ctx context.Context, d outreach.DraftDecision) (outreach.DraftOutcome, error) {
	if e.li == nil {
		return outreach.DraftOutcome{}, ErrNoProvider
	}
	var out outreach.DraftOutcome
	if d.Text != nil {
		t := strings.TrimSpace(*d.Text)
		if t == "" {
			return out, outreach.Invalidf("text: the edited reply is empty")
		}
		if utf8.RuneCountInString(t) > outreach.MaxReplyText {
			return out, outreach.Invalidf("text: longer than %d characters", outreach.MaxReplyText)
		}
		d.Text = &t
	}
	err := e.store.InTx(ctx, func(tx *storage.Tx) error {
		n, err := lockNeedsHuman(ctx, tx, d.OrgID, d.ItemID)
		if err != nil {
			return err
		}
		text := n.AIDraft
		if d.Text != nil {
			text = *d.Text
		}
		if strings.TrimSpace(text) == "" {
			return outreach.Invalidf("the draft is empty: approve it with your own text")
		}
		now := e.clock.Now()
		due := now.Add(time.Duration(float64(approvalGrace) * e.cfg.ClockSpeed))
		released := false
		if n.DraftID != nil {
			if released, err = releaseDraft(ctx, tx, *n.DraftID, text, due, now); err != nil {
				return err
			}
		}
		if !released { // an item without a held draft (or whose draft is gone): a new one
			id := outreach.NewID("drf")
			if err := insertDraft(ctx, tx, replyDraft{ID: id, OrgID: n.OrgID, ProspectID: n.ProspectID,
				ChatID: n.ChatID, Text: text, AutoSendAt: &due}); err != nil {
				return err
			}
			n.DraftID = &id
		}
		out = outreach.DraftOutcome{ItemID: n.ID, DraftID: *n.DraftID, ChatID: n.ChatID, Text: text, At: now}
		return resolveNeedsHuman(ctx, tx, n.ID, "approved", d.Actor, now)
	})
	if err != nil {
		return outreach.DraftOutcome{}, fmt.Errorf("approve draft: %w", err)
	}
	return e.sendReleased(ctx, out)
}

// sendReleased sends a draft released for sending (due a real minute later, approvalGrace) at
// once through sendDraft, and says what became of it: sent, scheduled (the seat is busy; the
// engine's loop sends it when it is back, and retries if this send failed) or dismissed.
func (e *Engine) sendReleased(ctx context.Context, out outreach.DraftOutcome) (outreach.DraftOutcome, error) {
	if _, err := e.sendDraft(ctx, out.DraftID); err != nil {
		// The draft is due: the engine's loop retries the send.
		e.log.Warn("engine: released draft not sent yet", "draft", out.DraftID, "err", err)
	}
	st, err := draftStatus(context.WithoutCancel(ctx), e.db, out.DraftID)
	if err != nil {
		return outreach.DraftOutcome{}, fmt.Errorf("send draft %s: read its status: %w", out.DraftID, err)
	}
	switch st {
	case "sent":
		out.Status = outreach.DraftSent
	case "dismissed":
		out.Status = outreach.DraftDismissed
	default:
		out.Status = outreach.DraftScheduled
	}
	return out, nil
}

// DismissDraft closes a needs-human item without sending anything; its draft is dismissed.
func (e *Engine) DismissDraft(ctx context.Context, d outreach.DraftDecision) (outreach.DraftOutcome, error) {
	var out outreach.DraftOutcome
	err := e.store.InTx(ctx, func(tx *storage.Tx) error {
		n, err := lockNeedsHuman(ctx, tx, d.OrgID, d.ItemID)
		if err != nil {
			return err
		}
		now := e.clock.Now()
		out = outreach.DraftOutcome{ItemID: n.ID, ChatID: n.ChatID, Status: outreach.DraftDismissed, Text: n.AIDraft, At: now}
		if n.DraftID != nil {
			out.DraftID = *n.DraftID
			if err := setDraftStatus(ctx, tx, *n.DraftID, "dismissed", now); err != nil {
				return err
			}
		}
		return resolveNeedsHuman(ctx, tx, n.ID, "dismissed", d.Actor, now)
	})
	if err != nil {
		return outreach.DraftOutcome{}, fmt.Errorf("dismiss draft: %w", err)
	}
	return out, nil
}
