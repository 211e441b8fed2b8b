package webapp

import (
	"context"
	"html/template"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// A campaign's page: its moves, its settings (a draft's in the builder, a launched one's read
// only), importing leads, the intake URL, the daily activity and the newest leads.

type statusCount struct {
	Status string
	N      int
}

type campaignData struct {
	C         storage.Campaign
	Total     int
	Verdicts  map[string]int
	Actions   []statusAction
	Leads     []leadRow
	Chart     template.HTML
	Days      int
	Intake    bool
	IntakeAt  time.Time
	NewIntake string
	// Builder edits a draft; Settings shows a launched campaign's settings.
	Builder  *builderView
	Settings *settingsView
	Imports  []LeadImport
	Import   importForm
}

// campaignExtras is what a handler adds to the campaign's page: a message, a new intake URL
// shown once, the builder's form as typed (with why it was refused), an import refused.
type campaignExtras struct {
	Status     int // 0: 200
	Flash      string
	NewIntake  string
	Builder    *builderForm
	BuilderErr error
	Unsaved    bool
	ImportErr  error
}

const (
	chartDays   = 30
	newestLeads = 10
)

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
		a.showCampaign(w, r, u, c, campaignExtras{Flash: flashOf(r)})
	}
}

func (a *App) showCampaign(w http.ResponseWriter, r *http.Request, u User, c storage.Campaign, x campaignExtras) {
	ctx := r.Context()
	d := campaignData{C: c, Actions: actionsFor(c), Days: chartDays, NewIntake: x.NewIntake, Total: prospectTotal(c),
		Import: a.importForm(c, x.ImportErr)}
	var err error
	if d.Leads, _, err = a.leadRows(ctx, u, c, storage.LeadQuery{Source: "all", Limit: newestLeads}); err != nil {
		a.fail(w, r, err)
		return
	}
	if d.Verdicts, err = a.store.LeadVerdicts(ctx, u.OrgID, c.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	if d.IntakeAt, d.Intake, err = a.store.LiveIntakeToken(ctx, u.OrgID, c.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	if d.Imports, err = a.imports.ListLeadImports(ctx, u.OrgID, c.ID, 5); err != nil {
		a.fail(w, r, err)
		return
	}
	if c.Status.Editable() {
		f := builderFormOf(c.Settings())
		if x.Builder != nil {
			f = *x.Builder
		}
		v, err := a.builder(ctx, u, &c, f, x.BuilderErr)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		v.Unsaved = x.Unsaved
		d.Builder = &v
	} else { // a launched campaign: its settings read only, and its daily activity (a draft has none)
		v, err := a.settings(ctx, u, c)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		d.Settings = &v
		today := a.domainNow().UTC().Truncate(24 * time.Hour)
		days, err := a.store.DailyAnalytics(ctx, storage.DailyQuery{OrgID: u.OrgID, CampaignID: c.ID,
			From: today.AddDate(0, 0, -(chartDays - 1)), To: today})
		if err != nil {
			a.fail(w, r, err)
			return
		}
		d.Chart = activityChart(days)
	}
	status := x.Status
	if status == 0 {
		status = http.StatusOK
	}
	viewErr := ""
	if x.BuilderErr != nil && d.Builder == nil { // no longer a draft: the builder is not shown
		viewErr = "Not saved: " + x.BuilderErr.Error()
	}
	a.render(w, r, status, "campaign", view{Title: c.Name, Nav: "campaigns", Flash: x.Flash, Error: viewErr, D: d})
}

// settingsView is a launched campaign's settings as its page shows them, read only.
type settingsView struct {
	Type     string
	SendFrom seatsView
	Schedule string
	Filters  []string
	Steps    []stepView
}

func (a *App) settings(ctx context.Context, u User, c storage.Campaign) (settingsView, error) {
	v := settingsView{Type: typeLabel(c.OutreachType), Filters: filtersInWords(c.HardFilters), Schedule: scheduleInWords(c.Schedule)}
	seats, err := a.store.OrgLinkedInAccounts(ctx, u.OrgID)
	if err != nil {
		return v, err
	}
	v.SendFrom = sendingSeatsOf(seats, c.AccountIDs).view(c.OutreachType == outreach.OutreachInbound)
	f := builderFormOf(c.Settings())
	for i, s := range f.Steps {
		sv := stepView{stepForm: s, Index: i, Num: i + 1, Invite: s.Type == stepInvite}
		v.Steps = append(v.Steps, sv)
	}
	return v, nil
}
