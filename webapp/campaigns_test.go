package webapp_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"outreachd/outreach"
	"outreachd/storage"
	"outreachd/webapp"
)

func TestCampaignsPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webapp.Config{PublicURL: "https://leads.example.com"})
	ctx := context.Background()
	orgID, _ := e.org("ops@acme.test", "a long enough password")
	camp, err := e.store.CreateCampaign(ctx, orgID, storage.NewCampaign{Name: "Berlin founders", OutreachType: outreach.OutreachOutbound,
		DailyLimit: 20, Schedule: outreach.DefaultSchedule()})
	if err != nil {
		t.Fatal(err)
	}
	e.seat(orgID, "Sam Seller")
	c := e.client()
	c.mustLogin("ops@acme.test", "a long enough password")
	status := func() outreach.CampaignStatus {
		got, err := e.store.GetCampaign(ctx, orgID, camp.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Status
	}

	p := c.get("/app/campaigns")
	if !strings.Contains(p.Body, "Berlin founders") || !strings.Contains(p.Body, ">Launch…</button>") || strings.Contains(p.Body, ">Pause</button>") {
		t.Fatal("a draft is not offered exactly its moves (launch, archive)")
	}
	// Launching is irreversible: a confirmation first, then the move.
	p = c.post("/app/campaigns/"+camp.ID+"/status", url.Values{"status": {"active"}})
	if p.Status != http.StatusOK || !strings.Contains(p.Body, "It cannot be undone") || status() != outreach.CampaignDraft {
		t.Fatalf("launch without confirmation: %d, status %s", p.Status, status())
	}
	p = c.post("/app/campaigns/"+camp.ID+"/status", url.Values{"status": {"active"}, "confirm": {"yes"}})
	if p.Status != http.StatusSeeOther || status() != outreach.CampaignActive {
		t.Fatalf("confirmed launch: %d, status %s", p.Status, status())
	}
	// Pause is not asked again; a move the domain forbids is refused by name.
	if p := c.post("/app/campaigns/"+camp.ID+"/status", url.Values{"status": {"paused"}}); p.Status != http.StatusSeeOther || status() != outreach.CampaignPaused {
		t.Fatalf("pause: %d %s", p.Status, status())
	}
	if p := c.post("/app/campaigns/"+camp.ID+"/status", url.Values{"status": {"draft"}}); p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "cannot go from paused to draft") {
		t.Fatalf("back to draft: %d %s", p.Status, alert(p.Body))
	}
	if p := c.post("/app/campaigns/"+camp.ID+"/status", url.Values{"status": {"sleeping"}}); p.Status != http.StatusBadRequest {
		t.Fatalf("unknown status: %d", p.Status)
	}
	p = c.get("/app/campaigns/" + camp.ID)
	if !strings.Contains(p.Body, ">Resume</button>") || !strings.Contains(p.Body, "<svg class=\"chart\"") || !strings.Contains(p.Body, "This campaign has no intake URL") {
		t.Fatal("the campaign page lacks its resume button, chart or intake state")
	}

	// Intake URL: made and shown once, rotated (the old one stops), revoked.
	intake := regexp.MustCompile(`value="(https://leads\.example\.com/api/webhooks/leads/(itk_[A-Za-z0-9_-]+))"`)
	p = c.post("/app/campaigns/"+camp.ID+"/intake", url.Values{})
	m := intake.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("create intake: %d", p.Status)
	}
	if _, err := e.store.ResolveIntakeToken(ctx, m[2]); err != nil {
		t.Fatalf("the shown intake token does not resolve: %v", err)
	}
	if p := c.get("/app/campaigns/" + camp.ID); strings.Contains(p.Body, m[2]) || !strings.Contains(p.Body, "live") {
		t.Fatal("the intake URL is shown again, or not said to be live")
	}
	p = c.post("/app/campaigns/"+camp.ID+"/intake", url.Values{})
	m2 := intake.FindStringSubmatch(p.Body)
	if m2 == nil || m2[2] == m[2] {
		t.Fatal("rotate did not show a new intake URL")
	}
	if _, err := e.store.ResolveIntakeToken(ctx, m[2]); err == nil {
		t.Fatal("the rotated-out token still resolves")
	}
	if p := c.post("/app/campaigns/"+camp.ID+"/intake/revoke", url.Values{}); p.Status != http.StatusSeeOther {
		t.Fatalf("revoke intake: %d", p.Status)
	}
	if _, err := e.store.ResolveIntakeToken(ctx, m2[2]); err == nil {
		t.Fatal("the revoked token still resolves")
	}
}
