package main_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"outreachd/adapters/unipile/unipilefake"
	"outreachd/internal/testenv"
)

// inviteCalls are the fake's POST /users/invite calls, in order.
func inviteCalls(fake *unipilefake.Fake) []unipilefake.Request {
	var out []unipilefake.Request
	for _, r := range fake.Requests() {
		if r.Method == http.MethodPost && r.Path == "/api/v1/users/invite" {
			out = append(out, r)
		}
	}
	return out
}

// parseTime reads a timestamp of an event or of the account list.
func parseTime(t *testing.T, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("not a timestamp: %v", v)
	}
	return at
}

// near reports whether a is within tol of b.
func near(a, b time.Time, tol time.Duration) bool { return a.Sub(b).Abs() <= tol }

// TestUnipileRateLimited has Unipile answer 429 to an invitation, first with a Retry-After of two
// seconds, then without one: each time the seat cools down (one account_rate_limited event, the
// seat rate_limited with its cooldown in `admin account list`) until the moment Unipile gave (an
// hour for a bare 429), the lead is kept, and the invitation goes out once, after the cooldown.
func TestUnipileRateLimited(t *testing.T) {
	t.Parallel()
	u := startUnipile(t)
	org, accountID := u.orgWithSeat()
	sink := newEventSink(t, u.srv.DBURL, org.ID, "account_rate_limited", "invite_sent")
	ps := people(t, u.fake, "rita", 2)
	cid := launchCampaign(t, org, u.srv.DBURL, "Throttled")

	// A 429 with Retry-After: 2.
	u.fake.FailNext(unipilefake.Failure{Method: http.MethodPost, Path: "/api/v1/users/invite", Status: 429, RetryAfter: 2 * time.Second})
	first := pushPeople(t, org, cid, ps[:1])[0]
	waitStatus(t, org.Read, cid, []string{first}, "connection_sent")
	calls := inviteCalls(u.fake)
	if len(calls) != 2 || calls[0].Status != 429 || calls[1].Status != 200 {
		t.Fatalf("invitation calls: %+v; want a 429 then a 200", calls)
	}
	limited := sink.events("account_rate_limited")
	if len(limited) != 1 || limited[0].Account != accountID {
		t.Fatalf("account_rate_limited events: %+v; want one for the seat", limited)
	}
	acc := limited[0].Data["account"].(map[string]any)
	until := parseTime(t, acc["cooldown_until"])
	if !near(until, calls[0].At.Add(2*time.Second), time.Second) {
		t.Errorf("cooldown until %s; the 429 came at %s with Retry-After 2", until, calls[0].At)
	}
	if acc["cooldown_hours"] != float64(1) {
		t.Errorf("cooldown_hours %v, want 1 (whole hours, rounded up)", acc["cooldown_hours"])
	}
	if calls[1].At.Before(until) {
		t.Errorf("the invitation went out at %s, before the cooldown's end %s", calls[1].At, until)
	}
	if row := u.seatRow(org.ID); row["status"] != "connected" || row["cooldown_until"] != nil {
		t.Errorf("after the cooldown the seat is %v until %v", row["status"], row["cooldown_until"])
	}

	// A bare 429: an hour.
	u.fake.FailNext(unipilefake.Failure{Method: http.MethodPost, Path: "/api/v1/users/invite", Status: 429})
	second := pushPeople(t, org, cid, ps[1:])[0]
	testenv.EventuallyTrue(t, 30*time.Second, "the second account_rate_limited", func() bool {
		return len(sink.events("account_rate_limited")) == 2
	})
	calls = inviteCalls(u.fake)
	if len(calls) != 3 || calls[2].Status != 429 {
		t.Fatalf("invitation calls: %+v; want a third, refused", calls)
	}
	row := u.seatRow(org.ID)
	until = parseTime(t, row["cooldown_until"])
	if row["status"] != "rate_limited" || !near(until, calls[2].At.Add(time.Hour), 2*time.Second) {
		t.Errorf("the seat is %v until %s; the 429 came at %s", row["status"], until, calls[2].At)
	}
	// Nothing is lost: the lead's invitation is still due, waiting for the seat.
	var next, ended *time.Time
	if err := u.db.Pool().QueryRow(context.Background(), `SELECT next_step_at, sequence_ended_at FROM prospects WHERE id = $1`,
		second).Scan(&next, &ended); err != nil {
		t.Fatal(err)
	}
	if next == nil || next.After(until) || ended != nil {
		t.Errorf("the second lead's invitation is due at %v (sequence ended %v), want due by the cooldown's end %s", next, ended, until)
	}
	if got := statuses(t, org.Read, cid)[second]; got == "connection_sent" {
		t.Errorf("the second lead is %s during the cooldown", got)
	}

	sink.settled(t, u.db)
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"invitations Unipile holds for the first lead", u.fake.SentInvitations(u.seat.ID, ps[0].ProviderID), 1},
		{"invitations Unipile holds for the second lead", u.fake.SentInvitations(u.seat.ID, ps[1].ProviderID), 0},
		{"invite_sent events of the first lead", sink.count("invite_sent", first), 1},
		{"invite_sent events of the second lead", sink.count("invite_sent", second), 0},
		{"account_rate_limited events", sink.count("account_rate_limited", accountID), 2},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
}
