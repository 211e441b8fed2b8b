package linkedin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"outreachd/outreach"
)

// A simulated world that outlives the process. A real provider does not forget what it was
// asked to do when outreachd restarts, so neither may the simulator: its seats, invitations,
// conversations, scheduled acceptances and replies, and the reports the engine has not read yet.
//
// The world is kept as the journal of every call that changed it (connect, invite, withdraw,
// message, operator injections), each with the simulated time it happened at. The simulator
// is deterministic (outcomes are seeded hashes, time comes only from the clock), so replaying
// the journal at the recorded times rebuilds exactly the world that was left: the same seats
// and relations, the same events still pending, and the same reports under the same sequence
// numbers, so the engine's poll cursor stays valid across restarts. A world belongs to one
// seed: another SIMULATOR_SEED is another world, with its own journal and report sequence. A
// world deleted from the store is replaced by a new one under a new name, so nothing keyed by
// the old world's name (the engine's poll cursor) applies to the new one.
//
// A call is written to the journal before it changes anything; a call the world cannot
// remember (the database is unreachable) is refused with the error, as a provider that cannot
// take a request would refuse it.

// WorldStore keeps simulated worlds' journals; PostgresWorlds keeps them in PostgreSQL.
type WorldStore interface {
	// OpenSimWorld returns the name of base's current world, creating a new one when there is none.
	OpenSimWorld(ctx context.Context, base string) (world string, err error)
	// AppendSimCall records one call on the named world, after every earlier one.
	AppendSimCall(ctx context.Context, world string, at time.Time, op string, args []byte) error
	// SimCalls hands fn the world's calls, oldest first.
	SimCalls(ctx context.Context, world string, fn func(at time.Time, op string, args []byte) error) error
}

// WorldBase names a seed's worlds; each world's own name (World) extends it, and also names the
// report sequence the world produces (the engine's poll cursor).
func WorldBase(seed int64) string { return fmt.Sprintf("simulator/seed-%d", seed) }

// simCall is one journal entry's arguments; which fields are set depends on the op.
type simCall struct {
	Org      string               `json:"org,omitempty"`
	Name     string               `json:"name,omitempty"`
	Account  string               `json:"account,omitempty"`
	Profile  *outreach.ProfileRef `json:"profile,omitempty"`
	Invite   string               `json:"invite,omitempty"` // the invitation a withdrawal names
	Target   string               `json:"target,omitempty"` // chat id or profile key
	Text     string               `json:"text,omitempty"`
	Cooldown time.Duration        `json:"cooldown,omitempty"`
	Lapsed   bool                 `json:"lapsed,omitempty"`
}

const (
	opConnect    = "connect"
	opInvite     = "invite"
	opWithdraw   = "withdraw"
	opMessage    = "message"
	opAccept     = "inject_accept"
	opReply      = "inject_reply"
	opDisconnect = "inject_disconnect"
	opReconnect  = "inject_reconnect"
	opRateLimit  = "inject_rate_limit"
	opSalesNav   = "inject_sales_nav"
)

// journalTimeout bounds one journal write made on behalf of a call that has no context
// (the operator injections).
const journalTimeout = 10 * time.Second

// OpenSimulator returns the simulator of the current world of WorldBase(cfg.Seed) in store, with
// every call recorded so far replayed: the world continues where the last process left it.
func OpenSimulator(ctx context.Context, clock outreach.Clock, store WorldStore, cfg SimConfig) (*Simulator, error) {
	if store == nil {
		return nil, errors.New("linkedin sim: nil world store")
	}
	s, err := NewSimulator(clock, cfg)
	if err != nil {
		return nil, err
	}
	if s.world, err = store.OpenSimWorld(ctx, WorldBase(s.cfg.Seed)); err != nil {
		return nil, err
	}
	s.replaying = true
	err = store.SimCalls(ctx, s.world, func(at time.Time, op string, raw []byte) error {
		var c simCall
		if err := json.Unmarshal(raw, &c); err != nil {
			return fmt.Errorf("linkedin sim: journal entry %d (%s at %s): %w", s.calls+1, op, at.Format(time.RFC3339), err)
		}
		s.clock = fixedClock(at)
		if err := s.replay(op, c); err != nil {
			return fmt.Errorf("linkedin sim: journal entry %d (%s at %s) does not replay: %w",
				s.calls+1, op, at.Format(time.RFC3339), err)
		}
		s.calls++
		if at.After(s.lastCall) {
			s.lastCall = at
		}
		return nil
	})
	s.clock, s.replaying, s.store = clock, false, store
	if err != nil {
		return nil, fmt.Errorf("linkedin sim: replay %s: %w", s.world, err)
	}
	return s, nil
}

// World is the name the simulator's world is stored under ("" for an in-memory simulator).
func (s *Simulator) World() string { return s.world }

// Replayed reports how many journal calls rebuilt the world and the simulated time of the
// last one (zero for a new world).
func (s *Simulator) Replayed() (int, time.Time) { return s.calls, s.lastCall }

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// errDailyLimitHit marks the invitation refused because it was one too many for the day: the
// refusal rate-limited the seat, a change the journal keeps, so it is the one refusal a
// journaled call may meet.
var errDailyLimitHit = errors.New("daily invitation limit reached")

// replay makes one recorded call again. A call is journaled only once it passed its checks, and
// the simulator decides the same way at the same time, so the call succeeds again, or meets the
// daily limit again. Any other answer means the journal no longer rebuilds the world it recorded
// (an entry this version does not know, or one the world now refuses), and the world is not
// opened: a world that silently differs from its journal would report what never happened.
func (s *Simulator) replay(op string, c simCall) error {
	ctx := context.Background()
	ref := outreach.ProfileRef{}
	if c.Profile != nil {
		ref = *c.Profile
	}
	var err error
	switch op {
	case opConnect:
		_, err = s.ConnectAccount(ctx, c.Org, c.Name)
	case opInvite:
		if _, err = s.SendInvite(ctx, c.Account, ref, c.Text); errors.Is(err, errDailyLimitHit) {
			err = nil
		}
	case opWithdraw:
		err = s.WithdrawInvite(ctx, c.Account, c.Invite, ref)
	case opMessage:
		_, _, err = s.SendMessage(ctx, c.Account, c.Target, c.Text)
	case opAccept:
		err = s.InjectAccept(c.Target)
	case opReply:
		_, err = s.InjectReply(c.Target, c.Text)
	case opDisconnect:
		err = s.InjectDisconnect(c.Account)
	case opReconnect:
		err = s.InjectReconnect(c.Account)
	case opRateLimit:
		err = s.InjectRateLimit(c.Account, c.Cooldown)
	case opSalesNav:
		err = s.InjectSalesNav(c.Account, c.Lapsed)
	default:
		err = fmt.Errorf("unknown operation %q", op)
	}
	return err
}

// rememberInjection is remember for the operator injections, which have no context.
func (s *Simulator) rememberInjection(now time.Time, op string, c simCall) error {
	ctx, cancel := context.WithTimeout(context.Background(), journalTimeout)
	defer cancel()
	return s.remember(ctx, now, op, c)
}

// remember writes a call to the journal before it changes the world. Callers hold s.mu and
// pass the now their sync returned.
func (s *Simulator) remember(ctx context.Context, now time.Time, op string, c simCall) error {
	if s.store == nil || s.replaying {
		return nil
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := s.store.AppendSimCall(ctx, s.world, now, op, raw); err != nil {
		return fmt.Errorf("linkedin sim: remember %s: %w", op, err)
	}
	s.calls++
	s.lastCall = now
	return nil
}

// KnowsInvite reports whether the account has ever invited the person in this world (pending,
// accepted or withdrawn): a campaign whose invitations the world does not know was run against
// another world (another seed, or a simulator that did not keep its world) and will not move.
func (s *Simulator) KnowsInvite(accountID, profileKey string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rel, ok := s.rels[relKey{accountID, s.keyOf(profileKey)}]
	return ok && rel.invite != inviteNone
}
