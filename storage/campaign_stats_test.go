package storage_test

import (
	"context"
	"testing"
	"time"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// Every event tied to a campaign carries the campaign's stats as of its transaction (docs/api.md
// lists them among the campaign block's fields), whichever code emitted it: the prospect counts
// by status, and the activity counters from the daily rollup.
func TestEventsCarryCampaignStats(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	org := testenv.StoreOrg(t, st)
	camp := leadCampaign(t, st, org, "active", `{}`)
	push(t, st, org, camp, outreach.LeadInput{LinkedInURL: "stats-one"}, outreach.LeadInput{LinkedInURL: "stats-two"})

	// Activities of the campaign (as the engine writes them), then one more lead.
	if _, err := st.Pool().Exec(ctx, `INSERT INTO activities (org_id, campaign_id, kind, sentiment)
		VALUES ($1, $2, 'invite_sent', NULL), ($1, $2, 'invite_sent', NULL), ($1, $2, 'reply', 'positive'),
		       ($1, $2, 'booking', NULL), ($1, NULL, 'invite_sent', NULL)`, org, camp); err != nil {
		t.Fatal(err)
	}
	push(t, st, org, camp, outreach.LeadInput{LinkedInURL: "stats-three"})

	// An event emitted with a bare campaign block by other code gets the stats too.
	if err := st.InTx(ctx, func(tx *storage.Tx) error {
		ev := outreach.SampleEvent(outreach.EventConnectionAccepted, org, time.Now())
		ev.Data.Campaign = &outreach.CampaignBlock{ID: camp, Name: "bare"}
		tx.Emit(ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	evs, err := st.OutboxEvents(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	var added []*outreach.CampaignStats
	var bare *outreach.CampaignStats
	for _, e := range evs {
		switch e.Kind {
		case outreach.EventProspectAdded:
			added = append(added, e.Data.Campaign.Stats)
		case outreach.EventConnectionAccepted:
			bare = e.Data.Campaign.Stats
		}
	}
	if len(added) != 3 || bare == nil {
		t.Fatalf("prospect_added stats %v, connection_accepted stats %v", added, bare)
	}
	for i, s := range added {
		if s == nil {
			t.Fatalf("prospect_added #%d has no campaign stats", i)
		}
	}
	// The first push's two events share one snapshot: two prospects, no activity yet.
	if first := added[0]; first.Prospects != 2 || first.ProspectsByStatus["pending"] != 2 || first.InvitesSent != 0 {
		t.Errorf("first push stats = %+v", *first)
	}
	want := outreach.CampaignStats{Prospects: 3, ActivityTotals: outreach.ActivityTotals{InvitesSent: 2, Replies: 1, PositiveReplies: 1, Bookings: 1}}
	for name, s := range map[string]*outreach.CampaignStats{"second push": added[2], "bare block": bare} {
		if s.Prospects != want.Prospects || s.InvitesSent != want.InvitesSent || s.Replies != want.Replies ||
			s.PositiveReplies != want.PositiveReplies || s.NegativeReplies != 0 || s.Bookings != want.Bookings ||
			s.ConnectionsAccepted != 0 || s.MessagesSent != 0 || s.ProspectsByStatus["pending"] != 3 {
			t.Errorf("%s stats = %+v, want %+v with 3 pending", name, *s, want)
		}
	}
}
