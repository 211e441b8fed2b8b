package slack

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"outreachd/outreach"
)

var at = time.Date(2026, 11, 22, 6, 31, 44, 123_000_000, time.UTC)

// blocksJSON encodes blocks without Go's HTML escaping, so tests see "<" and "&" exactly as
// Slack would after decoding the JSON.
func blocksJSON(t *testing.T, blocks []slack.Block) string {
	t.Helper()
	// slack.Blocks marshals with json.Marshal inside, so decode and encode again.
	raw, err := json.Marshal(slack.Blocks{BlockSet: blocks})
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// renderJSON renders ev and returns the blocks as Slack would receive them.
func renderJSON(t *testing.T, ev outreach.Event) (string, []map[string]any) {
	t.Helper()
	text, blocks := Render(ev)
	var out []map[string]any
	if err := json.Unmarshal([]byte(blocksJSON(t, blocks)), &out); err != nil {
		t.Fatal(err)
	}
	return text, out
}

func TestRenderEveryKind(t *testing.T) {
	for _, k := range outreach.AllEventKinds() {
		t.Run(string(k), func(t *testing.T) {
			ev := outreach.SampleEvent(k, "org_1", at)
			text, blocks := renderJSON(t, ev)
			if _, ok := views[k]; !ok {
				t.Fatalf("no view for %s: it would render as its raw kind name", k)
			}
			if !strings.HasPrefix(text, "[TEST] ") || strings.Contains(text, string(k)) {
				t.Errorf("fallback text %q: want a human title marked as a test", text)
			}
			if blocks[0]["type"] != "header" {
				t.Fatalf("first block is %v, want header", blocks[0]["type"])
			}
			header := blocks[0]["text"].(map[string]any)["text"].(string)
			if !strings.Contains(header, text) || utf8.RuneCountInString(header) > maxHeaderChars {
				t.Errorf("header %q", header)
			}
			last := blocks[len(blocks)-1]
			if last["type"] != "context" {
				t.Fatalf("last block is %v, want context", last["type"])
			}
			ctx := last["elements"].([]any)[0].(map[string]any)["text"].(string)
			if !strings.Contains(ctx, "`"+string(k)+"`") || !strings.Contains(ctx, "2026-11-22 06:31 UTC") || !strings.Contains(ctx, "test send") {
				t.Errorf("context %q lacks kind, time or test marker", ctx)
			}
			if len(blocks) < 3 {
				t.Errorf("only %d blocks: no facts shown", len(blocks))
			}
			for _, b := range blocks {
				if fs, ok := b["fields"].([]any); ok && len(fs) > maxFields {
					t.Errorf("%d fields, Slack allows %d", len(fs), maxFields)
				}
			}
		})
	}
}

func TestRenderFacts(t *testing.T) {
	tests := []struct {
		kind  outreach.EventKind
		title string
		want  []string
	}{
		{outreach.EventReplyPositive, "[TEST] Positive reply from Jane Doe", []string{"Head of Growth", "Acme Analytics (51-200)", "Q4 Heads of Growth DACH", "> Sounds interesting", "<https://www.linkedin.com/in/jane-doe-4821|Jane Doe>"}},
		{outreach.EventNeedsHuman, "[TEST] Jane Doe needs a human reply", []string{"They asked to be emailed instead", "*AI draft:*", "|Answer in the inbox>"}},
		{outreach.EventCallBooked, "[TEST] Call booked with Jane Doe", []string{"<!date^", "calendly"}},
		{outreach.EventDailyDigest, "[TEST] Daily digest for 2026-11-21", []string{"*Invites sent*\\n20", "*Invites withdrawn*\\n2", "*Bookings*\\n1"}},
		{outreach.EventAccountDisconnected, "[TEST] LinkedIn account Sam Seller disconnected", []string{"session expired", "|Reconnect the account>", "disconnected"}},
		{outreach.EventSalesNavUnavailable, "[TEST] Sales Navigator unavailable on Sam Seller", []string{"session_expired (was active)"}},
		{outreach.EventLeadRejected, "[TEST] Lead rejected: Jane Doe", []string{"*Rejected because:* company_size"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			text, blocks := Render(outreach.SampleEvent(tt.kind, "org_1", at))
			if text != tt.title {
				t.Errorf("title %q, want %q", text, tt.title)
			}
			body := blocksJSON(t, blocks)
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("blocks lack %q:\n%s", w, body)
				}
			}
		})
	}

	manual := outreach.SampleEvent(outreach.EventCallBooked, "org_1", at)
	manual.Data.Manual, manual.Data.Test = true, false
	manual.Data.Booking = &outreach.BookingBlock{Provider: outreach.BookingProviderManual}
	if text, _ := Render(manual); text != "Call with Jane Doe marked as booked" {
		t.Errorf("manual booking title %q", text)
	}
}

// mrkdwnTexts collects every mrkdwn text of the rendered blocks: the parts Slack parses for
// mentions and links (plain_text headers are shown literally).
func mrkdwnTexts(v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		if x["type"] == "mrkdwn" {
			out = append(out, x["text"].(string))
		}
		for _, e := range x {
			out = append(out, mrkdwnTexts(e)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, mrkdwnTexts(e)...)
		}
	}
	return out
}

// TestRenderEscapesLeadText: a lead's message and profile are untrusted; they must not ping the
// channel, mention anyone, forge links or blow Slack's size limits.
func TestRenderEscapesLeadText(t *testing.T) {
	ev := outreach.SampleEvent(outreach.EventReplyReceived, "org_1", at)
	ev.Data.Message.Text = "<!channel> click <https://evil.example|your bank> & " + strings.Repeat("é", 5000)
	ev.Data.Prospect.Name = "<@U123>"
	ev.Data.Prospect.LinkedInURL = "javascript:alert(1)"
	text, blocks := Render(ev)
	var decoded any
	if err := json.Unmarshal([]byte(blocksJSON(t, blocks)), &decoded); err != nil {
		t.Fatal(err)
	}
	parsed := append(mrkdwnTexts(decoded), text)
	if len(parsed) < 3 {
		t.Fatalf("found only %d mrkdwn texts", len(parsed))
	}
	all := strings.Join(parsed, "\n")
	for _, bad := range []string{"<!channel>", "<https://evil", "<@U123>", "javascript:"} {
		if strings.Contains(all, bad) {
			t.Errorf("rendered %q unescaped", bad)
		}
	}
	if !strings.Contains(all, "&lt;!channel&gt;") || !strings.Contains(all, "&lt;@U123&gt;") || !strings.Contains(all, "…") {
		t.Errorf("message not escaped and cut: %.300s", all)
	}
	if n := strings.Count(all, "é"); n > maxQuoteChars {
		t.Errorf("quote has %d characters of the message, want at most %d", n, maxQuoteChars)
	}
}
