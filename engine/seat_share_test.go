package engine_test

import (
	"testing"
	"time"

	"outreachd/engine"
	"outreachd/outreach"
	"outreachd/storage"
)

// A campaign listing several seats shares its people among them: each new person goes to the
// seat with the fewest of the campaign's people, a seat that cannot act (its cap, down) leaves
// them to the others, and a person stays with the seat that reached them.

// seat connects another seat of the world's organization on the simulator.
func (w *world) seat(name string) storage.LinkedInAccount {
	w.t.Helper()
	pa, err := w.sim.ConnectAccount(w.ctx, w.org, name)
	if err != nil {
		w.t.Fatal(err)
	}
	acc, err := engine.ConnectSeat(w.ctx, w.st.Pool(), w.org, name, pa.ID)
	if err != nil {
		w.t.Fatal(err)
	}
	return acc
}

// seatsCampaign creates an active outbound campaign with the default schedule that lists seats.
func (w *world) seatsCampaign(seats ...string) string {
	w.t.Helper()
	c, err := w.st.CreateCampaign(w.ctx, w.org, storage.NewCampaign{Name: "Campaign " + w.t.Name(),
		OutreachType: outreach.OutreachOutbound, DailyLimit: 20, Schedule: outreach.DefaultSchedule(),
		Sequence: threeSteps, AccountIDs: seats})
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.st.SetCampaignStatus(w.ctx, c.ID, outreach.CampaignActive); err != nil {
		w.t.Fatal(err)
	}
	return c.ID
}

// invitesBySeat counts the invitations of a campaign per seat, and the people invited more than
// once.
func (w *world) invitesBySeat(cid string) (map[string]int, int) {
	w.t.Helper()
	rows, err := w.st.Pool().Query(w.ctx, `SELECT account_id, count(*) FROM activities
		WHERE campaign_id = $1 AND kind = 'invite_sent' GROUP BY account_id`, cid)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var acc string
		var n int
		if err := rows.Scan(&acc, &n); err != nil {
			w.t.Fatal(err)
		}
		out[acc] = n
	}
	twice := w.count(`SELECT count(*) FROM (SELECT prospect_id FROM activities WHERE campaign_id = $1
		AND kind = 'invite_sent' GROUP BY prospect_id HAVING count(*) > 1) t`, cid)
	return out, twice
}

func TestCampaignSharesItsPeopleAmongItsSeats(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	sam, ria := w.acc, w.seat("Ria Rahman")
	for seat, perDay := range map[string]int{sam.ID: 2, ria.ID: 3} {
		if _, err := engine.SetSeatLimits(w.ctx, w.st.Pool(), w.org, seat, engine.SeatLimitsChange{InvitesPerDay: new(perDay)}, w.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	cid := w.seatsCampaign(sam.ID, ria.ID)
	ids := w.push(cid, handles("share", 7)...)
	w.passes(3)

	// Both seats invite, each up to its own cap; the campaign's daily limit (20) is not reached.
	got, twice := w.invitesBySeat(cid)
	if got[sam.ID] != 2 || got[ria.ID] != 3 || twice != 0 {
		t.Fatalf("Monday: invitations by seat %v (%d people twice), want Sam 2 and Ria 3", got, twice)
	}
	// The two nobody could reach are still due, not put off to a seat's next day, and have no
	// seat yet; the others stay with the seat that invited them.
	waiting := 0
	for _, id := range ids {
		p := w.prospect(id)
		if p.AccountID == nil {
			waiting++
			if p.NextStepAt == nil || p.NextStepAt.After(w.clock.Now()) {
				t.Fatalf("a person no seat reached waits until %v", p.NextStepAt)
			}
		}
	}
	if waiting != 2 {
		t.Fatalf("%d people without a seat, want 2", waiting)
	}

	// Tuesday: both caps start again; Sam, with fewer of the campaign's people, takes both.
	w.clock.Set(monday.Add(21 * time.Hour))
	w.passes(3)
	got, twice = w.invitesBySeat(cid)
	if got[sam.ID] != 4 || got[ria.ID] != 3 || twice != 0 {
		t.Fatalf("Tuesday: invitations by seat %v (%d people twice), want Sam 4 and Ria 3", got, twice)
	}
	for _, id := range ids {
		p := w.prospect(id)
		var by string
		if err := w.st.Pool().QueryRow(w.ctx, `SELECT account_id FROM activities WHERE prospect_id = $1 AND kind = 'invite_sent'`, id).Scan(&by); err != nil {
			t.Fatal(err)
		}
		if p.AccountID == nil || *p.AccountID != by {
			t.Fatalf("%s was invited from %s but belongs to %v", id, by, p.AccountID)
		}
	}
}

// A seat that is down leaves the campaign's new people to its other seats.
func TestCampaignSeatDownLeavesPeopleToTheOthers(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	sam, ria := w.acc, w.seat("Ria Rahman")
	if _, err := engine.DisconnectSeat(w.ctx, w.st.Pool(), w.org, sam.ID, "user:test", w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	cid := w.seatsCampaign(sam.ID, ria.ID)
	w.push(cid, handles("down", 3)...)
	w.passes(2)
	if got, twice := w.invitesBySeat(cid); got[ria.ID] != 3 || got[sam.ID] != 0 || twice != 0 {
		t.Fatalf("invitations by seat %v (%d twice), want all three from Ria", got, twice)
	}
}

// Each seat keeps its own pace: at one moment a campaign of two seats invites once from each,
// with two instances working it together, and the campaign looks again when the first seat's
// gap ends.
func TestCampaignSeatsKeepTheirOwnPace(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	second := w.pacedPair()
	sam, ria := w.acc, w.seat("Ria Rahman")
	cid := w.seatsCampaign(sam.ID, ria.ID)
	w.push(cid, handles("pace", 6)...)
	w.together(w.eng, second)
	w.together(w.eng, second)
	if got, twice := w.invitesBySeat(cid); got[sam.ID] != 1 || got[ria.ID] != 1 || twice != 0 {
		t.Fatalf("invitations by seat at one moment %v (%d twice), want one from each", got, twice)
	}
	var first time.Time
	if err := w.st.Pool().QueryRow(w.ctx, `SELECT min(next_action_at) FROM linkedin_accounts WHERE org_id = $1`, w.org).Scan(&first); err != nil {
		t.Fatal(err)
	}
	var next time.Time
	if err := w.st.Pool().QueryRow(w.ctx, `SELECT engine_next_at FROM campaigns WHERE id = $1`, cid).Scan(&next); err != nil {
		t.Fatal(err)
	}
	if !next.Equal(first) {
		t.Fatalf("the campaign looks again at %v, want when the first seat's gap ends, %v", next, first)
	}
	w.clock.Set(first)
	w.together(w.eng, second)
	if got, _ := w.invitesBySeat(cid); got[sam.ID]+got[ria.ID] != 3 {
		t.Fatalf("invitations by seat once a gap ended %v, want 3 in all", got)
	}
}
