package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"outreachd/adapters/drafter"
	"outreachd/adapters/linkedin"
	"outreachd/engine"
	"outreachd/outreach"
)

// faulty is the simulator with the faults a test injects into its LinkedIn actions, counting
// the calls made and the actions carried out, so a test can prove nothing was sent twice.
type faulty struct {
	*linkedin.Simulator
	mu        sync.Mutex
	calls     map[string]int // calls made, by method
	performed map[string]int // calls the simulator carried out, by method
	faults    map[string][]faultSpec
	// before, when set, runs before each call reaches the simulator (a stop landing mid-call).
	before func(method string)
	// profiles answers look-ups by profile key instead of the simulator (a missing key there: the
	// simulator's answer); a zero profile is a person the provider does not know.
	profiles map[string]outreach.MemberProfile
}

// fault is what one call does wrong.
type fault int

const (
	// loseAnswer: the call is carried out and its answer lost (outreach.ErrOutcomeUnknown).
	loseAnswer fault = iota + 1
	// crashAfter: the call is carried out and the process dies before recording it.
	crashAfter
	// crashBefore: the process dies before the call reaches the provider.
	crashBefore
	// refuse: the provider answers with the error in refusal, nothing carried out.
	refuse
)

func newFaulty(sim *linkedin.Simulator) *faulty {
	return &faulty{Simulator: sim, calls: map[string]int{}, performed: map[string]int{}, faults: map[string][]faultSpec{}}
}

// faultSpec is one injected fault; err is what a refuse fault answers.
type faultSpec struct {
	kind fault
	err  error
}

// inject makes the next calls of method fail as listed, in order (a refusal answers 503).
func (f *faulty) inject(method string, fs ...fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ft := range fs {
		f.faults[method] = append(f.faults[method], faultSpec{kind: ft, err: unavailable})
	}
}

// refuseNext makes the next call of method answer err, carrying nothing out.
func (f *faulty) refuseNext(method string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults[method] = append(f.faults[method], faultSpec{kind: refuse, err: err})
}

func (f *faulty) count(m map[string]int, method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return m[method]
}

// unavailable is what a refuse fault answers unless told otherwise.
var unavailable = &outreach.LinkedInError{Kind: outreach.ErrProviderUnavailable, Err: fmt.Errorf("503 from the test")}

// around runs one call with its fault: call carries the action out on the simulator.
func (f *faulty) around(method string, call func() error) error {
	f.mu.Lock()
	f.calls[method]++
	var ft faultSpec
	if q := f.faults[method]; len(q) > 0 {
		ft, f.faults[method] = q[0], q[1:]
	}
	before := f.before
	f.mu.Unlock()
	if before != nil {
		before(method)
	}
	switch ft.kind {
	case crashBefore:
		runtime.Goexit()
	case refuse:
		return ft.err
	}
	err := call()
	if err == nil {
		f.mu.Lock()
		f.performed[method]++
		f.mu.Unlock()
	}
	switch ft.kind {
	case crashAfter:
		runtime.Goexit()
	case loseAnswer:
		return fmt.Errorf("%s: connection reset after the request was sent: %w", method, outreach.ErrOutcomeUnknown)
	}
	return err
}

func (f *faulty) SendInvite(ctx context.Context, accountID string, p outreach.ProfileRef, note string) (string, error) {
	var id string
	err := f.around("SendInvite", func() (err error) {
		id, err = f.Simulator.SendInvite(ctx, accountID, p, note)
		return err
	})
	return id, err
}

func (f *faulty) SendMessage(ctx context.Context, accountID, chatOrProfile, text string) (string, string, error) {
	var chat, msg string
	err := f.around("SendMessage", func() (err error) {
		chat, msg, err = f.Simulator.SendMessage(ctx, accountID, chatOrProfile, text)
		return err
	})
	return chat, msg, err
}

func (f *faulty) WithdrawInvite(ctx context.Context, accountID, inviteID string, p outreach.ProfileRef) error {
	return f.around("WithdrawInvite", func() error { return f.Simulator.WithdrawInvite(ctx, accountID, inviteID, p) })
}

func (f *faulty) LookUpProfile(ctx context.Context, accountID string, p outreach.ProfileRef) (outreach.MemberProfile, error) {
	var m outreach.MemberProfile
	err := f.around("LookUpProfile", func() (err error) {
		f.mu.Lock()
		known, ok := f.profiles[p.ProfileKey]
		f.mu.Unlock()
		switch {
		case ok && known.ProviderID == "":
			return fmt.Errorf("%s: %w", p.ProfileKey, outreach.ErrUnknownProfile)
		case ok:
			m = known
			return nil
		}
		m, err = f.Simulator.LookUpProfile(ctx, accountID, p)
		return err
	})
	return m, err
}

// useFaulty puts a faulty provider around the world's simulator and returns it; the world's
// engine (and those newEngine builds later) use it.
func (w *world) useFaulty(cfg engine.Config) *faulty {
	w.t.Helper()
	f := newFaulty(w.sim)
	w.li = f
	w.eng = w.newEngine(draftAdapter{drafter.Builtin{}}, cfg)
	return f
}

// crashingPass runs a pass in its own goroutine, which a crash fault ends mid-call as a dying
// process would (nothing after the call runs); it returns once the pass ended either way.
func (w *world) crashingPass(e *engine.Engine) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = e.Pass(w.ctx)
	}()
	<-done
}

// restart lets what the dead instance held go: its campaign leases and its actions' leases run
// out (wall clock), as they would after a crash.
func (w *world) restart() {
	w.t.Helper()
	w.exec(`UPDATE campaigns SET engine_lease_until = now() - interval '1 second' WHERE engine_lease_owner IS NOT NULL`)
	w.exec(`UPDATE linkedin_actions SET lease_until = now() - interval '1 second' WHERE state IN ('started', 'unknown')`)
}
