package engine

import (
	"context"
	"errors"

	"outreachd/outreach"
)

// Phase 2 of an action: the provider's calls, with no transaction open. Each returns what the
// provider answered; phase 3 records it.

// perform carries an intent out, or checks the outcome of one that may have been carried out.
func (e *Engine) perform(ctx context.Context, in *intent) callResult {
	if in.reconcile {
		return e.reconcile(ctx, in)
	}
	var r callResult
	switch in.act.Kind {
	case actInvite:
		r = e.callInvite(ctx, in)
	case actWithdraw:
		cctx, cancel := e.callCtx(ctx)
		r.err = e.li.WithdrawInvite(cctx, in.acc.ProviderAccountID, in.target, in.ref)
		cancel()
	case actMessage, actReply:
		r = e.callMessage(ctx, in)
	}
	r.unknown = r.err != nil && outcomeUnknown(ctx, r.err)
	return r
}

// callInvite looks the person up first when their member id is not known, then invites them
// by it.
func (e *Engine) callInvite(ctx context.Context, in *intent) callResult {
	var r callResult
	ref := in.ref
	if in.view != nil {
		cctx, cancel := e.callCtx(ctx)
		m, err := e.li.LookUpProfile(cctx, in.acc.ProviderAccountID, ref)
		cancel()
		if err != nil {
			r.viewErr, r.err = err, err
			if outcomeUnknown(ctx, err) {
				// A look-up changes nothing on LinkedIn: it is not the invitation's lost answer.
				r.err = &outreach.LinkedInError{Kind: outreach.ErrProviderUnavailable, Err: err}
			}
			return r
		}
		r.member = &m
		ref.ProviderID = m.ProviderID
		if ref.PublicIdentifier == "" {
			ref.PublicIdentifier = m.PublicIdentifier
		}
	}
	cctx, cancel := e.callCtx(ctx)
	defer cancel()
	r.inviteID, r.err = e.li.SendInvite(cctx, in.acc.ProviderAccountID, ref, in.text)
	return r
}

// callMessage sends a sequence message or a reply. A follow-up re-reads its thread first, so
// nothing is sent over a reply not yet seen. A simulator that lost its memory of a connection
// the database knows (a restart, or an operator's report handled without it) is brought back in
// line first.
func (e *Engine) callMessage(ctx context.Context, in *intent) callResult {
	var r callResult
	if in.act.Kind == actMessage && in.chatID != "" {
		cctx, cancel := e.callCtx(ctx) // each call has its own time: a slow re-read leaves the send its own
		msgs, err := e.li.Messages(cctx, in.chatID)
		cancel()
		switch {
		case errors.Is(err, outreach.ErrAccountDisconnected):
			r.err = err
			return r
		case err != nil:
			r.reread = err
			return r
		case len(msgs) > 0 && !msgs[len(msgs)-1].FromMe:
			r.wrote = true
			return r
		}
	}
	cctx, cancel := e.callCtx(ctx)
	defer cancel()
	r.chatID, r.messageID, r.err = e.li.SendMessage(cctx, in.acc.ProviderAccountID, in.target, in.text)
	if (notConnected(r.err) || errors.Is(r.err, outreach.ErrUnknownChat)) && in.resync && e.op != nil {
		rctx, rcancel := e.callCtx(ctx)
		defer rcancel()
		if e.resyncConnection(rctx, in.acc.ProviderAccountID, in.ref) == nil {
			r.chatID, r.messageID, r.err = e.li.SendMessage(rctx, in.acc.ProviderAccountID, in.ref.ProfileKey, in.text)
		}
	}
	return r
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

// reconcile checks with the provider whether an action whose answer was lost was carried out:
// an invitation is pending or accepted; a withdrawn invitation is no longer pending; a message
// of the seat with the same text is in the chat, dated after the intent. found is false when
// it was not; err is set when the provider could not tell.
func (e *Engine) reconcile(ctx context.Context, in *intent) callResult {
	var r callResult
	chat := in.chatID
	// The relation tells an invitation's or a withdrawal's outcome, and a message's chat when it
	// is not known; each call has its own time.
	if in.act.Kind == actInvite || in.act.Kind == actWithdraw || (in.act.Kind == actMessage && chat == "") {
		cctx, cancel := e.callCtx(ctx)
		rel, err := e.li.Relation(cctx, in.acc.ProviderAccountID, in.ref)
		cancel()
		if err != nil {
			r.err = err
			return r
		}
		switch in.act.Kind {
		case actInvite:
			r.found, r.inviteID = rel.InvitationID != "" || rel.Connected, rel.InvitationID
			return r
		case actWithdraw:
			r.found = rel.InvitationID == ""
			return r
		}
		if chat == "" {
			chat = rel.ChatID
		}
	}
	if chat == "" {
		return r
	}
	cctx, cancel := e.callCtx(ctx)
	defer cancel()
	msgs, err := e.li.Messages(cctx, chat)
	if err != nil {
		r.err = err
		return r
	}
	for _, m := range msgs {
		if m.FromMe && in.act.TextHash != nil && *textHash(m.Text) == *in.act.TextHash &&
			!m.At.Before(in.act.StartedAt.Add(-clockSkew)) {
			r.found, r.chatID, r.messageID, r.text = true, chat, m.ID, m.Text
			return r
		}
	}
	return r
}
