package linkedin

import (
	"fmt"
	"strings"
	"time"
)

// Operator injections, behind `outreachd admin simulate ...`. Each one happens at the clock's
// now and goes through the same apply/emit path as the simulated network's own events, so the
// engine cannot tell them apart and handles them with the same code. Injections that would not
// change anything (disconnecting a dropped account) report nothing, as LinkedIn would not.

// InjectAccept makes the person accept every pending invite they have, now.
func (s *Simulator) InjectAccept(profileKey string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	var pending []*relation
	for _, rel := range s.sortedRels(s.keyOf(profileKey)) {
		if rel.invite == invitePending {
			pending = append(pending, rel)
		}
	}
	if len(pending) == 0 {
		return fmt.Errorf("%s: %w", profileKey, ErrNoPendingInvite)
	}
	if err := s.rememberInjection(now, opAccept, simCall{Target: profileKey}); err != nil {
		return err
	}
	for _, rel := range pending {
		s.acceptNow(rel, now)
	}
	return nil
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
		return "", ErrEmptyMessage
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	var rel *relation
	for _, r := range s.sortedRels(s.keyOf(profileKey)) {
		if rel == nil || r.lastActive.After(rel.lastActive) {
			rel = r
		}
	}
	switch {
	case rel == nil:
		return "", fmt.Errorf("%s: %w", profileKey, ErrUnknownProfile)
	case rel.invite != invitePending && rel.invite != inviteAccepted:
		return "", fmt.Errorf("%s: %w", profileKey, ErrNotConnected)
	}
	if err := s.rememberInjection(now, opReply, simCall{Target: profileKey, Text: text}); err != nil {
		return "", err
	}
	if rel.invite == invitePending {
		s.acceptNow(rel, now)
	}
	s.apply(&simEvent{at: now, kind: evReply, account: rel.accountID, profile: rel.ref.ProfileKey, text: text})
	return s.chatFor(rel).id, nil
}

// InjectDisconnect drops the account now.
func (s *Simulator) InjectDisconnect(accountID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	acc, err := s.account(accountID, false)
	if err != nil {
		return err
	}
	if err := s.rememberInjection(now, opDisconnect, simCall{Account: accountID}); err != nil {
		return err
	}
	if acc.disconnectEv != nil {
		acc.disconnectEv.dead = true
	}
	s.apply(&simEvent{at: now, kind: evDisconnect, account: acc.ID})
	return nil
}

// InjectReconnect brings a dropped account back; what happened meanwhile is reported after
// the reconnect.
func (s *Simulator) InjectReconnect(accountID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	acc, err := s.account(accountID, false)
	if err != nil {
		return err
	}
	if err := s.rememberInjection(now, opReconnect, simCall{Account: accountID}); err != nil {
		return err
	}
	s.reconnect(acc, now)
	return nil
}

// InjectRateLimit refuses the account's invites for cooldown (<= 0: the configured cooldown).
func (s *Simulator) InjectRateLimit(accountID string, cooldown time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	acc, err := s.account(accountID, false)
	if err != nil {
		return err
	}
	if err := s.rememberInjection(now, opRateLimit, simCall{Account: accountID, Cooldown: cooldown}); err != nil {
		return err
	}
	if cooldown <= 0 {
		cooldown = s.cfg.RateLimitCooldown
	}
	s.rateLimit(acc, now, cooldown)
	return nil
}

// InjectSalesNav lapses (true) or restores (false) the premium search product on one seat;
// Sales Navigator is bought per seat, so the seat is named.
func (s *Simulator) InjectSalesNav(accountID string, lapsed bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	acc, err := s.account(accountID, false)
	if err != nil {
		return err
	}
	if acc.SalesNav == !lapsed {
		return nil
	}
	if err := s.rememberInjection(now, opSalesNav, simCall{Account: accountID, Lapsed: lapsed}); err != nil {
		return err
	}
	acc.SalesNav = !lapsed
	kind := ReportSalesNavRestored
	if lapsed {
		kind = ReportSalesNavUnavailable
	}
	s.emit(Report{Kind: kind, AccountID: acc.ID, At: now})
	return nil
}
