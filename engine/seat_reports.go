package engine

import (
	"context"
	"math"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// applyAccount records a seat's status change and emits its alert.
func (e *Engine) applyAccount(ctx context.Context, tx *storage.Tx, r reportRow, acc storage.LinkedInAccount) (map[string]any, error) {
	change, ev, changed := seatReport(e.cfg.PublicURL, r, acc)
	if !changed || (acc.DisconnectedBy != nil && change.Status != acc.Status) {
		// A seat a person disconnected stays so until it is connected again, whatever the
		// provider says of its account.
		return map[string]any{"changed": false}, nil
	}
	if err := updateSeat(ctx, tx, acc.ID, change); err != nil {
		return nil, err
	}
	if change.Status == "connected" && acc.Status != "connected" {
		if err := wakeCampaigns(ctx, tx, []string{acc.OrgID}, e.clock.Now()); err != nil {
			return nil, err
		}
	}
	tx.Emit(ev)
	return map[string]any{"changed": true}, nil
}

// seatReport decides what a status report changes on a seat and the alert it emits, with the
// fields of its account block; changed is false for a report that tells nothing new (a
// disconnect of a seat already down, a rate limit the seat is already under, a Sales Navigator
// verdict it already has). publicURL is the service's origin, for the reconnect link.
func seatReport(publicURL string, r reportRow, acc storage.LinkedInAccount) (change seatChange, ev outreach.Event, changed bool) {
	block := &outreach.AccountBlock{Name: acc.Name, AccountID: acc.ID}
	reconnect := outreach.AccountURL(publicURL, acc.ID)
	change = seatChange{Status: acc.Status, CooldownUntil: acc.CooldownUntil}
	var kind outreach.EventKind
	switch r.Kind {
	case outreach.ReportAccountDisconnected:
		if acc.Status == "disconnected" {
			return change, ev, false
		}
		change.Status, change.DisconnectedAt = "disconnected", timePtr(r.At)
		kind = outreach.EventAccountDisconnected
		block.Reason = "LinkedIn ended the session; reconnect the account to resume its campaigns"
		block.ReconnectURL, block.Status, block.DisconnectedAt = reconnect, "disconnected", outreach.FormatTime(r.At)
	case outreach.ReportAccountReconnected:
		if acc.Status != "disconnected" {
			return change, ev, false
		}
		change.Status = "connected"
		kind = outreach.EventAccountReconnected
		block.Status, block.ReconnectedAt = "connected", outreach.FormatTime(r.At)
	case outreach.ReportAccountRateLimited:
		until := r.cooldownEnd()
		hours := max(int(math.Ceil(until.Sub(r.At).Hours())), 1)
		if acc.Status == "rate_limited" && acc.CooldownUntil != nil && until.Before(acc.CooldownUntil.Add(time.Hour)) {
			// The limit the seat is under, reported again (it ends no later, or by less than the
			// hour the alert counts in): nothing new to tell.
			return change, ev, false
		}
		change.Status, change.CooldownUntil = "rate_limited", &until
		kind = outreach.EventAccountRateLimited
		block.Reason = "LinkedIn is refusing further invitations from this seat for now"
		block.CooldownHours, block.CooldownUntil = hours, outreach.FormatTime(until)
	case outreach.ReportSalesNavUnavailable, outreach.ReportSalesNavRestored:
		prev := outreach.SalesNavActive
		if acc.SNVerdict != nil {
			prev = *acc.SNVerdict
		}
		verdict, reason := outreach.SalesNavLapsed, "Sales Navigator lapsed on this seat; classic LinkedIn still works"
		kind = outreach.EventSalesNavUnavailable
		if r.Kind == outreach.ReportSalesNavRestored {
			verdict, reason, kind = outreach.SalesNavActive, "Sales Navigator works again on this seat", outreach.EventSalesNavRestored
		} else {
			block.ReconnectURL = reconnect
		}
		if prev == verdict {
			return change, ev, false
		}
		change.SNVerdict, change.SNChangedAt = &verdict, timePtr(r.At)
		block.Reason, block.SNVerdict, block.PreviousSNVerdict, block.SNChangedAt = reason, verdict, prev, outreach.FormatTime(r.At)
	default:
		return change, ev, false
	}
	return change, outreach.NewEvent(kind, acc.OrgID, r.At, outreach.EventData{Account: block}), true
}

// cooldownEnd is when a rate limit ends: the moment the provider gave, else At plus the hours it
// gave (at least one).
func (r reportRow) cooldownEnd() time.Time {
	if r.CooldownUntil != nil {
		return *r.CooldownUntil
	}
	return r.At.Add(time.Duration(max(r.CooldownHours, 1)) * time.Hour)
}
