package engine_test

import (
	"context"
	"testing"
	"time"

	"outreachd/engine"
	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

// The operator log reads the campaigns launched since a point, by whichever process, once each.
func TestCampaignLaunches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testenv.Store(t)
	org := testenv.StoreOrg(t, st)
	ls, since, err := engine.CampaignLaunches(ctx, st.Pool(), time.Time{}, 10)
	if err != nil || len(ls) != 0 || since.IsZero() {
		t.Fatalf("first read: %v %v %v", ls, since, err)
	}
	c, err := st.CreateCampaign(ctx, org, storage.NewCampaign{Name: "C", OutreachType: outreach.OutreachOutbound,
		DailyLimit: 20, Schedule: outreach.DefaultSchedule()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetCampaignStatus(ctx, c.ID, outreach.CampaignActive); err != nil {
		t.Fatal(err)
	}
	ls, next, err := engine.CampaignLaunches(ctx, st.Pool(), since, 10)
	if err != nil || len(ls) != 1 || ls[0].ID != c.ID || ls[0].OrgID != org {
		t.Fatalf("launches: %+v %v", ls, err)
	}
	if ls, _, err = engine.CampaignLaunches(ctx, st.Pool(), next, 10); err != nil || len(ls) != 0 {
		t.Fatalf("a launch was reported twice: %+v %v", ls, err)
	}
}
