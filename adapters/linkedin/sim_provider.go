package linkedin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"outreachd/outreach"
)

// The provider port's methods on the Simulator. Each one first lets the clock catch up (sync), so
// the simulated network has always moved on to "now" before it answers.

// Accounts lists every connected account, in connect order.
func (s *Simulator) Accounts(ctx context.Context) ([]outreach.ProviderAccount, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	out := make([]outreach.ProviderAccount, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.accounts[id].snapshot(now))
	}
	return out, nil
}

// ConnectAccount links an account; the id is derived from orgID and name, so connecting the
// same pair again returns the same account, reconnecting it if it had dropped.
func (s *Simulator) ConnectAccount(ctx context.Context, orgID, name string) (outreach.ProviderAccount, error) {
	if err := ctx.Err(); err != nil {
		return outreach.ProviderAccount{}, err
	}
	if strings.TrimSpace(orgID) == "" || strings.TrimSpace(name) == "" {
		return outreach.ProviderAccount{}, errors.New("linkedin sim: org id and account name are required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	if err := s.remember(ctx, now, opConnect, simCall{Org: orgID, Name: name}); err != nil {
		return outreach.ProviderAccount{}, err
	}
	id := hexID("acc", s.hash("account", orgID, name))
	if acc, ok := s.accounts[id]; ok {
		s.reconnect(acc, now)
		return acc.snapshot(now), nil
	}
	acc := &simAccount{ProviderAccount: outreach.ProviderAccount{ID: id, OrgID: orgID, Name: name, SalesNav: true, ConnectedAt: now}}
	s.accounts[id] = acc
	s.order = append(s.order, id)
	s.scheduleDisconnect(acc, now)
	return acc.snapshot(now), nil
}

// SendInvite sends a connection request and returns the invitation's id. Whether and when the
// person accepts is decided now, from the seed, their key and the account.
func (s *Simulator) SendInvite(ctx context.Context, accountID string, profile outreach.ProfileRef, note string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if utf8.RuneCountInString(note) > outreach.MaxConnectNoteLen {
		return "", outreach.ErrNoteTooLong
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
	if acc.status(now) == outreach.AccountRateLimited {
		return "", &outreach.LinkedInError{Kind: outreach.ErrRateLimited, RetryAt: acc.rateLimitedUntil,
			Err: fmt.Errorf("account %q", accountID)}
	}
	key := relKey{acc.ID, ref.ProfileKey}
	rel := s.rels[key]
	if rel != nil && (rel.invite == invitePending || rel.invite == inviteAccepted) {
		return "", fmt.Errorf("%s: %w", ref.ProfileKey, outreach.ErrAlreadyInvited)
	}
	if err := s.remember(ctx, now, opInvite, simCall{Account: accountID, Profile: &profile, Text: note}); err != nil {
		return "", err
	}
	if day := now.UTC().Format(time.DateOnly); acc.day != day {
		acc.day, acc.invitesToday = day, 0
	}
	if acc.invitesToday >= s.cfg.DailyInviteLimit {
		s.rateLimit(acc, now, s.cfg.RateLimitCooldown)
		return "", &outreach.LinkedInError{Kind: outreach.ErrRateLimited, RetryAt: acc.rateLimitedUntil,
			Err: fmt.Errorf("account %q after %d invitations today: %w", accountID, acc.invitesToday, errDailyLimitHit)}
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
	acc.invitedAt = append(weekOf(acc.invitedAt, now), now)
	if s.unit("accept", ref.ProfileKey) < s.cfg.AcceptRate {
		d := delay(s.cfg.AcceptDelayMin, s.cfg.AcceptDelayMax,
			s.unit("accept-delay", acc.ID, ref.ProfileKey, fmt.Sprint(rel.invites)))
		rel.acceptEv = s.schedule(&simEvent{at: now.Add(d), kind: evAccept, account: acc.ID, profile: ref.ProfileKey})
	}
	return rel.inviteID, nil
}

// WithdrawInvite withdraws the pending invitation inviteID (what SendInvite returned; "" for the
// person's pending one, whichever it is) to profile; the person will not accept it any more.
func (s *Simulator) WithdrawInvite(ctx context.Context, accountID, inviteID string, profile outreach.ProfileRef) error {
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
	if rel == nil || rel.invite != invitePending || (inviteID != "" && inviteID != rel.inviteID) {
		return outreach.ErrNoPendingInvite
	}
	if err := s.remember(ctx, now, opWithdraw, simCall{Account: accountID, Profile: &profile, Invite: inviteID}); err != nil {
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
		return "", "", outreach.ErrEmptyMessage
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
			return "", "", fmt.Errorf("chat %q: %w", chatOrProfile, outreach.ErrUnknownChat)
		}
		rel = s.rels[relKey{acc.ID, c.profileKey}]
	} else {
		rel = s.rels[relKey{acc.ID, s.keyOf(chatOrProfile)}]
		if rel == nil {
			return "", "", fmt.Errorf("%q: %w", chatOrProfile, outreach.ErrUnknownProfile)
		}
	}
	if rel.invite != inviteAccepted {
		return "", "", fmt.Errorf("%s: %w", rel.ref.ProfileKey, outreach.ErrNotConnected)
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
func (s *Simulator) ListChats(ctx context.Context, accountID string, limit int) ([]outreach.Chat, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if _, err := s.account(accountID, true); err != nil {
		return nil, err
	}
	var out []outreach.Chat
	for _, c := range s.chats {
		if c.accountID != accountID {
			continue
		}
		rel := s.rels[relKey{c.accountID, c.profileKey}]
		ch := outreach.Chat{ID: c.id, AccountID: c.accountID, AttendeeName: rel.ref.Name,
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
func (s *Simulator) Messages(ctx context.Context, chatID string) ([]outreach.ChatMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	c, ok := s.chats[chatID]
	if !ok {
		return nil, fmt.Errorf("chat %q: %w", chatID, outreach.ErrUnknownChat)
	}
	if s.accounts[c.accountID].disconnected {
		return nil, fmt.Errorf("chat %q: %w", chatID, outreach.ErrAccountDisconnected)
	}
	return append([]outreach.ChatMessage(nil), c.msgs...), nil
}

// AccountHealth reports an account's state and what it did today and this week; it answers for
// a disconnected account too.
func (s *Simulator) AccountHealth(ctx context.Context, accountID string) (outreach.AccountHealth, error) {
	if err := ctx.Err(); err != nil {
		return outreach.AccountHealth{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.sync()
	acc, err := s.account(accountID, false)
	if err != nil {
		return outreach.AccountHealth{}, err
	}
	h := outreach.AccountHealth{AccountID: acc.ID, Status: acc.status(now), SalesNav: acc.SalesNav,
		DailyInviteLimit: s.cfg.DailyInviteLimit, InvitesThisWeek: len(weekOf(acc.invitedAt, now)), CheckedAt: now}
	if h.Status == outreach.AccountRateLimited {
		h.RateLimitedUntil = acc.rateLimitedUntil
	}
	today := now.UTC().Format(time.DateOnly)
	if acc.day == today {
		h.InvitesToday = acc.invitesToday
	}
	for key, rel := range s.rels {
		if key.account == acc.ID && rel.invite == invitePending {
			h.PendingInvites++
		}
	}
	for _, c := range s.chats {
		for _, m := range c.msgs {
			if c.accountID == acc.ID && m.FromMe && m.At.UTC().Format(time.DateOnly) == today {
				h.MessagesToday++
			}
		}
	}
	return h, nil
}

// weekOf returns the times of ts (oldest first) within the 7 days up to now.
func weekOf(ts []time.Time, now time.Time) []time.Time {
	from := now.Add(-7 * 24 * time.Hour)
	i := 0
	for i < len(ts) && !ts[i].After(from) {
		i++
	}
	return ts[i:]
}

// LookUpProfile resolves a person, as the seat sees them, to the member id invitations and
// messages are addressed to. Every handle is a member of the simulated network, whose id derives
// from the key; the network knows a member's name once an invitation carried it, and no
// headline or company.
func (s *Simulator) LookUpProfile(ctx context.Context, accountID string, profile outreach.ProfileRef) (outreach.MemberProfile, error) {
	if err := ctx.Err(); err != nil {
		return outreach.MemberProfile{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if _, err := s.account(accountID, true); err != nil {
		return outreach.MemberProfile{}, err
	}
	key := profile.ProfileKey
	if key == "" {
		key = s.keyOf(profile.ProviderID)
	}
	if key == "" {
		return outreach.MemberProfile{}, outreach.ErrInvalidProfile
	}
	m := outreach.MemberProfile{ProviderID: profile.ProviderID, PublicIdentifier: strings.TrimPrefix(key, "in:")}
	if m.PublicIdentifier == key {
		m.PublicIdentifier = ""
	}
	if m.ProviderID == "" {
		m.ProviderID = s.memberID(key)
	}
	for _, rel := range s.sortedRels(key) {
		if rel.ref.Name != "" {
			m.Name = rel.ref.Name
			break
		}
	}
	return m, nil
}

// Poll returns reports after the cursor. The simulator keeps every report in memory for its
// lifetime, so any cursor it handed out stays valid.
func (s *Simulator) Poll(ctx context.Context, after int64, limit int) ([]outreach.LinkedInReport, error) {
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
	return append([]outreach.LinkedInReport(nil), out...), nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Relation reports the seat's pending invitation to a person, whether they are connected, and
// their chat, as the simulated network stands now.
func (s *Simulator) Relation(ctx context.Context, accountID string, profile outreach.ProfileRef) (outreach.SeatRelation, error) {
	if err := ctx.Err(); err != nil {
		return outreach.SeatRelation{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if _, err := s.account(accountID, true); err != nil {
		return outreach.SeatRelation{}, err
	}
	key := s.keyOf(firstNonEmpty(profile.ProfileKey, profile.ProviderID))
	if key == "" {
		return outreach.SeatRelation{}, outreach.ErrInvalidProfile
	}
	var out outreach.SeatRelation
	rel := s.rels[relKey{accountID, key}]
	if rel == nil {
		return out, nil
	}
	switch rel.invite {
	case invitePending:
		out.InvitationID = rel.inviteID
	case inviteAccepted:
		out.Connected = true
	}
	for _, c := range s.chats {
		if c.accountID == accountID && c.profileKey == key {
			out.ChatID = c.id
			break
		}
	}
	return out, nil
}
