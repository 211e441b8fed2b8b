package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// Every LinkedIn action (an invitation, a sequence message, a withdrawal, a reply) is taken in
// two phases around the provider's call, with no transaction open during the call:
//
//  1. One short transaction re-checks the person (stop, block, opt-out) and the seat (status,
//     caps, pace), claims the seat's next slot and records the intent (linkedin_actions, state
//     started) under a unique key, so a second instance cannot start the same action.
//  2. The provider is called.
//  3. A second transaction records the outcome and everything the action causes (status,
//     activity, events), re-reading the person first: a stop that landed during the call keeps
//     the sequence from going on.
//
// When the answer was lost (the provider says outreach.ErrOutcomeUnknown, or the call ran out of
// time) or the process died between 1 and 3 (a started action past its lease), the action is
// checked with the provider before anything is sent again: found, it is recorded as done, once;
// not found, it may be started again.

// intent is an action phase 1 decided on, carried through the call to phase 3.
type intent struct {
	act       action // the row, at the attempt this intent owns
	reconcile bool   // the action may have been carried out already: check, do not act
	acc       storage.LinkedInAccount
	ref       outreach.ProfileRef
	text      string // the note or message
	target    string // a message: the chat id or the person's key it is sent to
	chatID    string // the known chat (a follow-up re-reads it first)
	step      int    // a message: its sequence step
	resync    bool   // a simulator may have lost the connection the database knows
	view      *action
	checkOnly bool // only an action left open may be checked; none is started
}

// callResult is what the provider answered in phase 2.
type callResult struct {
	err       error
	unknown   bool // the call may have been carried out; its answer was lost
	found     bool // a check found the action carried out
	inviteID  string
	chatID    string
	messageID string
	text      string                  // a check: the text of the message found, as the provider has it
	member    *outreach.MemberProfile // what the look-up before an invitation found
	viewErr   error
	wrote     bool  // a follow-up's re-read found the person wrote since: nothing was sent
	reread    error // a follow-up's thread could not be re-read: nothing was sent
}

// actionLease is how long (wall clock) a started action belongs to the instance that started
// it: well beyond one call's time-out, so an instance that is alive always finishes first.
func (e *Engine) actionLease() time.Duration { return 4*e.cfg.CallTimeout + time.Minute }

// outcomeUnknown reports a call whose answer was lost after it may have been carried out: the
// provider said so, or its own time ran out while the engine's context is alive.
func outcomeUnknown(ctx context.Context, err error) bool {
	return errors.Is(err, outreach.ErrOutcomeUnknown) || (errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil)
}

// textHash identifies a text sent, to recognise it in a chat when a lost answer is checked.
func textHash(text string) *string {
	h := sha256.Sum256([]byte(strings.TrimSpace(text)))
	s := hex.EncodeToString(h[:])
	return &s
}

// clockSkew is how much earlier than the recorded intent a provider may date the message it sent.
const clockSkew = time.Minute

// gateResult is what phase 1 decided about an action. All zero: the same action is under way
// in another instance.
type gateResult struct {
	in     *intent   // the action to carry out or check; nil: nothing now
	down   bool      // the seat cannot act now
	wait   time.Time // the seat may act again then (its pace, or a cap until)
	capped string    // the cap reached
	done   bool      // the action was carried out already
}

// begin is phase 1's common part, inside the transaction that locked the seat (g) and the
// person or draft: an action already recorded is left to the instance carrying it out, checked
// when it is stale, or started again when it surely failed; a new one passes the seat's gate,
// claims the seat's next slot and is recorded as started. lookUp adds the profile view of an
// invitation that first looks the person up.
func (e *Engine) begin(ctx context.Context, tx pgx.Tx, g seatGate, in *intent, lookUp bool, now time.Time) (gateResult, error) {
	prev, exists, err := findAction(ctx, tx, in.act)
	if err != nil {
		return gateResult{}, err
	}
	if exists && prev.State != actFailed {
		if prev.State == actDone {
			return gateResult{done: true}, nil
		}
		if !prev.Stale {
			return gateResult{}, nil
		}
		if in.act, err = reclaimAction(ctx, tx, prev.ID, e.actionLease()); err != nil {
			return gateResult{}, err
		}
		in.reconcile, in.acc = true, g.acc
		if prev.AccountID != g.acc.ID { // checked on the seat that acted
			if in.acc, err = getSeat(ctx, tx, prev.AccountID); err != nil {
				return gateResult{}, err
			}
		}
		return gateResult{in: in}, nil
	}
	if in.checkOnly {
		return gateResult{}, nil
	}
	if exists {
		in.act.ID = prev.ID
	}
	act, v, err := e.claim(ctx, tx, g, in.act, exists, lookUp, now)
	if err != nil || act == nil {
		return gateResult{down: v.down, wait: v.wait, capped: v.capped}, err
	}
	in.act, in.acc = *act, g.acc
	if lookUp {
		view, err := startAction(ctx, tx, action{OrgID: in.act.OrgID, AccountID: g.acc.ID, ProspectID: in.act.ProspectID,
			Kind: actView, StartedAt: now}, false, e.actionLease())
		if err != nil {
			return gateResult{}, err
		}
		in.view = &view
	}
	return gateResult{in: in}, nil
}

// claim passes the seat's gate (g is locked) for a at now and, when the seat may act, claims
// its next slot (a gap of ActionSpacing later) and records a as started (again: taking its
// earlier failed row). The action is nil when the gate said no.
func (e *Engine) claim(ctx context.Context, tx pgx.Tx, g seatGate, a action, again, lookUp bool, now time.Time) (*action, gateVerdict, error) {
	v := g.admit(a.Kind, lookUp, now)
	if v.down || !v.wait.IsZero() {
		return nil, v, nil
	}
	if err := claimSeatSlot(ctx, tx, g.acc.ID, now.Add(e.cfg.ActionSpacing.gap())); err != nil {
		return nil, v, err
	}
	a.AccountID, a.StartedAt = g.acc.ID, now
	started, err := startAction(ctx, tx, a, again, e.actionLease())
	return &started, v, err
}

// attemptEnd is how an attempt ended: done (carried out, or found by a check), unknown (its
// answer was lost, or a check could not tell), or failed (surely not carried out).
func attemptEnd(in *intent, r callResult, done bool, now time.Time) actionEnd {
	switch {
	case done:
		return actionEnd{State: actDone, At: now, InviteID: r.inviteID, ChatID: r.chatID, MessageID: r.messageID}
	case r.unknown || (in.reconcile && r.err != nil):
		return actionEnd{State: actUnknown, At: now, Error: errText(r.err)}
	case in.reconcile:
		return actionEnd{State: actFailed, At: now, Error: "checked with the provider: not carried out"}
	case r.err != nil:
		return actionEnd{State: actFailed, At: now, Error: r.err.Error()}
	case r.reread != nil:
		return actionEnd{State: actFailed, At: now, Error: "thread not re-read: " + r.reread.Error()}
	}
	return actionEnd{State: actFailed, At: now, Error: "the person wrote since the last message; nothing sent"}
}

// succeeded reports an attempt carried out: a check found it, or the call answered without an
// error (or with one of ok, which mean the same for this action).
func succeeded(in *intent, r callResult, ok ...error) bool {
	if in.reconcile {
		return r.found
	}
	return !r.wrote && r.reread == nil && (r.err == nil || errorsIsAny(r.err, ok...))
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// finishView records how the profile look-up before an invitation ended, and caches what it
// found on the prospect (p is locked), so that the person is never looked up again.
func finishView(ctx context.Context, tx pgx.Tx, view *action, r callResult, p *engineProspect, now time.Time) error {
	if view == nil {
		return nil
	}
	end := actionEnd{State: actDone, At: now}
	switch {
	case r.member == nil && r.viewErr == nil: // the look-up was never made
		end = actionEnd{State: actFailed, At: now, Error: "not looked up"}
	case r.viewErr != nil && !errors.Is(r.viewErr, outreach.ErrUnknownProfile) && !outcomeUnknown(ctx, r.viewErr):
		end = actionEnd{State: actFailed, At: now, Error: r.viewErr.Error()}
	}
	if _, err := finishAction(ctx, tx, view.ID, view.Attempts, end); err != nil {
		return err
	}
	if r.member != nil && r.member.ProviderID != "" {
		p.MemberID = &r.member.ProviderID
		if p.PublicIdentifier == nil && r.member.PublicIdentifier != "" {
			p.PublicIdentifier = &r.member.PublicIdentifier
		}
	}
	return nil
}

// seatTold records what a provider's refusal says about the seat itself: rate limited (it cools
// down until the provider's retry time, to the second, else a day) or disconnected (it stops
// until the provider reports it connected again), with the alert the same report would emit.
// The seat is locked.
func (e *Engine) seatTold(ctx context.Context, tx *storage.Tx, accountID string, err error, now time.Time) error {
	var r reportRow
	switch {
	case errors.Is(err, outreach.ErrAccountDisconnected):
		r = reportRow{Kind: outreach.ReportAccountDisconnected, At: now}
	case errors.Is(err, outreach.ErrRateLimited):
		until := now.Add(24 * time.Hour)
		if _, at := outreach.LinkedInRetryable(err); at.After(now) {
			until = at
		}
		r = reportRow{Kind: outreach.ReportAccountRateLimited, At: now, CooldownUntil: &until}
	default:
		return nil
	}
	acc, lerr := lockSeat(ctx, tx, accountID)
	if lerr != nil {
		return lerr
	}
	_, aerr := e.applyAccount(ctx, tx, r, acc)
	return aerr
}

// lockSeat locks a seat by our id.
func lockSeat(ctx context.Context, tx pgx.Tx, id string) (storage.LinkedInAccount, error) {
	a, err := storage.ScanLinkedInAccount(tx.QueryRow(ctx, `SELECT `+storage.LinkedInAccountColumns+` FROM linkedin_accounts
		WHERE id = $1 FOR UPDATE`, id))
	return a, storage.NotFound(err, "linkedin account "+id)
}
