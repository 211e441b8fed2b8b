package unipile_test

import (
	"errors"
	"testing"
	"time"

	"outreachd/adapters/unipile"
	"outreachd/adapters/unipile/unipilefake"
	"outreachd/outreach"
)

// TestProviderErrorMapping makes Unipile fail each way it does and checks the port's error the
// engine gets, whether it may retry and from when, and the report the seat gets.
func TestProviderErrorMapping(t *testing.T) {
	const invitePath = "/api/v1/users/invite"
	cases := []struct {
		name      string
		fail      *unipilefake.Failure
		lose      *unipilefake.LostAnswer
		want      []error // all found by errors.Is
		not       error   // not found by errors.Is
		retry     bool
		retryIn   time.Duration // 0: no RetryAt
		report    string        // the report kind recorded for the seat, "" for none
		cooldownH int
	}{
		{name: "429 with Retry-After", fail: &unipilefake.Failure{Method: "POST", Path: invitePath, Status: 429, RetryAfter: 90 * time.Second},
			want: []error{outreach.ErrRateLimited}, retry: true, retryIn: 90 * time.Second, report: "account_rate_limited", cooldownH: 1},
		{name: "429 without Retry-After", fail: &unipilefake.Failure{Method: "POST", Path: invitePath, Status: 429},
			want: []error{outreach.ErrRateLimited}, retry: true, retryIn: time.Hour, report: "account_rate_limited", cooldownH: 1},
		{name: "cannot_resend_yet", fail: &unipilefake.Failure{Method: "POST", Path: invitePath, Status: 422, Type: "errors/cannot_resend_yet"},
			want: []error{outreach.ErrRateLimited}, retry: true, retryIn: 24 * time.Hour, report: "account_rate_limited", cooldownH: 24},
		{name: "limit_exceeded", fail: &unipilefake.Failure{Method: "POST", Path: invitePath, Status: 422, Type: "errors/limit_exceeded"},
			want: []error{outreach.ErrRateLimited}, retry: true, retryIn: 24 * time.Hour, report: "account_rate_limited", cooldownH: 24},
		{name: "already invited recently", fail: &unipilefake.Failure{Method: "POST", Path: invitePath, Status: 422, Type: "errors/already_invited_recently"},
			want: []error{outreach.ErrAlreadyInvited}},
		{name: "already connected", fail: &unipilefake.Failure{Method: "POST", Path: invitePath, Status: 422, Type: "errors/already_connected"},
			want: []error{outreach.ErrAlreadyConnected}},
		{name: "401 disconnected", fail: &unipilefake.Failure{Method: "POST", Path: invitePath, Status: 401},
			want: []error{outreach.ErrAccountDisconnected}, retry: true, report: "account_disconnected"},
		{name: "401 checkpoint", fail: &unipilefake.Failure{Method: "POST", Path: invitePath, Status: 401, Type: "errors/checkpoint_error"},
			want: []error{outreach.ErrAccountDisconnected}, retry: true, report: "account_disconnected"},
		{name: "403 restricted", fail: &unipilefake.Failure{Method: "POST", Path: invitePath, Status: 403},
			want: []error{outreach.ErrAccountDisconnected}, retry: true, report: "account_disconnected"},
		{name: "500 on a POST", fail: &unipilefake.Failure{Method: "POST", Path: invitePath, Status: 500},
			want: []error{outreach.ErrProviderUnavailable, outreach.ErrOutcomeUnknown}, retry: true},
		{name: "503 on the look-up", fail: &unipilefake.Failure{Method: "GET", Path: "/api/v1/users/{identifier}", Status: 503},
			want: []error{outreach.ErrProviderUnavailable}, not: outreach.ErrOutcomeUnknown, retry: true},
		{name: "404 on the look-up", fail: &unipilefake.Failure{Method: "GET", Path: "/api/v1/users/{identifier}", Status: 404},
			want: []error{outreach.ErrUnknownProfile}},
		{name: "400 refused", fail: &unipilefake.Failure{Method: "POST", Path: invitePath, Status: 400},
			want: []error{outreach.ErrRefused}},
		{name: "answer lost after sending", lose: &unipilefake.LostAnswer{Method: "POST", Path: invitePath, Drop: true},
			want: []error{outreach.ErrProviderUnavailable, outreach.ErrOutcomeUnknown}, retry: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newProviderEnv(t)
			if tc.fail != nil {
				e.fake.FailNext(*tc.fail)
			}
			if tc.lose != nil {
				e.fake.LoseAnswer(*tc.lose)
			}
			now := e.clock.now()
			_, err := e.p.SendInvite(e.ctx, e.seat.ID, outreach.ProfileRef{ProfileKey: "in:ada-lovelace"}, "")
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("error %v is not %v", err, w)
				}
			}
			if tc.not != nil && errors.Is(err, tc.not) {
				t.Errorf("error %v is %v", err, tc.not)
			}
			retry, at := outreach.LinkedInRetryable(err)
			if retry != tc.retry {
				t.Errorf("retryable %v, want %v", retry, tc.retry)
			}
			if tc.retryIn > 0 && !at.Equal(now.Add(tc.retryIn)) {
				t.Errorf("retry at %v, want %v", at, now.Add(tc.retryIn))
			}
			reps := e.reports(t)
			switch {
			case tc.report == "" && len(reps) > 0:
				t.Errorf("reports %+v, want none", reps)
			case tc.report != "" && (len(reps) != 1 || reps[0].Kind != tc.report || reps[0].CooldownHours != tc.cooldownH):
				t.Errorf("reports %+v, want one %s (cooldown %dh)", reps, tc.report, tc.cooldownH)
			case tc.report == "account_rate_limited" && (reps[0].CooldownUntil == nil || !reps[0].CooldownUntil.Equal(now.Add(tc.retryIn))):
				// The hours are for the alert; the seat rests until the moment Unipile gave.
				t.Errorf("report's cooldown ends %v, want %v", reps[0].CooldownUntil, now.Add(tc.retryIn))
			}
			if tc.report == "account_rate_limited" {
				if h, err := e.p.AccountHealth(e.ctx, e.seat.ID); err != nil || h.Status != outreach.AccountRateLimited || !h.RateLimitedUntil.Equal(now.Add(tc.retryIn)) {
					t.Errorf("health after the refusal: %v %+v", err, h)
				}
			}
		})
	}
}

// TestProviderReconcilesALostInvitation loses the answer of an invitation Unipile sent: the
// engine sees that the outcome is unknown, and Relation shows the invitation, so it is not sent
// again.
func TestProviderReconcilesALostInvitation(t *testing.T) {
	e := newProviderEnv(t)
	e.fake.LoseAnswer(unipilefake.LostAnswer{Method: "POST", Path: "/api/v1/users/invite", Status: 502})
	ada := outreach.ProfileRef{ProfileKey: "in:ada-lovelace"}
	_, err := e.p.SendInvite(e.ctx, e.seat.ID, ada, "Hi")
	if !errors.Is(err, outreach.ErrOutcomeUnknown) {
		t.Fatalf("lost answer: %v", err)
	}
	rel, err := e.p.Relation(e.ctx, e.seat.ID, ada)
	if err != nil || rel.InvitationID == "" {
		t.Fatalf("relation after the lost answer: %v %+v", err, rel)
	}
	if n := e.fake.SentInvitations(e.seat.ID, e.ada.ProviderID); n != 1 {
		t.Errorf("Ada got %d invitations", n)
	}
}

// TestProviderBadAPIKey: a key Unipile refuses is the provider being unavailable (an operator
// must fix it), never a seat's fault.
func TestProviderBadAPIKey(t *testing.T) {
	e := newProviderEnv(t)
	c, err := unipile.NewClient(unipile.Config{DSN: e.fake.URL(), APIKey: "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := unipile.NewProvider(c, e.inbox, unipile.ProviderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Accounts(e.ctx)
	if !errors.Is(err, outreach.ErrProviderUnavailable) || errors.Is(err, outreach.ErrAccountDisconnected) {
		t.Errorf("bad key: %v", err)
	}
}
