package outreach

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

var sampleAt = time.Date(2026, 11, 22, 6, 31, 44, 123_000_000, time.UTC)

// TestCatalog drives every kind through SampleEvent, Validate and JSON and checks the payload
// against the catalog, so a kind added to the list without its blocks, or a block whose JSON
// key drifts, fails here.
func TestCatalog(t *testing.T) {
	kinds := AllEventKinds()
	if len(kinds) != 27 {
		t.Fatalf("AllEventKinds has %d kinds, §6.2 lists 27", len(kinds))
	}
	seen := map[EventKind]bool{}
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			if seen[k] {
				t.Fatalf("kind listed twice")
			}
			seen[k] = true
			if k.Group() == "" {
				t.Errorf("no group")
			}
			if len(k.Blocks()) == 0 {
				t.Errorf("no required blocks")
			}
			if got, ok := ParseEventKind(string(k)); !ok || got != k {
				t.Errorf("ParseEventKind(%q) = %q, %v", k, got, ok)
			}

			ev := SampleEvent(k, "org_1", sampleAt)
			if err := ev.Validate(); err != nil {
				t.Fatalf("sample does not validate: %v", err)
			}
			if !ValidID("evt", ev.ID) {
				t.Errorf("id %q is not an evt id", ev.ID)
			}
			raw, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			var env map[string]json.RawMessage
			if err := json.Unmarshal(raw, &env); err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(env)); !slices.Equal(got, []string{"data", "event", "org_id", "timestamp"}) {
				t.Errorf("envelope keys %v", got)
			}
			var head struct {
				Event     string `json:"event"`
				Timestamp string `json:"timestamp"`
				OrgID     string `json:"org_id"`
			}
			if err := json.Unmarshal(raw, &head); err != nil {
				t.Fatal(err)
			}
			if head.Event != string(k) || head.Timestamp != "2026-11-22T06:31:44.123Z" || head.OrgID != "org_1" {
				t.Errorf("envelope %s", raw)
			}

			var data map[string]json.RawMessage
			if err := json.Unmarshal(env["data"], &data); err != nil {
				t.Fatal(err)
			}
			want := append(k.Blocks(), k.OptionalBlocks()...)
			want = append(want, "test")
			slices.Sort(want)
			if got := slices.Sorted(maps.Keys(data)); !slices.Equal(got, want) {
				t.Errorf("data keys %v, catalog says %v", got, want)
			}

			var back Event
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			back.ID = ev.ID
			if err := back.Validate(); err != nil {
				t.Errorf("event read back from JSON does not validate: %v", err)
			}
		})
	}
	for _, bad := range []string{"", "all", "Reply_Received", "reply_received ", "replies"} {
		if _, ok := ParseEventKind(bad); ok {
			t.Errorf("ParseEventKind(%q) accepted", bad)
		}
	}
}

func TestProspectBlockOmitsUnknown(t *testing.T) {
	raw, err := json.Marshal(ProspectBlock{Name: "Jane Doe", LinkedInID: "ACoAAB"})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(raw); got != `{"name":"Jane Doe","linkedin_id":"ACoAAB"}` {
		t.Errorf("got %s", got)
	}
	zero := 0
	raw, _ = json.Marshal(ProspectBlock{FollowerCount: &zero})
	if got := string(raw); got != `{"follower_count":0}` {
		t.Errorf("a known zero follower count must be sent, got %s", got)
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name   string
		kind   EventKind
		mutate func(*Event)
		want   string
	}{
		{"unknown kind", EventReplyReceived, func(e *Event) { e.Kind = "reply_recieved" }, "unknown event kind"},
		{"no org", EventDailyDigest, func(e *Event) { e.OrgID = "" }, "org_id"},
		{"bad timestamp", EventDailyDigest, func(e *Event) { e.Timestamp = "2026-11-22T06:31:44Z" }, "timestamp"},
		{"missing block", EventReplyPositive, func(e *Event) { e.Data.Campaign = nil }, "lacks its campaign block"},
		{"foreign block", EventInviteSent, func(e *Event) { e.Data.Report = &ReportBlock{} }, "must not carry a report block"},
		{"manual outside call_booked", EventAutoBookingCreated, func(e *Event) { e.Data.Manual = true }, "only call_booked"},
		{"positive without positive sentiment", EventReplyPositive, func(e *Event) { e.Data.Message.Sentiment = SentimentNeutral }, "sentiment"},
		{"needs_human reason outside 2.5", EventNeedsHuman, func(e *Event) { e.Data.NeedsHuman.Reason = "empty_or_too_shortdraft" }, "needs_human.reason"},
		{"rejected without reason", EventLeadRejected, func(e *Event) { e.Data.Lead.Reason = "" }, "lead.reason"},
		{"digest without stats", EventDailyDigest, func(e *Event) { e.Data.Report.Stats = nil }, "stats"},
		{"digest period not a day", EventDailyDigest, func(e *Event) { e.Data.Report.Period = "2026-11" }, "period"},
		{"rate limit without cooldown", EventAccountRateLimited, func(e *Event) { e.Data.Account.CooldownHours = 0 }, "cooldown_hours"},
		{"rate limit without its end", EventAccountRateLimited, func(e *Event) { e.Data.Account.CooldownUntil = "" }, "cooldown_until"},
		{"reconnect without its time", EventAccountReconnected, func(e *Event) { e.Data.Account.ReconnectedAt = "" }, "reconnected_at"},
		{"campaign_started without stats", EventCampaignStarted, func(e *Event) { e.Data.Campaign.Stats = nil }, "stats"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := SampleEvent(tt.kind, "org_1", sampleAt)
			tt.mutate(&ev)
			err := ev.Validate()
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want ErrInvalid mentioning %q", err, tt.want)
			}
		})
	}

	// Optional blocks may be absent: a needs_human outside any campaign is valid (needs_human is not limited to campaign people).
	ev := SampleEvent(EventNeedsHuman, "org_1", sampleAt)
	ev.Data.Campaign = nil
	if err := ev.Validate(); err != nil {
		t.Errorf("needs_human without campaign: %v", err)
	}
	manual := SampleEvent(EventCallBooked, "org_1", sampleAt)
	manual.Data.Manual = true
	manual.Data.Booking = &BookingBlock{Provider: BookingProviderManual}
	if err := manual.Validate(); err != nil {
		t.Errorf("manual call_booked: %v", err)
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		kind     EventKind
		selected []EventKind
		want     bool
	}{
		{EventDailyDigest, nil, true},
		{EventDailyDigest, []EventKind{}, true},
		{EventDailyDigest, []EventKind{EventsAll}, true},
		{EventDailyDigest, []EventKind{EventReplyReceived, EventsAll}, true},
		{EventReplyReceived, []EventKind{EventReplyReceived}, true},
		{EventReplyPositive, []EventKind{EventReplyReceived}, true},
		{EventReplyNegative, []EventKind{EventReplyReceived}, true},
		{EventNeedsHuman, []EventKind{EventReplyReceived}, false},
		{EventReplyReceived, []EventKind{EventReplyPositive}, false},
		{EventReplyNegative, []EventKind{EventReplyPositive}, false},
		{EventCallBooked, []EventKind{EventInviteSent, EventCallBooked}, true},
		{EventAutoBookingCreated, []EventKind{EventCallBooked}, false},
	}
	for _, tt := range tests {
		if got := tt.kind.Matches(tt.selected); got != tt.want {
			t.Errorf("%s.Matches(%v) = %v, want %v", tt.kind, tt.selected, got, tt.want)
		}
	}
}
