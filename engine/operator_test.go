package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"outreachd/adapters/drafter"
	"outreachd/engine"
	"outreachd/internal/testenv"
	"outreachd/outreach"
)

// cliEngine is the engine the admin CLI builds: no provider, reports only.
func (w *world) cliEngine() *engine.Engine {
	w.t.Helper()
	e, err := engine.New(w.st, nil, draftAdapter{drafter.Builtin{}}, w.clock, nil, engine.Config{PublicURL: "https://app.test"})
	if err != nil {
		w.t.Fatal(err)
	}
	return e
}

// TestSimulateWithoutServingEngine: with no engine serving, `admin simulate` handles its
// report itself through the same handler, with the same effects and events.
func TestSimulateWithoutServingEngine(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	pid := w.push(cid, "fay")[0]
	w.pass() // invited
	cli := w.cliEngine()
	n := len(w.events())
	if _, err := cli.Simulate(w.ctx, engine.OperatorReport{Kind: outreach.ReportInviteAccepted, ProspectID: pid}, time.Second); err != nil {
		t.Fatal(err)
	}
	wantKinds(t, w.since(n), "connection_accepted")
	// Accepting again changes nothing.
	if _, err := cli.Simulate(w.ctx, engine.OperatorReport{Kind: outreach.ReportInviteAccepted, ProspectID: pid}, time.Second); err != nil {
		t.Fatal(err)
	}
	wantKinds(t, w.since(n), "connection_accepted")
	res, err := cli.Simulate(w.ctx, engine.OperatorReport{Kind: outreach.ReportMessageReceived, ProspectID: pid,
		Text: "Can you email me at fay@example.com?"}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	chat, _ := res["chat_id"].(string)
	if chat == "" {
		t.Fatalf("no chat id: %v", res)
	}
	evs := w.since(n + 1)
	wantKinds(t, evs, "reply_received", "needs_human")
	if evs[1].Data.NeedsHuman.Reason != outreach.ReasonWantsEmail || evs[1].Data.Message.ChatID != chat {
		t.Fatalf("needs_human %+v", evs[1].Data)
	}
	// The serving engine's simulator never heard of the acceptance; its next message still
	// goes out (the engine re-syncs the simulator) -- here the sequence ended with the reply,
	// so nothing is sent at all.
	w.clock.Advance(2 * 24 * time.Hour)
	w.pass()
	if got := w.count(`SELECT count(*) FROM activities WHERE prospect_id = $1 AND kind = 'message_sent'`, pid); got != 0 {
		t.Fatalf("%d messages after a reply", got)
	}
	// The serving engine's next pass sees the campaign is done.
	wantKinds(t, w.since(n+3), "campaign_completed")
}

// TestSimulateForwardedToServingEngine: with an engine serving, the operator's report is
// re-enacted on its simulator and arrives as the simulator's own report; the command returns
// once its effects are in the database.
func TestSimulateForwardedToServingEngine(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	pid := w.push(cid, "gus")[0]
	w.pass()
	ctx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	serving := w.newEngine(draftAdapter{drafter.Builtin{}}, engine.Config{InstanceID: "serving", Tick: 20 * time.Millisecond})
	done := make(chan error, 1)
	go func() { done <- serving.Run(ctx) }()
	testenv.EventuallyTrue(t, 10*time.Second, "the serving engine to say it is alive", func() bool {
		alive, _ := engine.ServingAlive(w.ctx, w.st.Pool(), time.Second)
		return alive
	})
	cli := w.cliEngine()
	if _, err := cli.Simulate(w.ctx, engine.OperatorReport{Kind: outreach.ReportInviteAccepted, ProspectID: pid}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if p := w.prospect(pid); p.Status != "connected" {
		t.Fatalf("status after simulate accept: %s", p.Status)
	}
	res, err := cli.Simulate(w.ctx, engine.OperatorReport{Kind: outreach.ReportMessageReceived, ProspectID: pid,
		Text: "Is this an automated message?"}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	// The fact came through the simulator: its chat, its report rows.
	msgs, err := w.sim.Messages(w.ctx, res["chat_id"].(string))
	if err != nil || len(msgs) == 0 || msgs[len(msgs)-1].Text != "Is this an automated message?" {
		t.Fatalf("simulator chat: %v %v", msgs, err)
	}
	if got := w.count(`SELECT count(*) FROM provider_reports WHERE source = 'provider' AND kind IN ('invite_accepted', 'message_received') AND state = 'handled'`); got != 2 {
		t.Fatalf("provider reports handled: %d", got)
	}
	if got := w.count(`SELECT count(*) FROM needs_human WHERE prospect_id = $1 AND reason = 'ai_callout' AND chat_id = $2`, pid, res["chat_id"]); got != 1 {
		t.Fatalf("needs_human rows %d", got)
	}
	if got := len(only(w.events(), outreach.EventConnectionAccepted)); got != 1 {
		t.Fatalf("connection_accepted %d times", got)
	}
}

// TestSimulateErrors: bad operator input is refused, nothing is filed.
func TestSimulateErrors(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	pid := w.push(cid, "hal")[0]
	cli := w.cliEngine()
	cases := []struct {
		name string
		in   engine.OperatorReport
		want error
	}{
		{"unknown prospect", engine.OperatorReport{Kind: outreach.ReportInviteAccepted, ProspectID: "prs_nope"}, outreach.ErrNotFound},
		{"blank reply", engine.OperatorReport{Kind: outreach.ReportMessageReceived, ProspectID: pid, Text: "  "}, outreach.ErrInvalid},
		{"unknown account", engine.OperatorReport{Kind: outreach.ReportAccountDisconnected, AccountID: "acc_nope"}, outreach.ErrNotFound},
		{"unknown kind", engine.OperatorReport{Kind: "teleport"}, outreach.ErrInvalid},
	}
	for _, c := range cases {
		if _, err := cli.Simulate(w.ctx, c.in, time.Second); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if got := w.count(`SELECT count(*) FROM provider_reports`); got != 0 {
		t.Fatalf("%d reports filed", got)
	}
	// An organization without a seat cannot receive anything.
	w.exec(`DELETE FROM linkedin_accounts`)
	if _, err := cli.Simulate(w.ctx, engine.OperatorReport{Kind: outreach.ReportInviteAccepted, ProspectID: pid}, time.Second); !errors.Is(err, engine.ErrNoAccount) {
		t.Fatalf("no seat: %v", err)
	}
}

// TestSimulateBeforeAnyInvite: an operator may report a reply from a campaign person the engine
// has not contacted yet (a paused campaign); it is still a campaign person's reply, and since the
// campaign is not running, its answer waits for a person instead of being sent.
func TestSimulateBeforeAnyInvite(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	if _, err := w.st.SetCampaignStatus(w.ctx, cid, outreach.CampaignPaused); err != nil {
		t.Fatal(err)
	}
	pid := w.push(cid, "ivy")[0]
	n := len(w.events())
	if _, err := w.cliEngine().Simulate(w.ctx, engine.OperatorReport{Kind: outreach.ReportMessageReceived, ProspectID: pid,
		Text: "Sounds interesting, tell me more."}, time.Second); err != nil {
		t.Fatal(err)
	}
	wantKinds(t, w.since(n), "reply_received", "reply_positive", "needs_human")
	if p := w.prospect(pid); p.Status != "replied" || p.NextStepAt != nil {
		t.Fatalf("status %s next %v", p.Status, p.NextStepAt)
	}
}
