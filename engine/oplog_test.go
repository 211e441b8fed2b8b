package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// logLines decodes a JSON log buffer.
func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

type fakeLaunches []campaignLaunch

func (f fakeLaunches) read(_ context.Context, since time.Time, _ int) ([]campaignLaunch, time.Time, error) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	if since.IsZero() {
		return nil, now.Add(-time.Hour), nil
	}
	var out []campaignLaunch
	for _, l := range f {
		if l.At.After(since) {
			out = append(out, l)
		}
	}
	return out, now, nil
}

// However fast the engine passes and however much it sends, the operator sees one line per
// campaign and one summary line per interval, and a launch once.
func TestOpLogRateLimit(t *testing.T) {
	var buf bytes.Buffer
	o := newOpLog(slog.New(slog.NewJSONHandler(&buf, nil)), time.Minute)
	wall := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	o.now = func() time.Time { return wall }
	launches := fakeLaunches{{ID: "cmp_a", OrgID: "org_1", At: wall.Add(-30 * time.Minute)}}
	// Ten minutes of passes every 250 ms, each sending an invite and a message in two campaigns.
	for range 2400 {
		o.sent("cmp_a", "org_1", true)
		o.sent("cmp_b", "org_1", false)
		o.pass(PassStats{Replies: 1, Reports: 2})
		o.flush(context.Background(), launches.read)
		wall = wall.Add(250 * time.Millisecond)
	}
	lines := logLines(t, &buf)
	perMsg := map[string]int{}
	invites, messages := 0.0, 0.0
	for _, l := range lines {
		perMsg[l["msg"].(string)+" "+str(l["campaign"])]++
		if l["msg"] == "campaign sends" {
			invites += l["invitations_sent"].(float64)
			messages += l["messages_sent"].(float64)
		}
	}
	if perMsg["campaign sends cmp_a"] > 11 || perMsg["campaign sends cmp_b"] > 11 || perMsg["engine replies "] > 11 {
		t.Fatalf("more than a line a minute per thing over ten minutes: %v", perMsg)
	}
	if perMsg["campaign sends cmp_a"] < 9 || perMsg["campaign launched cmp_a"] != 1 {
		t.Fatalf("lines missing: %v", perMsg)
	}
	// Nothing is lost by folding: the counts add up to what was sent (all but the last interval's).
	if invites < 2400-240 || invites > 2400 || messages < 2400-240 || messages > 2400 {
		t.Fatalf("counted %v invitations and %v messages of 2400 each", invites, messages)
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
