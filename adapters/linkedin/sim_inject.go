package linkedin

import (
	"fmt"
	"strings"
	"time"

	"outreachd/outreach"
)

// Operator injections, behind `outreachd admin simulate ...`. Each one happens at the clock's
// now and goes through the same apply/emit path as the simulated network's own events, so the
// engine cannot tell them apart and handles them with the same code. Injections that would not
// change anything (disconnecting a dropped account) report nothing, as LinkedIn would not.

// inject makes one injection: under the lock, once the clock has caught up, check decides what
// the injection does (an error refuses it; a nil change means there is nothing to do), then the
// call is journaled and the change made.
func (s *Simulator) inject(op string, c simCall, check func(now time.Time) (change func(), err error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	change, err := check(now)
	if err != nil || change == nil {
		return err
	}
	if err := s.rememberInjection(now, op, c); err != nil {
		return err
	}
	change()
	return nil
}

// injectOnAccount is inject for an injection on one seat, which must exist.
func (s *Simulator) injectOnAccount(op string, c simCall, check func(acc *simAccount, now time.Time) func()) error {
	return s.inject(op, c, func(now time.Time) (func(), error) {
		acc, err := s.account(c.Account, false)
		if err != nil {
			return nil, err
		}
		return check(acc, now), nil
	})
}

// InjectAccept makes the person accept every pending invite they have, now.
func (s *Simulator) InjectAccept(profileKey string) error {
	return s.inject(opAccept, simCall{Target: profileKey}, func(now time.Time) (func(), error) {
		var pending []*relation
		for _, rel := range s.sortedRels(s.keyOf(profileKey)) {
			if rel.invite == invitePending {
				pending = append(pending, rel)
			}
		}
		if len(pending) == 0 {
			return nil, fmt.Errorf("%s: %w", profileKey, outreach.ErrNoPendingInvite)
		}
		return func() {
			for _, rel := range pending {
				s.acceptNow(rel, now)
			}
		}, nil
	})
}

func (s *Simulator) acceptNow(rel *relation, now time.Time) {
	if rel.acceptEv != nil {
		rel.acceptEv.dead = true
	}
	ev := &simEvent{at: now, kind: evAccept, account: rel.accountID, profile: rel.ref.ProfileKey}
	rel.acceptEv = ev
	s.apply(ev)
}

// InjectReply makes the person write text to the account that was most recently in touch with
// them and returns the chat id. A pending invite is accepted first, as a reply implies it.
func (s *Simulator) InjectReply(profileKey, text string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", outreach.ErrEmptyMessage
	}
	var chatID string
	err := s.inject(opReply, simCall{Target: profileKey, Text: text}, func(now time.Time) (func(), error) {
		var rel *relation
		for _, r := range s.sortedRels(s.keyOf(profileKey)) {
			if rel == nil || r.lastActive.After(rel.lastActive) {
				rel = r
			}
		}
		switch {
		case rel == nil:
			return nil, fmt.Errorf("%s: %w", profileKey, outreach.ErrUnknownProfile)
		case rel.invite != invitePending && rel.invite != inviteAccepted:
			return nil, fmt.Errorf("%s: %w", profileKey, outreach.ErrNotConnected)
		}
		return func() {
			if rel.invite == invitePending {
				s.acceptNow(rel, now)
			}
			s.apply(&simEvent{at: now, kind: evReply, account: rel.accountID, profile: rel.ref.ProfileKey, text: text})
			chatID = s.chatFor(rel).id
		}, nil
	})
	return chatID, err
}

// InjectDisconnect drops the account now.
func (s *Simulator) InjectDisconnect(accountID string) error {
	return s.injectOnAccount(opDisconnect, simCall{Account: accountID}, func(acc *simAccount, now time.Time) func() {
		return func() {
			if acc.disconnectEv != nil {
				acc.disconnectEv.dead = true
			}
			s.apply(&simEvent{at: now, kind: evDisconnect, account: acc.ID})
		}
	})
}

// InjectReconnect brings a dropped account back; what happened meanwhile is reported after
// the reconnect.
func (s *Simulator) InjectReconnect(accountID string) error {
	return s.injectOnAccount(opReconnect, simCall{Account: accountID}, func(acc *simAccount, now time.Time) func() {
		return func() { s.reconnect(acc, now) }
	})
}

// InjectRateLimit refuses the account's invites for cooldown (<= 0: the configured cooldown).
func (s *Simulator) InjectRateLimit(accountID string, cooldown time.Duration) error {
	c := simCall{Account: accountID, Cooldown: cooldown}
	return s.injectOnAccount(opRateLimit, c, func(acc *simAccount, now time.Time) func() {
		return func() {
			if cooldown <= 0 {
				cooldown = s.cfg.RateLimitCooldown
			}
			s.rateLimit(acc, now, cooldown)
		}
	})
}

// InjectSalesNav lapses (true) or restores (false) the premium search product on one seat;
// Sales Navigator is bought per seat, so the seat is named.
func (s *Simulator) InjectSalesNav(accountID string, lapsed bool) error {
	c := simCall{Account: accountID, Lapsed: lapsed}
	return s.injectOnAccount(opSalesNav, c, func(acc *simAccount, now time.Time) func() {
		if acc.SalesNav == !lapsed {
			return nil
		}
		return func() {
			acc.SalesNav = !lapsed
			kind := outreach.ReportSalesNavRestored
			if lapsed {
				kind = outreach.ReportSalesNavUnavailable
			}
			s.emit(outreach.LinkedInReport{Kind: kind, AccountID: acc.ID, At: now})
		}
	})
}
