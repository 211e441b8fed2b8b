package delivery_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/outreach"
)

func TestDeliverySignedEnvelopeAndHeaders(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{allowPrivate: true})
	rc := newReceiver(t, nil)
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	d := e.destination(t, rc.URL, secret)
	plain := e.destination(t, rc.URL+"/plain", "")
	ev := sample(e.org)
	e.emit(t, ev)
	got := rc.waitFor(t, 15*time.Second, "two deliveries", atLeast(2))

	want, _ := json.Marshal(ev)
	list := e.waitFinished(t, d.ID, 1, 15*time.Second)
	for _, r := range got {
		if string(r.body) != string(want) {
			t.Errorf("body = %s, want the envelope %s", r.body, want)
		}
		if r.header.Get("Content-Type") != "application/json" || r.header.Get("X-Service-Event") != "campaign_started" ||
			!strings.HasPrefix(r.header.Get("User-Agent"), "outreachd") || r.header.Get("webhook-timestamp") == "" {
			t.Errorf("headers: %v", r.header)
		}
		signed := r.header.Get("X-Service-Signature") != ""
		if !signed {
			if r.header.Get("webhook-signature") != "" {
				t.Errorf("unsigned destination got a webhook-signature: %v", r.header)
			}
			continue
		}
		if err := delivery.VerifyHex(secret, r.header, r.body); err != nil {
			t.Errorf("VerifyHex: %v", err)
		}
		if err := delivery.VerifyStandard(secret, r.header, r.body, time.Now(), 0); err != nil {
			t.Errorf("VerifyStandard: %v", err)
		}
		if r.header.Get("webhook-id") != list[0].ID {
			t.Errorf("webhook-id = %q, want the delivery id %q", r.header.Get("webhook-id"), list[0].ID)
		}
	}
	e.waitFinished(t, plain.ID, 1, 15*time.Second)
	if list[0].Status != delivery.DeliverySucceeded || list[0].Attempts != 1 {
		t.Errorf("delivery = %+v", list[0])
	}
	last, err := e.ds.LastAttempts(context.Background(), e.org, []string{d.ID})
	if err != nil || last[d.ID].StatusCode != 200 || last[d.ID].Trigger != delivery.TriggerScheduled {
		t.Errorf("last attempt = %+v, %v", last[d.ID], err)
	}
}

func TestDeliveryFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		opts      hubOpts
		handle    func(w http.ResponseWriter, r *http.Request, n int)
		attempts  int
		code      int
		errSubstr string
		check     func(t *testing.T, at []time.Time)
	}{
		{
			name:     "500 is retried, four attempts in total, then failed",
			handle:   func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(500) },
			attempts: 4, code: 500, errSubstr: "HTTP 500",
			check: func(t *testing.T, at []time.Time) {
				// 0s, 200ms, 400ms, 600ms between attempts, each ±10 %.
				for i, want := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 600 * time.Millisecond} {
					gap := at[i+1].Sub(at[i])
					if gap < want*85/100 || gap > want+time.Second {
						t.Errorf("gap before attempt %d = %s, want about %s", i+2, gap, want)
					}
				}
			},
		},
		{
			name:     "a hang past the timeout is a failure with status 0",
			opts:     hubOpts{timeout: time.Second, schedule: []time.Duration{0}},
			handle:   func(w http.ResponseWriter, r *http.Request, _ int) { <-r.Context().Done() },
			attempts: 1, code: 0, errSubstr: "timeout",
		},
		{
			name:     "410 is retried like any non-2xx (api-v1 §6.4)",
			handle:   func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(http.StatusGone) },
			attempts: 4, code: 410, errSubstr: "HTTP 410",
		},
		{
			name: "429 with Retry-After is honoured within the schedule",
			handle: func(w http.ResponseWriter, _ *http.Request, n int) {
				if n == 1 {
					w.Header().Set("Retry-After", "1")
					w.WriteHeader(http.StatusTooManyRequests)
				}
			},
			attempts: 2, code: 200,
			check: func(t *testing.T, at []time.Time) {
				// max(200ms ±10 %, 1 s) capped at the schedule's longest delay, 600 ms.
				if gap := at[1].Sub(at[0]); gap < 580*time.Millisecond || gap > time.Second {
					t.Errorf("gap after the 429 = %s, want about 600ms", gap)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.opts.allowPrivate = true
			e := startHub(t, c.opts)
			rc := newReceiver(t, c.handle)
			d := e.destination(t, rc.URL, "")
			e.emit(t, sample(e.org))
			list := e.waitFinished(t, d.ID, 1, 20*time.Second)
			atts, err := e.ds.DeliveryAttempts(context.Background(), e.org, list[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(atts) != c.attempts || list[0].Attempts != c.attempts {
				t.Fatalf("%d attempts recorded (delivery says %d), want %d: %+v", len(atts), list[0].Attempts, c.attempts, atts)
			}
			lastA := atts[len(atts)-1]
			if lastA.StatusCode != c.code || (c.errSubstr != "" && (lastA.Error == nil || !strings.Contains(*lastA.Error, c.errSubstr))) {
				t.Errorf("last attempt: code %d error %v; want %d %q", lastA.StatusCode, lastA.Error, c.code, c.errSubstr)
			}
			wantStatus := delivery.DeliveryFailed
			if c.code == 200 {
				wantStatus = delivery.DeliverySucceeded
			}
			if list[0].Status != wantStatus {
				t.Errorf("status %s, want %s", list[0].Status, wantStatus)
			}
			for i, a := range atts {
				if a.Attempt != i+1 || a.DurationMS < 0 || a.URL != rc.URL {
					t.Errorf("attempt %d: %+v", i+1, a)
				}
			}
			if c.check != nil {
				var at []time.Time
				for _, r := range rc.requests() {
					at = append(at, r.at)
				}
				c.check(t, at)
			}
			dest, err := e.ds.GetDestination(context.Background(), e.org, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			wantFailures := c.attempts
			if c.code == 200 {
				wantFailures = 0
			}
			if dest.ConsecutiveFailures != wantFailures {
				t.Errorf("consecutive_failures = %d, want %d", dest.ConsecutiveFailures, wantFailures)
			}
		})
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{allowPrivate: true, schedule: []time.Duration{0}})
	target := newReceiver(t, nil)
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		http.Redirect(w, r, target.URL, http.StatusFound)
	})
	d := e.destination(t, rc.URL, "")
	e.emit(t, sample(e.org))
	list := e.waitFinished(t, d.ID, 1, 15*time.Second)
	if list[0].Status != delivery.DeliveryFailed || list[0].LastStatusCode == nil || *list[0].LastStatusCode != 302 ||
		list[0].LastError == nil || !strings.Contains(*list[0].LastError, "redirect") {
		t.Errorf("delivery = %+v", list[0])
	}
	if n := len(target.requests()); n != 0 {
		t.Errorf("the redirect target was hit %d times", n)
	}
}

func TestPrivateDestinationRefusedAtSendTime(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{allowPrivate: false, schedule: []time.Duration{0}})
	rc := newReceiver(t, nil)
	d := e.destination(t, rc.URL, "") // stored directly: creation-time checks are not the guard under test
	e.emit(t, sample(e.org))
	list := e.waitFinished(t, d.ID, 1, 15*time.Second)
	atts, err := e.ds.DeliveryAttempts(context.Background(), e.org, list[0].ID)
	if err != nil || len(atts) != 1 {
		t.Fatalf("attempts %+v, %v", atts, err)
	}
	if atts[0].StatusCode != 0 || atts[0].Error == nil || !strings.Contains(*atts[0].Error, "blocked address") {
		t.Errorf("attempt = code %d error %v; want 0 and a blocked-address error", atts[0].StatusCode, atts[0].Error)
	}
	if n := len(rc.requests()); n != 0 {
		t.Errorf("the private receiver was hit %d times", n)
	}
}

func TestIdenticalPayloadsCollapse(t *testing.T) {
	t.Parallel()
	// The fan-out expands a whole outbox batch in one statement, so identical payloads in one
	// business transaction (same batch for sure) collapse in Go, and across transactions through
	// delivery_dedupe; both must give one delivery.
	for _, tc := range []struct {
		name  string
		oneTx bool
	}{{"separate transactions", false}, {"one transaction", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := startHub(t, hubOpts{allowPrivate: true})
			rc := newReceiver(t, nil)
			d := e.destination(t, rc.URL, "")
			ev := sample(e.org)
			again := outreach.NewEvent(ev.Kind, e.org, time.Now().Add(time.Second), ev.Data) // new id and timestamp, same data
			marker := sample(e.org)
			if tc.oneTx {
				e.emit(t, ev, again, marker)
			} else {
				e.emit(t, ev)
				e.emit(t, again)
				e.emit(t, marker)
			}
			rc.waitFor(t, 15*time.Second, "the marker", func(rs []received) bool {
				for _, r := range rs {
					if r.campaignID() == marker.Data.Campaign.ID {
						return true
					}
				}
				return false
			})
			// A duplicate would be a delivery row of its own, created before the marker's (the
			// fan-out reads the outbox in order). Once every delivery of the destination is
			// finished, each has reached the receiver, so the count below is final: no pause
			// for a late duplicate is needed.
			e.waitFinished(t, d.ID, 2, 15*time.Second)
			got := rc.requests()
			n := 0
			for _, r := range got {
				if r.campaignID() == ev.Data.Campaign.ID {
					n++
				}
			}
			if n != 1 || len(got) != 2 {
				t.Errorf("identical payload delivered %d times (want 1); %d requests in all (want 2)", n, len(got))
			}
			list := e.waitFinished(t, d.ID, 2, 15*time.Second)
			if len(list) != 2 {
				t.Errorf("%d deliveries, want 2", len(list))
			}
		})
	}
}

func TestSlowDestinationDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{allowPrivate: true, timeout: 10 * time.Second})
	slow := newReceiver(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		select {
		case <-time.After(9 * time.Second):
		case <-r.Context().Done():
		}
	})
	fast := newReceiver(t, nil)
	e.destination(t, slow.URL, "")
	fd := e.destination(t, fast.URL, "")
	const n = 60
	for i := 0; i < n; i += 10 {
		var evs []outreach.Event
		for j := 0; j < 10; j++ {
			evs = append(evs, sample(e.org))
		}
		e.emit(t, evs...)
	}
	fast.waitFor(t, 115*time.Second, "every event at the fast destination", atLeast(n))
	if len(slow.requests()) == 0 {
		t.Fatal("the slow destination was never tried; the test proves nothing")
	}
	// Attempts are recorded in batches after they are made: wait for the records.
	e.waitFinished(t, fd.ID, n, 10*time.Second)
	// Measured from each delivery's creation by the fan-out to its attempt, so the figure is the
	// dispatcher's alone (a loaded shared test database can delay the fan-out itself).
	var worst float64
	if err := e.st.Pool().QueryRow(context.Background(), `SELECT max(extract(epoch FROM delivered_at - created_at))
		FROM deliveries WHERE destination_id = $1`, fd.ID).Scan(&worst); err != nil {
		t.Fatal(err)
	}
	if worst > 1 {
		t.Errorf("a fast delivery waited %.3fs from creation to attempt while the other destination hung; want < 1s", worst)
	}
	t.Logf("fast destination: %d deliveries, worst creation-to-attempt %.0f ms, while the slow one hangs", n, worst*1000)
}

func TestResendAndRecover(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{allowPrivate: true, schedule: []time.Duration{0, 100 * time.Millisecond}})
	var healthy = make(chan struct{})
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		select {
		case <-healthy:
		default:
			w.WriteHeader(503)
		}
	})
	d := e.destination(t, rc.URL, "")
	before := time.Now().Add(-time.Minute)
	e.emit(t, sample(e.org), sample(e.org))
	list := e.waitFinished(t, d.ID, 2, 15*time.Second)
	for _, l := range list {
		if l.Status != delivery.DeliveryFailed || l.Attempts != 2 {
			t.Fatalf("before resend: %+v", l)
		}
	}
	ctx := context.Background()
	if err := e.hub.Resend(ctx, e.org, list[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := e.hub.Resend(ctx, e.org, "dlv_unknown"); !isNotFound(err) {
		t.Errorf("resend of an unknown delivery: %v", err)
	}
	if err := e.hub.Resend(ctx, "org_other", list[0].ID); !isNotFound(err) {
		t.Errorf("resend in another organization: %v", err)
	}
	rc.waitFor(t, 15*time.Second, "the manual attempt", atLeast(5))
	list = e.waitFinished(t, d.ID, 2, 15*time.Second)
	atts, _ := e.ds.DeliveryAttempts(ctx, e.org, list[0].ID)
	if len(atts) != 3 || atts[2].Trigger != delivery.TriggerManual || list[0].Status != delivery.DeliveryFailed {
		t.Fatalf("after one manual resend: %d attempts %+v, delivery %+v", len(atts), atts, list[0])
	}

	close(healthy)
	if _, err := e.hub.Recover(ctx, e.org, time.Now(), before); err == nil {
		t.Error("an inverted range was accepted")
	}
	if n, err := e.hub.Recover(ctx, e.org, before.Add(-time.Hour), before); err != nil || n != 0 {
		t.Errorf("recover of an empty range = %d, %v", n, err)
	}
	n, err := e.hub.Recover(ctx, e.org, before, time.Now().Add(time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("recover = %d, %v; want 2", n, err)
	}
	list = e.waitFinished(t, d.ID, 2, 15*time.Second)
	for _, l := range list {
		if l.Status != delivery.DeliverySucceeded {
			t.Errorf("after recover: %+v", l)
		}
	}
}

func TestSendTest(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{allowPrivate: true, noRun: true})
	rc := newReceiver(t, nil)
	const secret = "s3cret"
	d := e.destination(t, rc.URL, secret, "reply_received", "call_booked")
	ctx := context.Background()
	res, err := e.hub.SendTest(ctx, d, "")
	if err != nil || !res.OK || res.StatusCode != 200 || res.Event != outreach.EventReplyReceived {
		t.Fatalf("SendTest = %+v, %v", res, err)
	}
	got := rc.requests()
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	var ev outreach.Event
	if err := json.Unmarshal(got[0].body, &ev); err != nil || !ev.Data.Test || ev.Kind != outreach.EventReplyReceived || ev.OrgID != e.org {
		t.Errorf("sample = %s (%v)", got[0].body, err)
	}
	if err := delivery.VerifyStandard(secret, got[0].header, got[0].body, time.Now(), 0); err != nil {
		t.Errorf("test send not signed: %v", err)
	}
	if _, err := e.hub.SendTest(ctx, d, outreach.EventReplyPositive); err != nil {
		t.Errorf("reply_positive is selected through reply_received: %v", err)
	}
	if _, err := e.hub.SendTest(ctx, d, outreach.EventInviteSent); err == nil {
		t.Error("a kind the destination did not select was sent")
	}
	last, err := e.ds.LastAttempts(ctx, e.org, []string{d.ID})
	if err != nil || last[d.ID].Trigger != delivery.TriggerTest || last[d.ID].StatusCode != 200 {
		t.Errorf("last attempt = %+v, %v", last[d.ID], err)
	}
	dest, _ := e.ds.GetDestination(ctx, e.org, d.ID)
	if dest.ConsecutiveFailures != 0 {
		t.Errorf("consecutive_failures = %d after tests", dest.ConsecutiveFailures)
	}
}

func TestSlackDestination(t *testing.T) {
	t.Parallel()
	e := startHub(t, hubOpts{allowPrivate: true})
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ int) { _, _ = w.Write([]byte("ok")) })
	d, err := e.ds.CreateDestination(context.Background(), delivery.Destination{OrgID: e.org, Name: "slack",
		Kind: outreach.DestinationSlack, URL: rc.URL, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	e.emit(t, sample(e.org))
	list := e.waitFinished(t, d.ID, 1, 15*time.Second)
	got := rc.requests()
	if list[0].Status != delivery.DeliverySucceeded || len(got) != 1 || !strings.Contains(string(got[0].body), `"blocks"`) {
		t.Fatalf("delivery %+v; %d requests: %s", list[0], len(got), got[0].body)
	}
}
