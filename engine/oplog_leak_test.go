package engine_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"outreachd/adapters/drafter"
	"outreachd/engine"
	"outreachd/outreach"
)

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The engine's log, at every level, names campaigns, organizations and prospects by id and
// counts what they did; a lead's name, profile and words never appear in it.
func TestEngineLogHasNoLeadText(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	var logs syncBuffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	eng, err := engine.New(w.st, w.sim, draftAdapter{drafter.Builtin{}}, w.clock, log,
		engine.Config{PublicURL: "https://app.test", Tick: 5 * time.Millisecond, ActivityLogEvery: 20 * time.Millisecond,
			ActionSpacing: engine.Spacing{Immediate: true}})
	if err != nil {
		t.Fatal(err)
	}
	w.eng = eng
	const handle = "zebulon-quartermaine"
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	w.push(cid, handle)
	w.pass()
	if err := w.sim.InjectAccept(key(handle)); err != nil {
		t.Fatal(err)
	}
	w.pass()
	w.clock.Advance(25 * time.Hour)
	w.pass()
	w.reply(handle, "Sounds great, my direct line is PINEAPPLE-4242, tell me more about pricing")
	w.reply(handle, "Am I talking to a bot? PINEAPPLE-4242")

	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	_ = eng.Run(ctx)

	out := logs.String()
	if !strings.Contains(out, `"msg":"campaign sends"`) || !strings.Contains(out, cid) {
		t.Fatalf("the operator log does not show the campaign's sends:\n%s", out)
	}
	for _, leak := range []string{"PINEAPPLE", "zebulon", "Zebulon", "Person " + handle, "pricing"} {
		if strings.Contains(out, leak) {
			t.Fatalf("the log contains lead text %q:\n%s", leak, out)
		}
	}
}
