package linkedin

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"outreachd/outreach"
)

// SimConfig tunes the Simulator. Zero values take the defaults in brackets.
type SimConfig struct {
	Seed int64
	// AcceptRate is the share of invited people who ever accept [0.4]; negative: nobody.
	AcceptRate                     float64
	AcceptDelayMin, AcceptDelayMax time.Duration // [1h, 96h]
	ReplyDelayMin, ReplyDelayMax   time.Duration // [10m, 36h]
	// DailyInviteLimit: the invite after this many on one UTC day rate-limits the account [40].
	DailyInviteLimit  int
	RateLimitCooldown time.Duration // [24h]
	// DisconnectPerDay is the chance a connected account drops on a given UTC day [0.002];
	// negative: never. A dropped account stays down until reconnected.
	DisconnectPerDay float64
}

func (c *SimConfig) setDefaults() {
	c.AcceptRate = cmp.Or(c.AcceptRate, 0.4)
	c.AcceptDelayMin = cmp.Or(c.AcceptDelayMin, time.Hour)
	c.AcceptDelayMax = cmp.Or(c.AcceptDelayMax, 96*time.Hour)
	c.ReplyDelayMin = cmp.Or(c.ReplyDelayMin, 10*time.Minute)
	c.ReplyDelayMax = cmp.Or(c.ReplyDelayMax, 36*time.Hour)
	c.RateLimitCooldown = cmp.Or(c.RateLimitCooldown, 24*time.Hour)
	c.DailyInviteLimit = cmp.Or(c.DailyInviteLimit, 40)
	c.DisconnectPerDay = cmp.Or(c.DisconnectPerDay, 0.002)
}

// Validate reports a configuration the simulator cannot honour.
func (c SimConfig) Validate() error {
	switch {
	case c.AcceptRate > 1 || c.DisconnectPerDay > 1:
		return errors.New("linkedin sim: rates must be at most 1")
	case c.AcceptDelayMin < 0 || c.AcceptDelayMax < c.AcceptDelayMin:
		return errors.New("linkedin sim: accept delays must satisfy 0 <= min <= max")
	case c.ReplyDelayMin < 0 || c.ReplyDelayMax < c.ReplyDelayMin:
		return errors.New("linkedin sim: reply delays must satisfy 0 <= min <= max")
	case c.DailyInviteLimit < 0 || c.RateLimitCooldown < 0:
		return errors.New("linkedin sim: invite limit and cooldown must not be negative")
	}
	return nil
}

// Simulator is an in-memory LinkedIn. Outcomes come from seeded hashes of the account and
// profile keys, so the same seed and the same calls give the same reports; time comes only
// from the clock, and events fall due when the clock passes them (checked on every call, so a
// sped-up VirtualClock needs no goroutine). NewSimulator keeps its world in memory only (tests);
// OpenSimulator keeps it in a WorldStore, so a restarted process continues the same world.
type Simulator struct {
	cfg   SimConfig
	clock outreach.Clock

	mu       sync.Mutex
	accounts map[string]*simAccount
	order    []string // account ids in connect order
	rels     map[relKey]*relation
	byProv   map[string]string // provider id -> profile key
	chats    map[string]*simChat
	queue    eventQueue
	evSeq    int64
	reports  []outreach.LinkedInReport

	// The journal (sim_world.go); store is nil for an in-memory world.
	store     WorldStore
	world     string
	replaying bool
	calls     int
	lastCall  time.Time
}

// NewSimulator returns a simulator reading time from clock.
func NewSimulator(clock outreach.Clock, cfg SimConfig) (*Simulator, error) {
	if clock == nil {
		return nil, errors.New("linkedin sim: nil clock")
	}
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Simulator{cfg: cfg, clock: clock, accounts: map[string]*simAccount{},
		rels: map[relKey]*relation{}, byProv: map[string]string{}, chats: map[string]*simChat{}}, nil
}

type simAccount struct {
	outreach.ProviderAccount
	disconnected     bool
	rateLimitedUntil time.Time
	day              string // UTC date invitesToday counts
	invitesToday     int
	invitedAt        []time.Time // the last 7 days' invitations, oldest first
	disconnectEv     *simEvent
	held             []*simEvent // events that fell due while disconnected
}

func (a *simAccount) status(now time.Time) outreach.AccountStatus {
	switch {
	case a.disconnected:
		return outreach.AccountDisconnected
	case a.rateLimitedUntil.After(now):
		return outreach.AccountRateLimited
	}
	return outreach.AccountOK
}

func (a *simAccount) snapshot(now time.Time) outreach.ProviderAccount {
	acc := a.ProviderAccount
	acc.Status = a.status(now)
	return acc
}

type relKey struct{ account, profile string }

type inviteState int

const (
	inviteNone inviteState = iota
	invitePending
	inviteAccepted
	inviteWithdrawn
)

// relation is one account's history with one person.
type relation struct {
	ref        outreach.ProfileRef
	accountID  string
	invite     inviteState
	inviteID   string
	invites    int
	acceptEv   *simEvent
	replyEv    *simEvent
	replies    int // scripted replies sent so far
	lastActive time.Time
}

type simChat struct {
	id, accountID, profileKey string
	msgs                      []outreach.ChatMessage
}

type eventKind int

const (
	evAccept eventKind = iota
	evReply
	evDisconnect
)

type simEvent struct {
	at       time.Time
	seq      int64
	kind     eventKind
	account  string
	profile  string
	text     string
	scripted bool
	dead     bool
}

type eventQueue []*simEvent

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*simEvent)) }
func (q *eventQueue) Pop() any {
	old := *q
	ev := old[len(old)-1]
	*q = old[:len(old)-1]
	return ev
}

func (s *Simulator) schedule(ev *simEvent) *simEvent {
	s.evSeq++
	ev.seq = s.evSeq
	heap.Push(&s.queue, ev)
	return ev
}

// sync applies every event due by the clock's now and returns now. Callers hold s.mu.
func (s *Simulator) sync() time.Time {
	now := s.clock.Now()
	for s.queue.Len() > 0 && !s.queue[0].at.After(now) {
		if ev := heap.Pop(&s.queue).(*simEvent); !ev.dead {
			s.apply(ev)
		}
	}
	return now
}

// apply makes one event happen at ev.at. Network events and operator injections both come
// here, so they produce the same reports.
func (s *Simulator) apply(ev *simEvent) {
	acc := s.accounts[ev.account]
	if ev.kind == evDisconnect {
		acc.disconnectEv = nil
		if !acc.disconnected {
			acc.disconnected = true
			s.emit(outreach.LinkedInReport{Kind: outreach.ReportAccountDisconnected, AccountID: acc.ID, At: ev.at})
		}
		return
	}
	if acc.disconnected {
		// LinkedIn still changes, but the provider cannot see it until the seat is back.
		acc.held = append(acc.held, ev)
		return
	}
	rel := s.rels[relKey{ev.account, ev.profile}]
	switch ev.kind {
	case evAccept:
		if rel.acceptEv == ev {
			rel.acceptEv = nil
		}
		if rel.invite != invitePending {
			return
		}
		rel.invite = inviteAccepted
		s.emit(s.personReport(outreach.ReportInviteAccepted, rel, ev.at))
	case evReply:
		if ev.scripted {
			rel.replyEv = nil
			rel.replies++
		}
		chat := s.chatFor(rel)
		msg := chat.add(ev.text, ev.at, false, rel.ref.ProviderID)
		rel.lastActive = ev.at
		r := s.personReport(outreach.ReportMessageReceived, rel, ev.at)
		r.ChatID, r.MessageID, r.Text = chat.id, msg.ID, msg.Text
		s.emit(r)
	}
}

func (s *Simulator) personReport(kind outreach.LinkedInReportKind, rel *relation, at time.Time) outreach.LinkedInReport {
	return outreach.LinkedInReport{Kind: kind, AccountID: rel.accountID, ProfileKey: rel.ref.ProfileKey,
		ProviderID: rel.ref.ProviderID, AttendeeName: rel.ref.Name, At: at}
}

func (s *Simulator) emit(r outreach.LinkedInReport) {
	r.Seq = int64(len(s.reports)) + 1
	s.reports = append(s.reports, r)
}

func (s *Simulator) chatFor(rel *relation) *simChat {
	id := hexID("chat", s.hash("chat", rel.accountID, rel.ref.ProfileKey))
	c, ok := s.chats[id]
	if !ok {
		c = &simChat{id: id, accountID: rel.accountID, profileKey: rel.ref.ProfileKey}
		s.chats[id] = c
	}
	return c
}

func (c *simChat) add(text string, at time.Time, fromMe bool, sender string) outreach.ChatMessage {
	m := outreach.ChatMessage{ID: fmt.Sprintf("%s_m%d", c.id, len(c.msgs)+1), ChatID: c.id, Text: text,
		At: at, FromMe: fromMe, SenderID: sender}
	c.msgs = append(c.msgs, m)
	return m
}

// scheduleDisconnect finds the first UTC day from `from` on whose seeded draw the account
// drops, at a seeded hour of that day, looking at most ten years ahead.
func (s *Simulator) scheduleDisconnect(acc *simAccount, from time.Time) {
	if s.cfg.DisconnectPerDay < 0 {
		return
	}
	day := from.UTC().Truncate(24 * time.Hour)
	for i := 0; i < 3650; i, day = i+1, day.Add(24*time.Hour) {
		d := day.Format(time.DateOnly)
		if s.unit("disconnect", acc.ID, d) >= s.cfg.DisconnectPerDay {
			continue
		}
		at := day.Add(time.Duration(s.unit("disconnect-at", acc.ID, d) * float64(24*time.Hour)))
		if at.After(from) {
			acc.disconnectEv = s.schedule(&simEvent{at: at, kind: evDisconnect, account: acc.ID})
			return
		}
	}
}

func (s *Simulator) reconnect(acc *simAccount, now time.Time) {
	if !acc.disconnected {
		return
	}
	acc.disconnected = false
	acc.ConnectedAt = now
	s.emit(outreach.LinkedInReport{Kind: outreach.ReportAccountReconnected, AccountID: acc.ID, At: now})
	held := acc.held
	acc.held = nil
	for _, ev := range held {
		ev.at = now
		s.apply(ev)
	}
	s.scheduleDisconnect(acc, now)
}

func (s *Simulator) rateLimit(acc *simAccount, now time.Time, cooldown time.Duration) {
	acc.rateLimitedUntil = now.Add(cooldown)
	hours := int((cooldown + time.Hour - 1) / time.Hour)
	s.emit(outreach.LinkedInReport{Kind: outreach.ReportAccountRateLimited, AccountID: acc.ID, CooldownHours: hours, At: now})
}

// account returns the account or ErrUnknownAccount; with usable it also refuses a
// disconnected one.
func (s *Simulator) account(id string, usable bool) (*simAccount, error) {
	acc, ok := s.accounts[id]
	if !ok {
		return nil, fmt.Errorf("account %q: %w", id, outreach.ErrUnknownAccount)
	}
	if usable && acc.disconnected {
		return nil, fmt.Errorf("account %q: %w", id, outreach.ErrAccountDisconnected)
	}
	return acc, nil
}

// resolve fills in a reference's key and provider id. A person's provider id is derived from
// their key so that every account sees the same member.
func (s *Simulator) resolve(ref outreach.ProfileRef) (outreach.ProfileRef, error) {
	if ref.ProfileKey == "" {
		if k, ok := s.byProv[ref.ProviderID]; ok {
			ref.ProfileKey = k
		} else {
			ref.ProfileKey = ref.ProviderID
		}
	}
	if ref.ProfileKey == "" {
		return ref, outreach.ErrInvalidProfile
	}
	if ref.ProviderID == "" {
		ref.ProviderID = s.memberID(ref.ProfileKey)
	}
	s.byProv[ref.ProviderID] = ref.ProfileKey
	return ref, nil
}

// memberID is the member id of the person keyed profileKey, shaped like LinkedIn's ("ACoAA" and
// 34 more id characters, 39 in all), so what the simulator shows is accepted back wherever the
// API takes a member id.
func (s *Simulator) memberID(profileKey string) string {
	return fmt.Sprintf("ACoAA%016x%016x%02x", s.hash("member", profileKey),
		s.hash("member-2", profileKey), s.hash("member-3", profileKey)&0xff)
}

// keyOf turns a profile key or provider id into a profile key.
func (s *Simulator) keyOf(keyOrProviderID string) string {
	if k, ok := s.byProv[keyOrProviderID]; ok {
		return k
	}
	return keyOrProviderID
}

// sortedRels returns the relations with a person, in account connect order.
func (s *Simulator) sortedRels(profileKey string) []*relation {
	var out []*relation
	for _, id := range s.order {
		if rel, ok := s.rels[relKey{id, profileKey}]; ok {
			out = append(out, rel)
		}
	}
	return out
}

func sortChats(chats []outreach.Chat) {
	sort.SliceStable(chats, func(i, j int) bool {
		a, b := chats[i].LastMessage, chats[j].LastMessage
		if a == nil || b == nil {
			return a != nil
		}
		if !a.At.Equal(b.At) {
			return a.At.After(b.At)
		}
		return chats[i].ID < chats[j].ID
	})
}
