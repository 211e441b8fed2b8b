package engine_test

import (
	"testing"
	"time"

	"outreachd/engine"
	"outreachd/outreach"
)

// TestDailyDigest: the digest goes out at 13:05 UTC, not at 13:04, once per organization and
// day even with two instances, with the previous UTC day's counters only.
func TestDailyDigest(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC) // the digest's day
	w := newWorld(t, day.Add(24*time.Hour+13*time.Hour+4*time.Minute), worldOpt{})
	cid := w.campaign("", outreach.Schedule{}, nil, 0)
	add := func(kind, sentiment string, at time.Time) {
		var s any
		if sentiment != "" {
			s = sentiment
		}
		w.exec(`INSERT INTO activities (org_id, campaign_id, kind, sentiment, at) VALUES ($1, $2, $3, $4, $5)`, w.org, cid, kind, s, at)
	}
	// Edges of the day: 23:59:59 the day before and 00:00 the day after do not count.
	add("invite_sent", "", day.Add(-time.Second))
	add("invite_sent", "", day)
	add("invite_sent", "", day.Add(24*time.Hour-time.Millisecond))
	add("invite_sent", "", day.Add(24*time.Hour))
	add("connection_accepted", "", day.Add(5*time.Hour))
	add("message_sent", "", day.Add(6*time.Hour))
	add("reply", "positive", day.Add(7*time.Hour))
	add("reply", "negative", day.Add(8*time.Hour))
	add("reply", "neutral", day.Add(9*time.Hour))
	add("booking", "", day.Add(10*time.Hour))
	add("invite_withdrawn", "", day.Add(11*time.Hour))
	// Activity outside any campaign is not counted.
	w.exec(`INSERT INTO activities (org_id, kind, at) VALUES ($1, 'message_sent', $2)`, w.org, day.Add(12*time.Hour))

	digests := func() []outreach.Event { return only(w.events(), outreach.EventDailyDigest) }
	w.pass()
	if n := len(digests()); n != 0 {
		t.Fatalf("13:04 UTC: %d digests", n)
	}
	w.clock.Advance(time.Minute)
	other := w.newEngine(draftAdapter{}, engineCfg("other"))
	w.pass()
	if _, err := other.Pass(w.ctx); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(5 * time.Hour)
	w.pass()
	ds := digests()
	if len(ds) != 1 {
		t.Fatalf("%d digests, want exactly 1", len(ds))
	}
	r := ds[0].Data.Report
	want := outreach.ReportStats{ActivityTotals: outreach.ActivityTotals{InvitesSent: 2, ConnectionsAccepted: 1,
		MessagesSent: 1, Replies: 3, PositiveReplies: 1, NegativeReplies: 1, Bookings: 1}, InvitesWithdrawn: 1}
	if r.Type != "daily_digest" || r.Period != "2026-11-24" || *r.Stats != want {
		t.Fatalf("digest %+v stats %+v, want %+v", r, *r.Stats, want)
	}
	if ds[0].Timestamp != "2026-11-25T13:05:00.000Z" {
		t.Fatalf("digest timestamp %s", ds[0].Timestamp)
	}
	// The next day's digest covers the 25th (one invite at 00:00).
	w.clock.Advance(24 * time.Hour)
	w.pass()
	ds = digests()
	if len(ds) != 2 || ds[1].Data.Report.Period != "2026-11-25" || ds[1].Data.Report.Stats.InvitesSent != 1 {
		t.Fatalf("second day: %d digests", len(ds))
	}
}

// TestConversationStalledOnce: a positive replier silent for five days stalls once; a new
// message starts a new silence, which stalls again.
func TestConversationStalledOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{drafter: fixedDrafter{text: "As an AI, I cannot book calls."}}) // held for a person
	_, pid := w.messaged("eve")
	w.reply("eve", "Sounds interesting, tell me more.")
	stalls := func() []outreach.Event { return only(w.events(), outreach.EventConversationStalled) }
	w.clock.Advance(5*24*time.Hour - 2*time.Hour)
	w.pass()
	if n := len(stalls()); n != 0 {
		t.Fatalf("stalled before five days: %d", n)
	}
	w.clock.Advance(3 * time.Hour)
	w.pass()
	w.clock.Advance(24 * time.Hour)
	w.pass()
	s := stalls()
	if len(s) != 1 {
		t.Fatalf("%d conversation_stalled events, want 1", len(s))
	}
	if st := s[0].Data.Stalled; st.DaysSinceActivity != 5 || len(st.RecentConversation) == 0 || s[0].Data.Prospect.LeadID != pid {
		t.Fatalf("stalled block: %+v", st)
	}
	if got := w.count(`SELECT count(*) FROM stalls WHERE prospect_id = $1`, pid); got != 1 {
		t.Fatalf("stalls rows %d", got)
	}
	w.reply("eve", "Yes, still keen, just busy.")
	w.clock.Advance(6 * 24 * time.Hour)
	w.pass()
	if n := len(stalls()); n != 2 {
		t.Fatalf("a new silence should stall again: %d", n)
	}
}

// TestAccountAlerts: seat reports update the seat and emit their alerts with their fields.
func TestAccountAlerts(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	acc := w.acc.ProviderAccountID
	steps := []struct {
		do    func() error
		kinds []string
		check func(outreach.Event)
	}{
		{func() error { return w.sim.InjectRateLimit(acc, 12*time.Hour) }, []string{"account_rate_limited"}, func(e outreach.Event) {
			a := e.Data.Account
			if a.CooldownHours != 12 || a.CooldownUntil != outreach.FormatTime(w.clock.Now().Add(12*time.Hour)) ||
				a.AccountID != w.acc.ID || a.Name != "Sam Seller" {
				t.Errorf("rate limit block %+v", a)
			}
		}},
		// The same limit reported again (it ends no later, or less than an hour later): nothing new.
		{func() error { return w.sim.InjectRateLimit(acc, 6*time.Hour) }, nil, nil},
		{func() error { return w.sim.InjectRateLimit(acc, 12*time.Hour) }, nil, nil},
		// A longer limit is a new fact, told apart by its end.
		{func() error { return w.sim.InjectRateLimit(acc, 24*time.Hour) }, []string{"account_rate_limited"}, func(e outreach.Event) {
			if a := e.Data.Account; a.CooldownHours != 24 || a.CooldownUntil != outreach.FormatTime(w.clock.Now().Add(24*time.Hour)) {
				t.Errorf("longer rate limit block %+v", a)
			}
		}},
		{func() error { return w.sim.InjectDisconnect(acc) }, []string{"account_disconnected"}, func(e outreach.Event) {
			a := e.Data.Account
			if a.Status != "disconnected" || a.DisconnectedAt != outreach.FormatTime(w.clock.Now()) || a.ReconnectURL == "" {
				t.Errorf("disconnect block %+v", a)
			}
		}},
		{func() error { return w.sim.InjectDisconnect(acc) }, nil, nil}, // already down: nothing new
		{func() error { return w.sim.InjectReconnect(acc) }, []string{"account_reconnected"}, func(e outreach.Event) {
			if a := e.Data.Account; a.Status != "connected" || a.ReconnectedAt != outreach.FormatTime(w.clock.Now()) {
				t.Errorf("reconnect block %+v", a)
			}
		}},
		// A second disconnect and reconnect are new facts: the reconnection's time sets the two
		// reconnections apart (identical payloads would collapse into one delivery).
		{func() error { return w.sim.InjectDisconnect(acc) }, []string{"account_disconnected"}, nil},
		{func() error { return w.sim.InjectReconnect(acc) }, []string{"account_reconnected"}, func(e outreach.Event) {
			if a := e.Data.Account; a.ReconnectedAt != outreach.FormatTime(w.clock.Now()) {
				t.Errorf("second reconnect block %+v", a)
			}
		}},
		{func() error { return w.sim.InjectSalesNav(acc, true) }, []string{"sales_nav_unavailable"}, func(e outreach.Event) {
			a := e.Data.Account
			if a.SNVerdict != "lapsed" || a.PreviousSNVerdict != "active" || a.SNChangedAt == "" {
				t.Errorf("sales nav block %+v", a)
			}
		}},
		{func() error { return w.sim.InjectSalesNav(acc, false) }, []string{"sales_nav_restored"}, nil},
	}
	for i, s := range steps {
		n := len(w.events())
		w.clock.Advance(time.Minute)
		if err := s.do(); err != nil {
			t.Fatal(err)
		}
		w.pass()
		evs := w.since(n)
		wantKinds(t, evs, s.kinds...)
		if s.check != nil && len(evs) > 0 {
			s.check(evs[0])
		}
		_ = i
	}
	if got := w.count(`SELECT count(*) FROM linkedin_accounts WHERE id = $1 AND status = 'connected' AND sn_verdict = 'active'`, w.acc.ID); got != 1 {
		t.Fatal("seat state not kept")
	}
}

// TestSimulatedContent: posts and weekly reports appear once each on the engine clock.
func TestSimulatedContent(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday.Add(-2*time.Hour), worldOpt{cfg: engine.Config{SimulatedContent: true}}) // Monday 07:00
	w.pass()
	wantKinds(t, w.events())
	w.clock.Advance(3 * time.Hour) // 10:00
	w.pass()
	w.pass()
	wantKinds(t, w.events(), "post_scheduled", "market_analysis_generated", "report_generated")
	w.clock.Advance(6 * time.Hour) // 16:00
	w.pass()
	wantKinds(t, w.events(), "post_scheduled", "market_analysis_generated", "report_generated", "post_published")
}
