package webapp

import (
	"strings"
	"testing"
	"time"

	"outreachd/engine"
	"outreachd/outreach"
)

// TestSeatViewWords: each state of a seat said in words, in its day's time zone.
func TestSeatViewWords(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 7, 6, 10, 0, 0, 0, time.UTC) // summer: Dublin is UTC+1
	ts := func(d time.Duration) *string { return outreach.FormatTimePtr(new(now.Add(d))) }
	str := func(s string) *string { return &s }
	people := map[string]string{"usr_1": "ops@acme.test"}
	base := engine.SeatRow{AccountID: "acc_1", Name: "Sam", Status: "connected", ConnectedAt: outreach.FormatTime(now.Add(-48 * time.Hour)),
		DayZone: "Europe/Dublin", Limits: engine.DefaultSeatLimits()}
	for _, tc := range []struct {
		name string
		set  func(r *engine.SeatRow)
		want []string
	}{
		{"connected", func(r *engine.SeatRow) {},
			[]string{"Connected: its campaigns send from it.", "nothing reported yet", "now, as far as its pace goes",
				"midnight to midnight in Europe/Dublin", "it is Mon 6 Jul 11:00 there now"}},
		{"rate limited", func(r *engine.SeatRow) { r.Status, r.CooldownUntil = "rate_limited", ts(90*time.Minute) },
			[]string{"Rate limited until Mon 6 Jul 12:30 IST (11:30 UTC), in 1 h 30 min:", "messages and replies still go"}},
		{"dropped by LinkedIn", func(r *engine.SeatRow) { r.Status, r.DisconnectedAt = "disconnected", ts(-time.Hour) },
			[]string{"Disconnected since Mon 6 Jul 10:00 IST (09:00 UTC): LinkedIn ended its session.", "none while it is disconnected"}},
		{"disconnected by a person", func(r *engine.SeatRow) {
			r.Status, r.DisconnectedAt, r.DisconnectedBy = "disconnected", ts(-time.Hour), str("user:usr_1")
		}, []string{"by ops@acme.test: outreachd sends nothing from it"}},
		{"disconnected by a former member", func(r *engine.SeatRow) {
			r.Status, r.DisconnectedAt, r.DisconnectedBy = "disconnected", ts(-time.Hour), str("user:usr_gone")
		}, []string{"by a former member"}},
		{"paced", func(r *engine.SeatRow) { r.NextActionAt = ts(3 * time.Minute) },
			[]string{"not before Mon 6 Jul 11:03 IST (10:03 UTC), in 3 min:"}},
		{"Sales Navigator lapsed", func(r *engine.SeatRow) { r.SNVerdict, r.SNChangedAt = str(outreach.SalesNavLapsed), ts(-time.Hour) },
			[]string{"lapsed since Mon 6 Jul 10:00 IST (09:00 UTC); classic LinkedIn still works"}},
		{"UTC day", func(r *engine.SeatRow) { r.DayZone = "UTC" },
			[]string{"midnight to midnight in UTC (UTC, as no active campaign", "it is Mon 6 Jul 10:00 there now"}},
	} {
		row := base
		tc.set(&row)
		v := seatViewOf(row, people, now)
		words := strings.Join([]string{v.Words, v.SalesNav, v.Next, v.Day}, " | ")
		for _, w := range tc.want {
			if !strings.Contains(words, w) {
				t.Errorf("%s: %q lacks %q", tc.name, words, w)
			}
		}
	}
}

// TestSeatCaps: each cap with its use, the room left and, once reached, until when.
func TestSeatCaps(t *testing.T) {
	t.Parallel()
	row := engine.SeatRow{DayZone: "America/New_York",
		Limits: engine.SeatLimits{InvitesPerDay: 25, InvitesPerWeek: 100, MessagesPerDay: 0, ProfileViewsPerDay: 80, MaxPending: 500},
		Used:   engine.SeatUse{InvitesToday: 25, InvitesThisWeek: 40, MessagesToday: 0, ProfileViewsToday: 81, PendingInvites: 3}}
	caps := capsOf(row)
	want := []capView{
		{Label: "Invitations today", Used: 25, Cap: 25, Left: 0, Low: 20, Full: true, Until: "until midnight America/New_York"},
		{Label: "Invitations in the last 7 days", Used: 40, Cap: 100, Left: 60, Low: 80, Until: "until older invitations leave the 7 days"},
		{Label: "Messages today (sequence messages and replies)", Used: 0, Cap: 0, Left: 0, Low: 0, Full: true, Until: "until midnight America/New_York"},
		{Label: "Profile views today (look-ups and enrichment)", Used: 81, Cap: 80, Left: 0, Low: 64, Full: true, Until: "until midnight America/New_York"},
		{Label: "Pending invitations", Used: 3, Cap: 500, Left: 497, Low: 400, Until: "until some are accepted or withdrawn (after 21 days)"},
	}
	if len(caps) != len(want) {
		t.Fatalf("%d caps", len(caps))
	}
	for i := range want {
		if caps[i] != want[i] {
			t.Errorf("cap %d = %+v, want %+v", i, caps[i], want[i])
		}
	}
}
