package webapp

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// Campaigns: the list with status and stats, the status buttons the domain's transitions allow
// (launch, pause, resume, complete, archive; the irreversible ones confirmed first), and a
// campaign's page with its prospects, its daily activity and its intake URL.

func (a *App) campaignRoutes(sub *mux.Router) {
	a.builderRoutes(sub) // before /campaigns/{id}: "new" is not an id
	a.importRoutes(sub)
	sub.HandleFunc("/campaigns/{id}/leads", a.page(a.leadsPage)).Methods(http.MethodGet)
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
	if act.Label == "Launch" {
		if r.PostFormValue("confirm") != "yes" {
			a.showLaunch(w, r, u, c, http.StatusOK)
			return
		}
		v, err := a.launchPreview(r.Context(), u, c)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if len(v.Blockers) > 0 {
			a.showLaunch(w, r, u, c, http.StatusConflict)
			return
		}
	}
	if act.Confirm && r.PostFormValue("confirm") != "yes" {
		msg := map[string][]string{
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
	a.log.Info("webapp: campaign status", "campaign", c.ID, "status", status, "actor", "user:"+u.ID)
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
	a.showCampaign(w, r, u, c, campaignExtras{Flash: "New intake URL made. Any previous one stopped working.",
		NewIntake: a.cfg.PublicURL + "/api/webhooks/leads/" + tok.Token})
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
