package linkedin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"outreachd/outreach"
)

// An invitation's id names it: withdrawing it by that id works, an id of another invitation
// withdraws nothing, and a withdrawal without id takes the person's pending one.
func TestSimulatorWithdrawByInvitationID(t *testing.T) {
	ctx := context.Background()
	s, _, acc := newSim(t, SimConfig{AcceptRate: -1})
	anna := outreach.ProfileRef{ProfileKey: "in:anna", Name: "Anna"}
	bo := outreach.ProfileRef{ProfileKey: "in:bo", Name: "Bo"}
	annaInv, err := s.SendInvite(ctx, acc.ID, anna, "")
	if err != nil {
		t.Fatal(err)
	}
	boInv, err := s.SendInvite(ctx, acc.ID, bo, "")
	if err != nil || annaInv == "" || boInv == "" || annaInv == boInv {
		t.Fatalf("invitation ids %q and %q, %v", annaInv, boInv, err)
	}
	if err := s.WithdrawInvite(ctx, acc.ID, boInv, anna); !errors.Is(err, outreach.ErrNoPendingInvite) {
		t.Fatalf("withdrawing Anna's invitation by Bo's id: %v", err)
	}
	if err := s.WithdrawInvite(ctx, acc.ID, annaInv, anna); err != nil {
		t.Fatal(err)
	}
	if err := s.WithdrawInvite(ctx, acc.ID, annaInv, anna); !errors.Is(err, outreach.ErrNoPendingInvite) {
		t.Fatalf("withdrawing twice: %v", err)
	}
	if err := s.WithdrawInvite(ctx, acc.ID, "", bo); err != nil {
		t.Fatalf("withdrawing without an id: %v", err)
	}
	if h, err := s.AccountHealth(ctx, acc.ID); err != nil || h.PendingInvites != 0 || h.InvitesToday != 2 {
		t.Fatalf("health after both withdrawals: %+v, %v", h, err)
	}
}

// A rate limit says when it ends; the errors a provider answers with say whether to retry.
func TestSimulatorErrorsSayWhetherToRetry(t *testing.T) {
	ctx := context.Background()
	s, _, acc := newSim(t, SimConfig{DailyInviteLimit: 1, RateLimitCooldown: 6 * time.Hour})
	if _, err := s.SendInvite(ctx, acc.ID, outreach.ProfileRef{ProfileKey: "in:one"}, ""); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"in:two", "in:three"} { // the one that hits the limit, then one during the cooldown
		_, err := s.SendInvite(ctx, acc.ID, outreach.ProfileRef{ProfileKey: key}, "")
		retry, at := outreach.LinkedInRetryable(err)
		if !errors.Is(err, outreach.ErrRateLimited) || !retry || !at.Equal(t0.Add(6*time.Hour)) {
			t.Fatalf("%s: %v: retry %v at %s", key, err, retry, at)
		}
	}
	_, err := s.SendInvite(ctx, acc.ID, outreach.ProfileRef{ProfileKey: "in:four"}, strings.Repeat("x", 301))
	if retry, _ := outreach.LinkedInRetryable(err); !errors.Is(err, outreach.ErrNoteTooLong) || retry {
		t.Fatalf("a note too long: %v, retry %v", err, retry)
	}
	if _, _, err := s.SendMessage(ctx, acc.ID, "in:one", "hi"); !errors.Is(err, outreach.ErrNotConnected) {
		t.Fatalf("a message to a pending invitation: %v", err)
	}
}

// A look-up resolves a handle to the member id invitations and reports use, without changing
// the world.
func TestSimulatorLookUpProfile(t *testing.T) {
	ctx := context.Background()
	s, _, acc := newSim(t, SimConfig{AcceptRate: 1, AcceptDelayMin: time.Minute, AcceptDelayMax: time.Minute})
	before, err := s.LookUpProfile(ctx, acc.ID, outreach.ProfileRef{ProfileKey: "in:anna-berg"})
	if err != nil || before.PublicIdentifier != "anna-berg" || before.Name != "" {
		t.Fatalf("look-up of a stranger: %+v, %v", before, err)
	}
	if p, err := outreach.NormalizeProfile(before.ProviderID); err != nil || p.MemberID != before.ProviderID {
		t.Fatalf("member id %q: %+v, %v", before.ProviderID, p, err)
	}
	if _, err := s.SendInvite(ctx, acc.ID, outreach.ProfileRef{ProfileKey: "in:anna-berg", Name: "Anna Berg"}, ""); err != nil {
		t.Fatal(err)
	}
	after, err := s.LookUpProfile(ctx, acc.ID, outreach.ProfileRef{ProviderID: before.ProviderID})
	if err != nil || after.ProviderID != before.ProviderID || after.PublicIdentifier != "anna-berg" || after.Name != "Anna Berg" {
		t.Fatalf("look-up by member id after the invitation: %+v, %v", after, err)
	}
	if _, err := s.LookUpProfile(ctx, acc.ID, outreach.ProfileRef{}); !errors.Is(err, outreach.ErrInvalidProfile) {
		t.Fatalf("look-up of nobody: %v", err)
	}
	if _, err := s.LookUpProfile(ctx, "acc_nope", outreach.ProfileRef{ProfileKey: "in:x"}); !errors.Is(err, outreach.ErrUnknownAccount) {
		t.Fatalf("look-up from an unknown seat: %v", err)
	}
}

// The health of a seat counts what it did: invitations today and over the week, those still
// pending, and its messages today.
func TestSimulatorAccountHealthCounts(t *testing.T) {
	ctx := context.Background()
	s, clock, acc := newSim(t, SimConfig{AcceptRate: -1})
	invite := func(key string) {
		t.Helper()
		if _, err := s.SendInvite(ctx, acc.ID, outreach.ProfileRef{ProfileKey: key}, ""); err != nil {
			t.Fatal(err)
		}
	}
	invite("in:a")
	invite("in:b")
	clock.Advance(3 * 24 * time.Hour)
	invite("in:c")
	if err := s.InjectAccept("in:c"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, _, err := s.SendMessage(ctx, acc.ID, "in:c", "hello"); err != nil {
			t.Fatal(err)
		}
	}
	h, err := s.AccountHealth(ctx, acc.ID)
	want := outreach.AccountHealth{AccountID: acc.ID, Status: outreach.AccountOK, SalesNav: true, InvitesToday: 1,
		InvitesThisWeek: 3, MessagesToday: 2, PendingInvites: 2, DailyInviteLimit: 40, CheckedAt: clock.Now()}
	if err != nil || h != want {
		t.Fatalf("health:\n got %+v, %v\nwant %+v", h, err, want)
	}
	clock.Advance(5 * 24 * time.Hour) // the first two invitations are more than a week old
	if h, err := s.AccountHealth(ctx, acc.ID); err != nil || h.InvitesThisWeek != 1 || h.InvitesToday != 0 || h.MessagesToday != 0 {
		t.Fatalf("health a week on: %+v, %v", h, err)
	}
}

// memWorlds is a WorldStore in memory, whose journal a test may write by hand.
type memWorlds struct {
	calls []memCall
}

type memCall struct {
	at   time.Time
	op   string
	args []byte
}

func (m *memWorlds) OpenSimWorld(_ context.Context, base string) (string, error) {
	return base + "/w_test", nil
}

func (m *memWorlds) AppendSimCall(_ context.Context, _ string, at time.Time, op string, args []byte) error {
	m.calls = append(m.calls, memCall{at, op, args})
	return nil
}

func (m *memWorlds) SimCalls(_ context.Context, _ string, fn func(time.Time, string, []byte) error) error {
	for _, c := range m.calls {
		if err := fn(c.at, c.op, c.args); err != nil {
			return err
		}
	}
	return nil
}

// A journal that no longer rebuilds its world is not opened: an operation this version does not
// know, or a call the world now refuses, fails the open and names the entry. A call refused
// after it was journaled (the invitation that hit the daily limit) replays as it happened.
func TestSimulatorReplayRefusesAJournalItCannotReplay(t *testing.T) {
	ctx := context.Background()
	cfg := SimConfig{Seed: 5, DailyInviteLimit: 1, DisconnectPerDay: -1}
	open := func(w *memWorlds) (*Simulator, error) {
		return OpenSimulator(ctx, outreach.NewVirtualClock(t0, 0), w, cfg)
	}
	w := &memWorlds{}
	s, err := open(w)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := s.ConnectAccount(ctx, "org_1", "Dana")
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"in:a", "in:b"} {
		if _, err := s.SendInvite(ctx, acc.ID, outreach.ProfileRef{ProfileKey: key}, ""); key == "in:b" && !errors.Is(err, outreach.ErrRateLimited) {
			t.Fatalf("the second invitation: %v", err)
		}
	}
	again, err := open(w)
	if n, _ := again.Replayed(); err != nil || n != 3 {
		t.Fatalf("replaying a journal with a refused invitation: %d calls, %v", n, err)
	}
	if rs, _ := again.Poll(ctx, 0, 0); len(rs) != 1 || rs[0].Kind != outreach.ReportAccountRateLimited {
		t.Fatalf("the replayed world's reports: %+v", rs)
	}

	raw := func(c simCall) []byte {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for name, bad := range map[string]memCall{
		"unknown operation":         {t0, "teleport", raw(simCall{})},
		"a message to a stranger":   {t0, opMessage, raw(simCall{Account: acc.ID, Target: "in:nobody", Text: "hi"})},
		"a reply nobody could send": {t0, opReply, raw(simCall{Target: "in:nobody", Text: "hi"})},
		"an entry that is no JSON":  {t0, opConnect, []byte("{")},
	} {
		broken := &memWorlds{calls: append(append([]memCall(nil), w.calls...), bad)}
		_, err := open(broken)
		if want := fmt.Sprintf("entry %d ", len(w.calls)+1); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: open = %v, want an error naming %s", name, err, want)
		}
	}
}
