package webapp

import (
	"context"
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// The campaign builder: New campaign makes a draft, and a draft's page edits it until launch.
// Saving goes through the domain's reading of a campaign request (outreach.CampaignRequest) and
// storage's create and edit of a draft, as POST and PATCH /campaigns do. Add step, Move up,
// Move down and Remove are submit buttons, so without script the server shows the form again
// with the change and every field as typed; the script does the same in the page.

func (a *App) builderRoutes(sub *mux.Router) {
	sub.HandleFunc("/campaigns/new", a.page(a.newCampaignPage)).Methods(http.MethodGet)
	sub.HandleFunc("/campaigns/new", a.page(a.createCampaign)).Methods(http.MethodPost)
	sub.HandleFunc("/campaigns/{id}/edit", a.page(a.editCampaign)).Methods(http.MethodPost)
	sub.HandleFunc("/campaigns/{id}/duplicate", a.page(a.duplicateCampaign)).Methods(http.MethodPost)
}

// newForm is the builder of a new campaign: the API's defaults, the organization's default
// filters as the campaign's own, and the invitation as its first step.
func (a *App) newForm(ctx context.Context, orgID string) (builderForm, error) {
	in := outreach.NewCampaignSettings()
	var err error
	if in.HardFilters, err = a.orgDefaultFilters(ctx, orgID); err != nil {
		return builderForm{}, err
	}
	f := builderFormOf(in)
	f.Steps = []stepForm{f.newStep()}
	return f, nil
}

func (a *App) newCampaignPage(w http.ResponseWriter, r *http.Request, u User) {
	f, err := a.newForm(r.Context(), u.OrgID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.showNew(w, r, u, http.StatusOK, f, nil, false)
}

func (a *App) showNew(w http.ResponseWriter, r *http.Request, u User, status int, f builderForm, err error, unsaved bool) {
	v, e := a.builder(r.Context(), u, nil, f, err)
	if e != nil {
		a.fail(w, r, e)
		return
	}
	v.Unsaved = unsaved
	a.render(w, r, status, "campaign_new", view{Title: "New campaign", Nav: "campaigns", D: v})
}

// readBuilder decodes the builder's form and does what a step button asks of it; save reports
// Save. A form no page sends is answered here (ok false).
func (a *App) readBuilder(w http.ResponseWriter, r *http.Request) (f builderForm, save, ok bool) {
	f, op, err := decodeBuilder(r.PostForm)
	if err != nil {
		a.fail(w, r, err)
		return f, false, false
	}
	f.apply(op)
	return f, op.Kind == "save", true
}

func (a *App) createCampaign(w http.ResponseWriter, r *http.Request, u User) {
	f, save, ok := a.readBuilder(w, r)
	switch {
	case !ok:
	case !save:
		a.showNew(w, r, u, http.StatusOK, f, nil, true)
	default:
		c, err := a.saveNew(r.Context(), u, f)
		switch {
		case isClientError(err):
			a.showNew(w, r, u, refusalStatus(err), f, err, true)
		case err != nil:
			a.fail(w, r, err)
		default:
			http.Redirect(w, r, "/app/campaigns/"+c.ID+"?done=created", http.StatusSeeOther)
		}
	}
}

func (a *App) saveNew(ctx context.Context, u User, f builderForm) (storage.Campaign, error) {
	req, err := f.request()
	if err != nil {
		return storage.Campaign{}, err
	}
	in, _, err := req.Create()
	if err != nil {
		return storage.Campaign{}, err
	}
	c, err := a.store.CreateCampaign(ctx, u.OrgID, in)
	if err == nil {
		a.log.Info("webapp: campaign created", "campaign", c.ID, "actor", "user:"+u.ID)
	}
	return c, err
}

func (a *App) editCampaign(w http.ResponseWriter, r *http.Request, u User) {
	c, ok := a.campaignOf(w, r, u)
	if !ok {
		return
	}
	f, save, ok := a.readBuilder(w, r)
	if !ok {
		return
	}
	if !save {
		a.showCampaign(w, r, u, c, campaignExtras{Builder: &f, Unsaved: true})
		return
	}
	req, err := f.request()
	if err == nil {
		_, err = a.store.UpdateDraftCampaign(r.Context(), u.OrgID, c.ID, func(cur outreach.CampaignSettings) (outreach.CampaignSettings, error) {
			in, _, err := req.Edit(cur)
			return in, err
		})
	}
	switch {
	case isClientError(err) || errors.Is(err, outreach.ErrConflict):
		a.showCampaign(w, r, u, c, campaignExtras{Status: refusalStatus(err), Builder: &f, BuilderErr: err, Unsaved: true})
	case err != nil:
		a.fail(w, r, err)
	default:
		a.log.Info("webapp: campaign edited", "campaign", c.ID, "actor", "user:"+u.ID)
		http.Redirect(w, r, "/app/campaigns/"+c.ID+"?done=saved", http.StatusSeeOther)
	}
}

func (a *App) duplicateCampaign(w http.ResponseWriter, r *http.Request, u User) {
	c, ok := a.campaignOf(w, r, u)
	if !ok {
		return
	}
	cp, err := a.store.DuplicateCampaign(r.Context(), u.OrgID, c.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.log.Info("webapp: campaign duplicated", "campaign", c.ID, "copy", cp.ID, "actor", "user:"+u.ID)
	http.Redirect(w, r, "/app/campaigns/"+cp.ID+"?done=duplicated", http.StatusSeeOther)
}

// isClientError reports a refusal of what the person sent (bad input, impossible filters).
func isClientError(err error) bool {
	return errors.Is(err, outreach.ErrInvalid) || errors.Is(err, outreach.ErrInvalidFilters)
}

// refusalStatus is the HTTP status of a refused form: the API's (422 for impossible filters).
func refusalStatus(err error) int {
	switch {
	case errors.Is(err, outreach.ErrInvalidFilters):
		return http.StatusUnprocessableEntity
	case errors.Is(err, outreach.ErrConflict):
		return http.StatusConflict
	}
	return http.StatusBadRequest
}
