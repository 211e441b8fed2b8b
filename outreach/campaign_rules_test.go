package outreach

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestPlanStatusChange(t *testing.T) {
	tests := []struct {
		from    CampaignStatus
		started bool
		to      CampaignStatus
		want    StatusChange
		invalid bool
	}{
		{from: CampaignDraft, to: CampaignDraft, want: StatusChange{None: true}},
		{from: CampaignActive, started: true, to: CampaignActive, want: StatusChange{None: true}},
		{from: CampaignDraft, to: CampaignActive, want: StatusChange{StampStarted: true, Event: EventCampaignStarted}},
		{from: CampaignPaused, started: true, to: CampaignActive, want: StatusChange{}},
		{from: CampaignActive, started: true, to: CampaignPaused, want: StatusChange{}},
		{from: CampaignActive, started: true, to: CampaignCompleted, want: StatusChange{StampCompleted: true, Event: EventCampaignCompleted}},
		{from: CampaignPaused, started: true, to: CampaignCompleted, want: StatusChange{StampCompleted: true, Event: EventCampaignCompleted}},
		{from: CampaignCompleted, started: true, to: CampaignArchived, want: StatusChange{}},
		{from: CampaignDraft, to: CampaignArchived, want: StatusChange{}},
		{from: CampaignDraft, to: CampaignCompleted, invalid: true},
		{from: CampaignArchived, to: CampaignActive, invalid: true},
		{from: CampaignCompleted, started: true, to: CampaignActive, invalid: true},
	}
	for _, tt := range tests {
		t.Run(string(tt.from)+"->"+string(tt.to), func(t *testing.T) {
			got, err := PlanStatusChange("cmp_1", tt.from, tt.started, tt.to)
			if tt.invalid {
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "cmp_1 cannot go from "+string(tt.from)) {
					t.Fatalf("err = %v, want an invalid move naming the campaign", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestNewCampaignEvent(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	stats := CampaignStats{Prospects: 2, ProspectsByStatus: map[string]int{"replied": 2}}
	for _, kind := range []EventKind{EventCampaignStarted, EventCampaignCompleted} {
		ev := NewCampaignEvent(kind, "org_1", "cmp_1", "Spring", stats, at)
		if err := ev.Validate(); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		c := ev.Data.Campaign
		if ev.Kind != kind || ev.OrgID != "org_1" || c.ID != "cmp_1" || c.Name != "Spring" || c.Stats == nil || c.Stats.Prospects != 2 {
			t.Fatalf("%s: %+v %+v", kind, ev, c)
		}
	}
}

func TestCopyName(t *testing.T) {
	long := strings.Repeat("é", MaxCampaignNameLen)
	tests := []struct {
		name  string
		taken []string
		want  string
	}{
		{"Spring", nil, "Spring (copy)"},
		{"Spring", []string{"Spring (copy)"}, "Spring (copy 2)"},
		{"Spring", []string{"Spring (copy)", "Spring (copy 2)", "Spring (copy 4)"}, "Spring (copy 3)"},
		{"Spring (copy)", []string{"Spring (copy) (copy)"}, "Spring (copy) (copy 2)"},
		{long, nil, strings.Repeat("é", MaxCampaignNameLen-7) + " (copy)"},
		{long, []string{strings.Repeat("é", MaxCampaignNameLen-7) + " (copy)"}, strings.Repeat("é", MaxCampaignNameLen-9) + " (copy 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			taken := map[string]bool{}
			for _, n := range tt.taken {
				taken[n] = true
				if !strings.HasPrefix(n, CopyNamePrefix(tt.name)) {
					t.Fatalf("%q does not start with the prefix the database is asked about", n)
				}
			}
			got := CopyName(tt.name, func(n string) bool { return taken[n] })
			if got != tt.want {
				t.Fatalf("CopyName(%q) = %q, want %q", tt.name, got, tt.want)
			}
			if utf8.RuneCountInString(got) > MaxCampaignNameLen || !strings.HasPrefix(got, CopyNamePrefix(tt.name)) {
				t.Fatalf("%q is too long or escapes the prefix %q", got, CopyNamePrefix(tt.name))
			}
		})
	}
}

func TestOutcomeEffects(t *testing.T) {
	tests := []struct {
		outcome Outcome
		want    OutcomeEffects
	}{
		{OutcomeInterested, OutcomeEffects{}},
		{OutcomeLost, OutcomeEffects{EndSequence: true}},
		{OutcomeBooked, OutcomeEffects{EndSequence: true, Activity: ActivityBooking, CallBooked: true}},
		{OutcomeConverted, OutcomeEffects{Activity: ActivityConversion}},
	}
	for _, tt := range tests {
		if got := tt.outcome.Effects(); got != tt.want || got.EndSequence != tt.outcome.EndsSequence() {
			t.Errorf("%s: got %+v, want %+v", tt.outcome, got, tt.want)
		}
	}
	ev := NewManualBookingEvent("org_1", &ProspectBlock{Name: "Ada", LeadID: "prs_1"}, "cmp_1", "Spring", time.Now())
	if err := ev.Validate(); err != nil {
		t.Fatal(err)
	}
	if ev.Kind != EventCallBooked || !ev.Data.Manual || ev.Data.Booking.Provider != BookingProviderManual ||
		ev.Data.Booking.StartTime != "" || ev.Data.Campaign.Name != "Spring" {
		t.Fatalf("manual booking event: %+v", ev.Data)
	}
}
