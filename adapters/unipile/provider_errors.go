package unipile

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"outreachd/outreach"
)

// op is what a failed call was doing: it decides which of the port's errors a missing thing
// is, and whether a refusal stops the seat.
type op int

const (
	opRead     op = iota // a list or a read that changes nothing
	opAccount            // reading the seat's own account
	opProfile            // a profile look-up
	opInvite             // sending an invitation
	opWithdraw           // withdrawing one
	opMessage            // writing to a person
	opChat               // reading or writing into a known chat
)

// portError turns a client error into the port's words, keeping the client's error for logs
// (outreach.LinkedInError):
//
//   - already invited / already connected: ErrAlreadyInvited / ErrAlreadyConnected, never retried;
//   - cannot_resend_yet, limit_exceeded, 429: ErrRateLimited until Retry-After, else until
//     InviteCooldown (LinkedIn's invitation limits) or ThrottleCooldown (a bare 429); an
//     invitation or message refused so also reports account_rate_limited, so the seat cools down;
//   - no_connection_with_recipient: ErrNotConnected (the step waits for the acceptance);
//   - a disconnected, checkpointed or restricted seat (401, 403): ErrAccountDisconnected, and
//     account_disconnected is reported (Unipile sends no webhook for a restriction);
//   - not found: the missing thing (profile, chat, invitation, account);
//   - 5xx, time-outs, connection errors, an API key Unipile refuses: ErrProviderUnavailable,
//     with ErrOutcomeUnknown besides when a POST or DELETE may have been carried out;
//   - anything else: ErrRefused.
func (p *Provider) portError(ctx context.Context, accountID string, o op, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrTooManyPages) {
		return &outreach.LinkedInError{Kind: outreach.ErrProviderUnavailable, Err: err}
	}
	switch ClassOf(err) {
	case ClassAlreadyInvited:
		return &outreach.LinkedInError{Kind: outreach.ErrAlreadyInvited, Err: err}
	case ClassAlreadyConnected:
		return &outreach.LinkedInError{Kind: outreach.ErrAlreadyConnected, Err: err}
	case ClassRateLimited:
		return p.rateLimited(ctx, accountID, o, err)
	case ClassNotConnected:
		return &outreach.LinkedInError{Kind: outreach.ErrNotConnected, Err: err}
	case ClassSeatStopped:
		p.report(ctx, outreach.LinkedInReport{Kind: outreach.ReportAccountDisconnected, AccountID: accountID,
			DedupeKey: fmt.Sprintf("stopped:%s:%d", accountID, p.cfg.Now().Unix()/3600)})
		return &outreach.LinkedInError{Kind: outreach.ErrAccountDisconnected, Err: err}
	case ClassNotFound:
		return &outreach.LinkedInError{Kind: missing(o), Err: err}
	case ClassBadAPIKey:
		return &outreach.LinkedInError{Kind: outreach.ErrProviderUnavailable,
			Err: fmt.Errorf("unipile refused UNIPILE_API_KEY: %w", err)}
	case ClassTransient:
		if MaybePerformed(err) {
			err = fmt.Errorf("%w: %w", outreach.ErrOutcomeUnknown, err)
		}
		return &outreach.LinkedInError{Kind: outreach.ErrProviderUnavailable, Err: err}
	case ClassRejected:
		return &outreach.LinkedInError{Kind: outreach.ErrRefused, Err: err}
	}
	if ctx.Err() != nil {
		return err
	}
	return &outreach.LinkedInError{Kind: outreach.ErrProviderUnavailable, Err: err}
}

// missing is the port's error for a thing Unipile does not know, by what the call was about.
func missing(o op) error {
	switch o {
	case opProfile, opInvite, opMessage:
		return outreach.ErrUnknownProfile
	case opWithdraw:
		return outreach.ErrNoPendingInvite
	case opChat:
		return outreach.ErrUnknownChat
	}
	return outreach.ErrUnknownAccount
}

// rateLimited is ErrRateLimited until when Unipile said, or the cool-down of the refusal's
// kind. A refused invitation or message makes the seat rest: this process remembers it
// (AccountHealth) and the engine learns it from an account_rate_limited report.
func (p *Provider) rateLimited(ctx context.Context, accountID string, o op, err error) error {
	now := p.cfg.Now()
	wait := RetryAfter(err)
	var ue *Error
	switch {
	case wait > 0:
	case errors.As(err, &ue) && ue.Status != 429:
		wait = p.cfg.InviteCooldown
	default:
		wait = p.cfg.ThrottleCooldown
	}
	until := now.Add(wait)
	if accountID != "" && (o == opInvite || o == opMessage || o == opChat) {
		p.mu.Lock()
		if until.After(p.cooldowns[accountID]) {
			p.cooldowns[accountID] = until
		}
		p.mu.Unlock()
		p.report(ctx, outreach.LinkedInReport{Kind: outreach.ReportAccountRateLimited, AccountID: accountID,
			CooldownHours: int(math.Ceil(wait.Hours())), CooldownUntil: until,
			DedupeKey: fmt.Sprintf("rate_limited:%s:%d", accountID, until.Truncate(time.Minute).Unix())})
	}
	return &outreach.LinkedInError{Kind: outreach.ErrRateLimited, RetryAt: until, Err: err}
}

// report records a report the provider found itself; a failure to store it is logged, and the
// call's own error still goes back to the caller.
func (p *Provider) report(ctx context.Context, r outreach.LinkedInReport) {
	if r.AccountID == "" {
		return
	}
	r.At = p.cfg.Now()
	if _, err := p.store.RecordReports(context.WithoutCancel(ctx), []outreach.LinkedInReport{r}); err != nil {
		p.cfg.Logger.Warn("unipile: store a seat report", "kind", r.Kind, "account", r.AccountID, "err", err)
	}
}
