package delivery

import (
	"bytes"
	"testing"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

func TestPolicyDecide(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	sched := []time.Duration{0, 30 * time.Second, 5 * time.Minute, 30 * time.Minute}
	p := policy{schedule: sched, jitter: 0.1, rand: func() float64 { return 0.5 }} // no jitter at 0.5
	cases := []struct {
		name         string
		attempt, max int
		res          attemptResult
		rnd          float64
		status       string
		delay        time.Duration
	}{
		{"2xx succeeds", 1, 4, attemptResult{OK: true}, 0.5, storage.DeliverySucceeded, 0},
		{"first failure waits the second delay", 1, 4, attemptResult{}, 0.5, storage.DeliveryPending, 30 * time.Second},
		{"third failure waits the fourth delay", 3, 4, attemptResult{}, 0.5, storage.DeliveryPending, 30 * time.Minute},
		{"fourth failure is final", 4, 4, attemptResult{}, 0.5, storage.DeliveryFailed, 0},
		{"jitter low end", 1, 4, attemptResult{}, 0, storage.DeliveryPending, 27 * time.Second},
		{"jitter high end", 1, 4, attemptResult{}, 0.999999999, storage.DeliveryPending, 33 * time.Second},
		{"Retry-After longer than the delay wins", 1, 4, attemptResult{RetryAfter: 2 * time.Minute}, 0.5, storage.DeliveryPending, 2 * time.Minute},
		{"Retry-After shorter than the delay is ignored", 2, 4, attemptResult{RetryAfter: time.Minute}, 0.5, storage.DeliveryPending, 5 * time.Minute},
		{"Retry-After is capped by the longest delay", 1, 4, attemptResult{RetryAfter: 24 * time.Hour}, 0.5, storage.DeliveryPending, 30 * time.Minute},
		{"recovered delivery starts a fresh budget", 5, 8, attemptResult{}, 0.5, storage.DeliveryPending, 30 * time.Second},
		{"manual resend of a failed delivery is final", 5, 5, attemptResult{}, 0.5, storage.DeliveryFailed, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p.rand = func() float64 { return c.rnd }
			v := p.decide(c.attempt, c.max, c.res, now)
			if v.Status != c.status {
				t.Fatalf("status %s, want %s", v.Status, c.status)
			}
			if c.status == storage.DeliveryPending {
				if got := v.Next.Sub(now); got < c.delay-time.Millisecond || got > c.delay+time.Millisecond {
					t.Fatalf("next attempt in %s, want %s", got, c.delay)
				}
			}
		})
	}
}

func TestPayloadIdentity(t *testing.T) {
	at := time.Now()
	ev := outreach.SampleEvent(outreach.EventCallBooked, "org_a", at)
	same := outreach.NewEvent(ev.Kind, ev.OrgID, at.Add(time.Hour), ev.Data)
	otherOrg := outreach.NewEvent(ev.Kind, "org_b", at, ev.Data)
	otherKind := outreach.NewEvent(outreach.EventAutoBookingCreated, ev.OrgID, at, ev.Data)
	changed := ev
	d := *ev.Data.Booking
	d.Title += "!"
	changed.Data.Booking = &d
	id := func(e outreach.Event) []byte {
		b, err := payloadIdentity(e)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(id(ev), id(same)) {
		t.Error("the same fact with another id and timestamp must collapse")
	}
	later := outreach.SampleEvent(outreach.EventReplyPositive, "org_a", at)
	again := outreach.NewEvent(later.Kind, later.OrgID, at.Add(time.Minute), later.Data)
	moved := *later.Data.Campaign
	stats := *moved.Stats
	stats.Replies++
	moved.Stats = &stats
	again.Data.Campaign = &moved
	if !bytes.Equal(id(later), id(again)) {
		t.Error("the same fact emitted again after the campaign's stats moved must collapse")
	}
	if later.Data.Campaign.Stats == nil {
		t.Error("payloadIdentity changed the event it was given")
	}
	for name, e := range map[string]outreach.Event{"org": otherOrg, "kind": otherKind, "data": changed} {
		if bytes.Equal(id(ev), id(e)) {
			t.Errorf("another %s must not collapse", name)
		}
	}
	if bytes.Equal(dedupeKey("dst_1", id(ev)), dedupeKey("dst_2", id(ev))) {
		t.Error("dedupe keys must differ per destination")
	}
}
