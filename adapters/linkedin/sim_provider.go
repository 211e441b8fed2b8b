package linkedin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// The Provider methods of Simulator. Each one first lets the clock catch up (sync), so the
// simulated network has always moved on to "now" before it answers.

// Accounts lists every connected account, in connect order.
func (s *Simulator) Accounts(ctx context.Context) ([]Account, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	out := make([]Account, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.accounts[id].snapshot(now))
	}
	return out, nil
}

// ConnectAccount links an account; the id is derived from orgID and name, so connecting the
// same pair again returns the same account, reconnecting it if it had dropped.
func (s *Simulator) ConnectAccount(ctx context.Context, orgID, name string) (Account, error) {
	if err := ctx.Err(); err != nil {
		return Account{}, err
	}
	if strings.TrimSpace(orgID) == "" || strings.TrimSpace(name) == "" {
		return Account{}, errors.New("linkedin sim: org id and account name are required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	if err := s.remember(ctx, now, opConnect, simCall{Org: orgID, Name: name}); err != nil {
		return Account{}, err
	}
	id := hexID("acc", s.hash("account", orgID, name))
	if acc, ok := s.accounts[id]; ok {
		s.reconnect(acc, now)
		return acc.snapshot(now), nil
	}
	acc := &simAccount{Account: Account{ID: id, OrgID: orgID, Name: name, SalesNav: true, ConnectedAt: now}}
	s.accounts[id] = acc
	s.order = append(s.order, id)
	s.scheduleDisconnect(acc, now)
	return acc.snapshot(now), nil
}

// SendInvite sends a connection request. Whether and when the person accepts is decided now,
// from the seed, their key and the account.
func (s *Simulator) SendInvite(ctx context.Context, accountID string, profile ProfileRef, note string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if utf8.RuneCountInString(note) > MaxNoteLength {
		return "", ErrNoteTooLong
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	acc, err := s.account(accountID, true)
	if err != nil {
		return "", err
	}
	ref, err := s.resolve(profile)
	if err != nil {
		return "", err
	}
	if acc.status(now) == StatusRateLimited {
		return "", fmt.Errorf("account %q until %s: %w", accountID, acc.rateLimitedUntil.UTC().Format(time.RFC3339), ErrRateLimited)
	}
	key := relKey{acc.ID, ref.ProfileKey}
	rel := s.rels[key]
	if rel != nil && (rel.invite == invitePending || rel.invite == inviteAccepted) {
		return "", fmt.Errorf("%s: %w", ref.ProfileKey, ErrAlreadyInvited)
	}
	if err := s.remember(ctx, now, opInvite, simCall{Account: accountID, Profile: &profile, Text: note}); err != nil {
		return "", err
	}
	if day := now.UTC().Format(time.DateOnly); acc.day != day {
		acc.day, acc.invitesToday = day, 0
	}
	if acc.invitesToday >= s.cfg.DailyInviteLimit {
		s.rateLimit(acc, now, s.cfg.RateLimitCooldown)
		return "", fmt.Errorf("account %q after %d invites today: %w", accountID, acc.invitesToday, ErrRateLimited)
	}
	if rel == nil {
		rel = &relation{accountID: acc.ID}
		s.rels[key] = rel
	}
	rel.ref = ref
	rel.invite = invitePending
	rel.invites++
	rel.inviteID = hexID("inv", s.hash("invite", acc.ID, ref.ProfileKey, fmt.Sprint(rel.invites)))
	rel.lastActive = now
	acc.invitesToday++
	if s.unit("accept", ref.ProfileKey) < s.cfg.AcceptRate {
		d := delay(s.cfg.AcceptDelayMin, s.cfg.AcceptDelayMax,
			s.unit("accept-delay", acc.ID, ref.ProfileKey, fmt.Sprint(rel.invites)))
		rel.acceptEv = s.schedule(&simEvent{at: now.Add(d), kind: evAccept, account: acc.ID, profile: ref.ProfileKey})
	}
	return rel.inviteID, nil
}

// WithdrawInvite withdraws a pending invite; the person will not accept it any more.
func (s *Simulator) WithdrawInvite(ctx context.Context, accountID string, profile ProfileRef) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	if _, err := s.account(accountID, true); err != nil {
		return err
	}
	rel := s.rels[relKey{accountID, s.keyOf(firstNonEmpty(profile.ProfileKey, profile.ProviderID))}]
	if rel == nil || rel.invite != invitePending {
		return ErrNoPendingInvite
	}
	if err := s.remember(ctx, now, opWithdraw, simCall{Account: accountID, Profile: &profile}); err != nil {
		return err
	}
	rel.invite = inviteWithdrawn
	if rel.acceptEv != nil {
		rel.acceptEv.dead = true
		rel.acceptEv = nil
	}
	return nil
}

// SendMessage sends text into a chat, or to a connection by profile key or provider id.
// A person with script left answers after a seeded delay; one answer is pending at a time.
func (s *Simulator) SendMessage(ctx context.Context, accountID, chatOrProfile, text string) (string, string, error) {
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", "", ErrEmptyMessage
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	acc, err := s.account(accountID, true)
	if err != nil {
		return "", "", err
	}
	var rel *relation
	if c, ok := s.chats[chatOrProfile]; ok {
		if c.accountID != acc.ID {
			return "", "", fmt.Errorf("chat %q: %w", chatOrProfile, ErrUnknownChat)
		}
		rel = s.rels[relKey{acc.ID, c.profileKey}]
	} else {
		rel = s.rels[relKey{acc.ID, s.keyOf(chatOrProfile)}]
		if rel == nil {
			return "", "", fmt.Errorf("%q: %w", chatOrProfile, ErrUnknownProfile)
		}
	}
	if rel.invite != inviteAccepted {
		return "", "", fmt.Errorf("%s: %w", rel.ref.ProfileKey, ErrNotConnected)
	}
	if err := s.remember(ctx, now, opMessage, simCall{Account: accountID, Target: chatOrProfile, Text: text}); err != nil {
		return "", "", err
	}
	chat := s.chatFor(rel)
	msg := chat.add(text, now, true, acc.ID)
	rel.lastActive = now
	if rel.replyEv == nil {
		if reply, ok := s.scriptedReply(rel.ref, rel.ref.ProfileKey, rel.replies); ok {
			d := delay(s.cfg.ReplyDelayMin, s.cfg.ReplyDelayMax,
				s.unit("reply-delay", acc.ID, rel.ref.ProfileKey, fmt.Sprint(rel.replies)))
			rel.replyEv = s.schedule(&simEvent{at: now.Add(d), kind: evReply, account: acc.ID,
				profile: rel.ref.ProfileKey, text: reply, scripted: true})
		}
	}
	return chat.id, msg.ID, nil
}

// ListChats lists an account's chats, most recent message first.
func (s *Simulator) ListChats(ctx context.Context, accountID string, limit int) ([]Chat, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if _, err := s.account(accountID, true); err != nil {
		return nil, err
	}
	var out []Chat
	for _, c := range s.chats {
		if c.accountID != accountID {
			continue
		}
		rel := s.rels[relKey{c.accountID, c.profileKey}]
		ch := Chat{ID: c.id, AccountID: c.accountID, AttendeeName: rel.ref.Name,
			AttendeeProviderID: rel.ref.ProviderID, ProfileKey: c.profileKey}
		for _, m := range c.msgs {
			if m.FromMe {
				ch.UnreadCount = 0
			} else {
				ch.UnreadCount++
			}
		}
		if n := len(c.msgs); n > 0 {
			last := c.msgs[n-1]
			ch.LastMessage = &last
		}
		out = append(out, ch)
	}
	sortChats(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Messages returns a copy of a chat's messages, oldest first.
func (s *Simulator) Messages(ctx context.Context, chatID string) ([]Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	c, ok := s.chats[chatID]
	if !ok {
		return nil, fmt.Errorf("chat %q: %w", chatID, ErrUnknownChat)
	}
	if s.accounts[c.accountID].disconnected {
		return nil, fmt.Errorf("chat %q: %w", chatID, ErrAccountDisconnected)
	}
	return append([]Message(nil), c.msgs...), nil
}

// AccountHealth reports an account's state; it answers for a disconnected account too.
func (s *Simulator) AccountHealth(ctx context.Context, accountID string) (Health, error) {
	if err := ctx.Err(); err != nil {
		return Health{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	acc, err := s.account(accountID, false)
	if err != nil {
		return Health{}, err
	}
	h := Health{AccountID: acc.ID, Status: acc.status(now), SalesNav: acc.SalesNav,
		DailyInviteLimit: s.cfg.DailyInviteLimit, CheckedAt: now}
	if h.Status == StatusRateLimited {
		h.RateLimitedUntil = acc.rateLimitedUntil
	}
	if acc.day == now.UTC().Format(time.DateOnly) {
		h.InvitesToday = acc.invitesToday
	}
	return h, nil
}

// Poll returns reports after the cursor. The simulator keeps every report in memory for its
// lifetime, so any cursor it handed out stays valid.
func (s *Simulator) Poll(ctx context.Context, after int64, limit int) ([]Report, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if after < 0 {
		after = 0
	}
	if after >= int64(len(s.reports)) {
		return nil, nil
	}
	out := s.reports[after:]
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return append([]Report(nil), out...), nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
