package webapp

import (
	"errors"
	"html/template"
	"net/http"
	"sort"
	"time"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// Campaigns: the list with status and stats, the status buttons the domain's transitions allow
// (launch, pause, resume, complete, archive; the irreversible ones confirmed first), and a
// campaign's page with its prospects, its daily activity and its intake URL.

func (a *App) campaignRoutes(sub *mux.Router) {
	sub.HandleFunc("/campaigns", a.page(a.campaignsPage)).Methods(http.MethodGet)
	sub.HandleFunc("/campaigns/{id}", a.page(a.campaignPage)).Methods(http.MethodGet)
	sub.HandleFunc("/campaigns/{id}/status", a.page(a.setCampaignStatus)).Methods(http.MethodPost)
	sub.HandleFunc("/campaigns/{id}/intake", a.page(a.createIntake)).Methods(http.MethodPost)
	sub.HandleFunc("/campaigns/{id}/intake/revoke", a.page(a.revokeIntake)).Methods(http.MethodPost)
}

// statusAction is one button that moves a campaign.
type statusAction struct {
	Status  string
	Label   string
	Confirm bool // irreversible: asked again on a page of its own
}

// actionsFor lists the moves the domain allows from c's status, in a fixed order.
func actionsFor(c storage.Campaign) []statusAction {
	var out []statusAction
	for _, s := range []outreach.CampaignStatus{outreach.CampaignActive, outreach.CampaignPaused,
		outreach.CampaignCompleted, outreach.CampaignArchived} {
		if s == c.Status || !c.Status.CanBecome(s) {
			continue
		}
		a := statusAction{Status: string(s)}
		switch s {
		case outreach.CampaignActive:
			a.Label, a.Confirm = "Resume", false
			if c.StartedAt == nil {
				a.Label, a.Confirm = "Launch", true
			}
		case outreach.CampaignPaused:
			a.Label = "Pause"
		case outreach.CampaignCompleted:
			a.Label, a.Confirm = "Complete", true
		case outreach.CampaignArchived:
			a.Label, a.Confirm = "Archive", true
		}
		out = append(out, a)
	}
	return out
}

type campaignRow struct {
	C         storage.Campaign
	Prospects int
	Activity  storage.ActivityTotals
	Actions   []statusAction
}

func prospectTotal(c storage.Campaign) int {
	n := 0
	for _, v := range c.ProspectCounts {
		n += v
	}
	return n
}

func (a *App) campaignsPage(w http.ResponseWriter, r *http.Request, u User) {
	list, err := a.store.ListCampaigns(r.Context(), u.OrgID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	totals, err := a.store.CampaignActivityTotals(r.Context(), u.OrgID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	rows := make([]campaignRow, len(list))
	for i, c := range list {
		rows[i] = campaignRow{C: c, Prospects: prospectTotal(c), Activity: totals[c.ID], Actions: actionsFor(c)}
	}
	a.render(w, r, http.StatusOK, "campaigns", view{Title: "Campaigns", Nav: "campaigns", Flash: flashOf(r), D: rows})
}

type statusCount struct {
	Status string
	N      int
}

type campaignData struct {
	C         storage.Campaign
	Counts    []statusCount
	Total     int
	Actions   []statusAction
	Prospects []storage.Prospect
	Chart     template.HTML
	Days      int
	Intake    bool
	IntakeAt  time.Time
	NewIntake string
}

const chartDays = 30

func (a *App) campaignOf(w http.ResponseWriter, r *http.Request, u User) (storage.Campaign, bool) {
	id := mux.Vars(r)["id"]
	if !outreach.ValidID("cmp", id) {
		a.fail(w, r, outreach.NotFound("campaign %s", id))
		return storage.Campaign{}, false
	}
	c, err := a.store.GetCampaign(r.Context(), u.OrgID, id)
	if err != nil {
		a.fail(w, r, err)
		return storage.Campaign{}, false
	}
	return c, true
}

func (a *App) campaignPage(w http.ResponseWriter, r *http.Request, u User) {
	c, ok := a.campaignOf(w, r, u)
	if ok {
		a.showCampaign(w, r, u, c, flashOf(r), "")
	}
}

func (a *App) showCampaign(w http.ResponseWriter, r *http.Request, u User, c storage.Campaign, flash, newIntake string) {
	ctx := r.Context()
	prospects, _, err := a.store.ListProspects(ctx, u.OrgID, storage.ProspectQuery{CampaignID: c.ID, Limit: 50})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	today := a.domainNow().UTC().Truncate(24 * time.Hour)
	days, err := a.store.DailyAnalytics(ctx, storage.DailyQuery{OrgID: u.OrgID, CampaignID: c.ID,
		From: today.AddDate(0, 0, -(chartDays - 1)), To: today})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	since, live, err := a.store.LiveIntakeToken(ctx, u.OrgID, c.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d := campaignData{C: c, Actions: actionsFor(c), Prospects: prospects, Chart: activityChart(days), Days: chartDays,
		Intake: live, IntakeAt: since, NewIntake: newIntake, Total: prospectTotal(c)}
	for s, n := range c.ProspectCounts {
		d.Counts = append(d.Counts, statusCount{s, n})
	}
	sort.Slice(d.Counts, func(i, j int) bool { return d.Counts[i].N > d.Counts[j].N })
	a.render(w, r, http.StatusOK, "campaign", view{Title: c.Name, Nav: "campaigns", Flash: flash, D: d})
}

type confirmData struct {
	Heading string
	Message []string
	Action  string
	Fields  map[string]string
	Button  string
	Cancel  string
	Quote   string
}

func (a *App) setCampaignStatus(w http.ResponseWriter, r *http.Request, u User) {
	c, ok := a.campaignOf(w, r, u)
	if !ok {
		return
	}
	status, err := outreach.ParseCampaignStatus(r.PostFormValue("status"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var act *statusAction
	for _, x := range actionsFor(c) {
		if x.Status == string(status) {
			act = &x
		}
	}
	if act == nil {
		a.fail(w, r, outreach.Invalidf("campaign %s cannot go from %s to %s", c.Name, c.Status, status))
		return
	}
	if act.Confirm && r.PostFormValue("confirm") != "yes" {
		msg := map[string][]string{
			"Launch":   {"Launching starts sending invitations and messages on LinkedIn from the campaign's seats, within its schedule and daily limit.", "It cannot be undone: you can pause the campaign later, but what was sent stays sent."},
			"Complete": {"Completing stops the campaign for good: it takes no new leads and sends nothing more.", "It cannot be undone; a completed campaign can only be archived."},
			"Archive":  {"Archiving closes the campaign for good and moves it out of the way.", "It cannot be undone."},
		}[act.Label]
		a.render(w, r, http.StatusOK, "confirm", view{Title: act.Label + " " + c.Name, Nav: "campaigns", D: confirmData{
			Heading: act.Label + " “" + c.Name + "”?", Message: msg, Action: "/app/campaigns/" + c.ID + "/status",
			Fields: map[string]string{"status": act.Status, "confirm": "yes"}, Button: act.Label + " campaign",
			Cancel: "/app/campaigns/" + c.ID}})
		return
	}
	if _, err := a.store.SetCampaignStatus(r.Context(), c.ID, status); err != nil {
		a.fail(w, r, err)
		return
	}
	a.log.Info("webapp: campaign status", "campaign", c.ID, "status", status, "user", u.ID)
	back := "/app/campaigns"
	if r.PostFormValue("from") == "campaign" || r.PostFormValue("confirm") == "yes" {
		back = "/app/campaigns/" + c.ID
	}
	http.Redirect(w, r, back+"?done=status", http.StatusSeeOther)
}

func (a *App) createIntake(w http.ResponseWriter, r *http.Request, u User) {
	c, ok := a.campaignOf(w, r, u)
	if !ok {
		return
	}
	tok, err := a.store.CreateIntakeToken(r.Context(), u.OrgID, c.ID, a.deps.SealIntakeToken)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.showCampaign(w, r, u, c, "New intake URL made. Any previous one stopped working.", a.cfg.PublicURL+"/api/webhooks/leads/"+tok.Token)
}

func (a *App) revokeIntake(w http.ResponseWriter, r *http.Request, u User) {
	c, ok := a.campaignOf(w, r, u)
	if !ok {
		return
	}
	if _, err := a.store.RevokeIntakeToken(r.Context(), u.OrgID, c.ID); err != nil && !errors.Is(err, outreach.ErrNotFound) {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/app/campaigns/"+c.ID+"?done=intake", http.StatusSeeOther)
}
