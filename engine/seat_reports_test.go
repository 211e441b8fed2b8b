package engine

import (
	"testing"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// What a seat's status report changes and which alert it raises, decided without a database:
// a report that tells nothing new changes nothing and raises nothing.
func TestSeatReport(t *testing.T) {
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	later := at.Add(10 * time.Hour)
	lapsed := outreach.SalesNavLapsed
	seat := func(status string, cooldown *time.Time, sn *string) storage.LinkedInAccount {
		return storage.LinkedInAccount{ID: "acc_1", OrgID: "org_1", Name: "Sam", Status: status, CooldownUntil: cooldown, SNVerdict: sn}
	}
	tests := []struct {
		name       string
		kind       outreach.LinkedInReportKind
		cooldown   int
		seat       storage.LinkedInAccount
		wantEvent  outreach.EventKind // "" when nothing changes
		wantStatus string
	}{
		{"disconnect", outreach.ReportAccountDisconnected, 0, seat("connected", nil, nil), outreach.EventAccountDisconnected, "disconnected"},
		{"disconnect a seat already down", outreach.ReportAccountDisconnected, 0, seat("disconnected", nil, nil), "", ""},
		{"reconnect", outreach.ReportAccountReconnected, 0, seat("disconnected", nil, nil), outreach.EventAccountReconnected, "connected"},
		{"reconnect a seat that is up", outreach.ReportAccountReconnected, 0, seat("connected", nil, nil), "", ""},
		{"rate limit", outreach.ReportAccountRateLimited, 6, seat("connected", nil, nil), outreach.EventAccountRateLimited, "rate_limited"},
		{"the same rate limit again", outreach.ReportAccountRateLimited, 6, seat("rate_limited", &later, nil), "", ""},
		{"a longer rate limit", outreach.ReportAccountRateLimited, 24, seat("rate_limited", &later, nil), outreach.EventAccountRateLimited, "rate_limited"},
		{"Sales Navigator lapses", outreach.ReportSalesNavUnavailable, 0, seat("connected", nil, nil), outreach.EventSalesNavUnavailable, "connected"},
		{"Sales Navigator lapses again", outreach.ReportSalesNavUnavailable, 0, seat("connected", nil, &lapsed), "", ""},
		{"Sales Navigator returns", outreach.ReportSalesNavRestored, 0, seat("connected", nil, &lapsed), outreach.EventSalesNavRestored, "connected"},
		{"Sales Navigator was never lost", outreach.ReportSalesNavRestored, 0, seat("connected", nil, nil), "", ""},
		{"not a seat's report", outreach.ReportInviteAccepted, 0, seat("connected", nil, nil), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := reportRow{Kind: tt.kind, CooldownHours: tt.cooldown, At: at}
			change, ev, changed := seatReport("https://app.test", r, tt.seat)
			if changed != (tt.wantEvent != "") {
				t.Fatalf("changed = %v, want %v", changed, tt.wantEvent != "")
			}
			if !changed {
				return
			}
			if ev.Kind != tt.wantEvent || ev.OrgID != "org_1" || ev.Timestamp != outreach.FormatTime(at) || ev.Data.Account == nil ||
				ev.Data.Account.AccountID != "acc_1" || change.Status != tt.wantStatus {
				t.Fatalf("event %s %+v, status %q; want %s, %q", ev.Kind, ev.Data.Account, change.Status, tt.wantEvent, tt.wantStatus)
			}
			if err := ev.Validate(); err != nil {
				t.Fatalf("the alert is not a valid event: %v", err)
			}
			if tt.kind == outreach.ReportAccountRateLimited {
				until := at.Add(time.Duration(tt.cooldown) * time.Hour)
				if change.CooldownUntil == nil || !change.CooldownUntil.Equal(until) || ev.Data.Account.CooldownHours != tt.cooldown {
					t.Fatalf("cooldown %v (%d h), want until %s", change.CooldownUntil, ev.Data.Account.CooldownHours, until)
				}
			}
		})
	}
}

// A rate limit the provider gave to the second (a Retry-After of seconds) ends then, not at the
// next whole hour; the alert still counts whole hours, rounded up. The same limit told again
// (the provider's report after the engine's own) changes nothing.
func TestSeatReportCooldownToTheSecond(t *testing.T) {
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	until := at.Add(30 * time.Second)
	r := reportRow{Kind: outreach.ReportAccountRateLimited, CooldownHours: 1, CooldownUntil: &until, At: at}
	change, ev, changed := seatReport("https://app.test", r, storage.LinkedInAccount{ID: "acc_1", OrgID: "org_1", Status: "connected"})
	if !changed || change.CooldownUntil == nil || !change.CooldownUntil.Equal(until) {
		t.Fatalf("changed %v, cooldown until %v; want until %s", changed, change.CooldownUntil, until)
	}
	if a := ev.Data.Account; a.CooldownHours != 1 || a.CooldownUntil != outreach.FormatTime(until) {
		t.Fatalf("alert %+v, want 1 hour until %s", a, until)
	}
	if _, _, again := seatReport("https://app.test", r, storage.LinkedInAccount{ID: "acc_1", OrgID: "org_1", Status: "rate_limited",
		CooldownUntil: &until}); again {
		t.Fatal("the same rate limit told twice raised a second alert")
	}
}
