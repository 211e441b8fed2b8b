package unipile_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"outreachd/adapters/unipile"
	"outreachd/adapters/unipile/unipilefake"
)

// Each failure Unipile answers is classified as the provider needs it.
func TestErrorClasses(t *testing.T) {
	e := newEnv(t)
	invite := func() error {
		_, err := e.c.Invite(e.ctx, e.seat.ID, e.bob.ProviderID, "")
		return err
	}
	for _, tc := range []struct {
		name       string
		fail       unipilefake.Failure
		class      unipile.Class
		retryAfter time.Duration
		maybe      bool // MaybePerformed
	}{
		{"429 with Retry-After", unipilefake.Failure{Status: 429, RetryAfter: 90 * time.Second}, unipile.ClassRateLimited, 90 * time.Second, false},
		{"429 without Retry-After", unipilefake.Failure{Status: 429}, unipile.ClassRateLimited, 0, false},
		{"cannot_resend_yet", unipilefake.Failure{Status: 422, Type: "errors/cannot_resend_yet"}, unipile.ClassRateLimited, 0, false},
		{"limit_exceeded", unipilefake.Failure{Status: 422, Type: "errors/limit_exceeded"}, unipile.ClassRateLimited, 0, false},
		{"already invited", unipilefake.Failure{Status: 422, Type: "errors/already_invited_recently"}, unipile.ClassAlreadyInvited, 0, false},
		{"already connected", unipilefake.Failure{Status: 422, Type: "errors/already_connected"}, unipile.ClassAlreadyConnected, 0, false},
		{"blocked recipient", unipilefake.Failure{Status: 422, Type: "errors/blocked_recipient"}, unipile.ClassRejected, 0, false},
		{"disconnected", unipilefake.Failure{Status: 401}, unipile.ClassSeatStopped, 0, false},
		{"checkpoint", unipilefake.Failure{Status: 401, Type: "errors/checkpoint_error"}, unipile.ClassSeatStopped, 0, false},
		{"restricted", unipilefake.Failure{Status: 403}, unipile.ClassSeatStopped, 0, false},
		{"feature not subscribed", unipilefake.Failure{Status: 403, Type: "errors/feature_not_subscribed"}, unipile.ClassRejected, 0, false},
		{"500", unipilefake.Failure{Status: 500}, unipile.ClassTransient, 0, true},
		{"503", unipilefake.Failure{Status: 503}, unipile.ClassTransient, 0, true},
		{"504 request timeout", unipilefake.Failure{Status: 504}, unipile.ClassTransient, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.fail.Method, tc.fail.Path = "POST", "/api/v1/users/invite"
			e.fake.FailNext(tc.fail)
			err := invite()
			mustClass(t, err, tc.class)
			var ue *unipile.Error
			if !errors.As(err, &ue) || ue.Status != tc.fail.Status || ue.Type == "" || ue.Title == "" || ue.Detail == "" || !strings.Contains(ue.Body, ue.Type) {
				t.Fatalf("error = %#v", err)
			}
			if got := unipile.RetryAfter(err); got != tc.retryAfter {
				t.Fatalf("RetryAfter = %s, want %s", got, tc.retryAfter)
			}
			if got := unipile.MaybePerformed(err); got != tc.maybe {
				t.Fatalf("MaybePerformed = %v, want %v", got, tc.maybe)
			}
			if n := e.fake.SentInvitations(e.seat.ID, e.bob.ProviderID); n != 0 {
				t.Fatalf("a refused invitation was recorded %d times", n)
			}
		})
	}
	// A GET that fails with 5xx changed nothing.
	e.fake.FailNext(unipilefake.Failure{Method: "GET", Path: "/api/v1/users/relations", Status: 500})
	_, err := e.c.ListRelations(e.ctx, e.seat.ID, unipile.ListOptions{})
	mustClass(t, err, unipile.ClassTransient)
	if unipile.MaybePerformed(err) {
		t.Fatal("a failed GET may have been performed")
	}
}

func TestSeatAndKeyFailures(t *testing.T) {
	e := newEnv(t)
	wrong, err := unipile.NewClient(unipile.Config{DSN: e.fake.URL(), APIKey: "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = wrong.ListAccounts(e.ctx, unipile.ListOptions{})
	mustClass(t, err, unipile.ClassBadAPIKey)

	if err := e.fake.Disconnect(e.seat.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.c.Invite(e.ctx, e.seat.ID, e.ada.ProviderID, "")
	mustClass(t, err, unipile.ClassSeatStopped)
	_, err = e.c.GetProfile(e.ctx, e.seat.ID, "ada-lovelace", unipile.ProfileOptions{})
	mustClass(t, err, unipile.ClassSeatStopped)
	if err := e.fake.Reconnect(e.seat.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.fake.Restrict(e.seat.ID, true); err != nil {
		t.Fatal(err)
	}
	_, err = e.c.Invite(e.ctx, e.seat.ID, e.ada.ProviderID, "")
	mustClass(t, err, unipile.ClassSeatStopped)
	if err := e.fake.Restrict(e.seat.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Invite(e.ctx, e.seat.ID, e.ada.ProviderID, ""); err != nil {
		t.Fatalf("after lifting the restriction: %v", err)
	}
}

// An invitation whose answer is lost was sent nevertheless: the error says so, and listing
// the sent invitations finds it, so the caller never sends it twice.
func TestLostAnswers(t *testing.T) {
	for _, drop := range []bool{false, true} {
		t.Run(map[bool]string{false: "500 after the action", true: "connection dropped"}[drop], func(t *testing.T) {
			e := newEnv(t)
			e.fake.LoseAnswer(unipilefake.LostAnswer{Method: "POST", Path: "/api/v1/users/invite", Drop: drop})
			_, err := e.c.Invite(e.ctx, e.seat.ID, e.ada.ProviderID, "hi")
			mustClass(t, err, unipile.ClassTransient)
			if !unipile.MaybePerformed(err) {
				t.Fatalf("MaybePerformed is false for %v", err)
			}
			var te *unipile.TransportError
			if drop != errors.As(err, &te) || (drop && !te.Sent) {
				t.Fatalf("error = %#v", err)
			}
			sent := collectSent(t, e)
			if len(sent) != 1 || sent[0].InvitedUserID != e.ada.ProviderID || e.fake.SentInvitations(e.seat.ID, e.ada.ProviderID) != 1 {
				t.Fatalf("after a lost answer: %d listed, %d held", len(sent), e.fake.SentInvitations(e.seat.ID, e.ada.ProviderID))
			}
			if r := e.fake.Requests()[0]; !r.Performed {
				t.Fatalf("the log does not mark the lost call performed: %+v", r)
			}
		})
	}
	e := newEnv(t)
	e.connected(t, e.ada)
	chat, err := e.c.StartChat(e.ctx, e.seat.ID, []string{e.ada.ProviderID}, "one")
	if err != nil {
		t.Fatal(err)
	}
	e.fake.LoseAnswer(unipilefake.LostAnswer{Method: "POST", Path: "/api/v1/chats/{id}/messages", Status: 504})
	_, err = e.c.SendMessage(e.ctx, chat.ChatID, "two")
	if !unipile.MaybePerformed(err) || unipile.ClassOf(err) != unipile.ClassTransient {
		t.Fatalf("lost message answer: %v", err)
	}
	if n := e.fake.SentMessages(e.seat.ID, e.ada.ProviderID); n != 2 {
		t.Fatalf("the fake holds %d messages, want 2", n)
	}
}

// Failures outside Unipile's documents: no connection, time-outs, non-JSON and unreadable
// answers.
func TestTransportFailures(t *testing.T) {
	ctx := context.Background()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := closed.Addr().String()
	closed.Close()
	c := client(t, "http://"+addr, time.Second)
	_, err = c.Invite(ctx, "acc", "ACoAA1", "")
	mustClass(t, err, unipile.ClassTransient)
	if unipile.MaybePerformed(err) {
		t.Fatalf("a refused connection may have performed: %v", err)
	}

	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer slow.Close()
	defer close(release)
	_, err = client(t, slow.URL, 100*time.Millisecond).Invite(ctx, "acc", "ACoAA1", "")
	if !unipile.IsTimeout(err) || !unipile.MaybePerformed(err) || unipile.ClassOf(err) != unipile.ClassTransient {
		t.Fatalf("time-out: %v (timeout %v, maybe %v)", err, unipile.IsTimeout(err), unipile.MaybePerformed(err))
	}

	for _, tc := range []struct {
		name        string
		status      int
		contentType string
		body        string
		class       unipile.Class
		maybe       bool
	}{
		{"html 502 from a proxy", 502, "text/html", "<html>" + strings.Repeat("x", 5000) + "</html>", unipile.ClassTransient, true},
		{"plain 404", 404, "text/plain", "not here", unipile.ClassNotFound, false},
		{"401 without a document", 401, "text/plain", "no", unipile.ClassBadAPIKey, false},
		{"2xx that is not JSON", 200, "text/html", "<html>ok</html>", unipile.ClassTransient, true},
		{"2xx of another object", 200, "application/json", `{"object":"Something","invitation_id":"1"}`, unipile.ClassTransient, true},
		{"2xx without the id", 200, "application/json", `{"object":"UserInvitationSent"}`, unipile.ClassTransient, true},
		{"detail that is not a string", 422, "application/json", `{"status":422,"type":"errors/invalid_recipient","title":"x","detail":{"a":1}}`, unipile.ClassRejected, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			_, err := client(t, srv.URL, time.Second).Invite(ctx, "acc", "ACoAA1", "")
			mustClass(t, err, tc.class)
			if unipile.MaybePerformed(err) != tc.maybe {
				t.Fatalf("MaybePerformed(%v) != %v", err, tc.maybe)
			}
			var ue *unipile.Error
			if !errors.As(err, &ue) || ue.Title == "" || len(ue.Body) > 2048 || (tc.status >= 400 && ue.Body == "") {
				t.Fatalf("error = %#v", err)
			}
		})
	}
}

func client(t *testing.T, dsn string, timeout time.Duration) *unipile.Client {
	t.Helper()
	c, err := unipile.NewClient(unipile.Config{DSN: dsn, APIKey: "k", Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
