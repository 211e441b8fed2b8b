package engine_test

import (
	"testing"
	"time"

	"outreachd/outreach"
)

// TestAcceptWhilePaused: a person who accepts while their campaign is paused gets the first
// message on its delay once the campaign runs again, not when the invitation would have expired.
func TestAcceptWhilePaused(t *testing.T) {
	t.Parallel()
	w := newWorld(t, monday, worldOpt{})
	cid := w.campaign("", outreach.Schedule{}, threeSteps, 0)
	id := w.push(cid, "paused-pat")[0]
	w.pass()
	w.want("invite_sent", 1)
	if _, err := w.st.SetCampaignStatus(w.ctx, cid, outreach.CampaignPaused); err != nil {
		t.Fatal(err)
	}
	if err := w.sim.InjectAccept(key("paused-pat")); err != nil {
		t.Fatal(err)
	}
	w.pass()
	if p := w.prospect(id); p.Status != "connected" || p.NextStepAt == nil || !p.NextStepAt.Equal(monday.Add(24*time.Hour)) {
		t.Fatalf("accepted while paused: %s, next step at %v; want the first message a day after", p.Status, p.NextStepAt)
	}
	w.clock.Set(monday.Add(2 * time.Hour))
	if _, err := w.st.SetCampaignStatus(w.ctx, cid, outreach.CampaignActive); err != nil {
		t.Fatal(err)
	}
	w.clock.Set(monday.Add(24*time.Hour + time.Minute))
	w.passes(2)
	w.want("message_sent", 1)
}
