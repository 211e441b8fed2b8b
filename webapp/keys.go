package webapp

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// The API keys page: create (scope, optional expiry; the key is shown once, in the page that
// answers the form, never in a URL), the list (prefix, scope, last used, expiry) and Revoke.

func (a *App) keyRoutes(sub *mux.Router) {
	sub.HandleFunc("/keys", a.page(a.keysPage)).Methods(http.MethodGet)
	sub.HandleFunc("/keys", a.page(a.createKey)).Methods(http.MethodPost)
	sub.HandleFunc("/keys/{id}/revoke", a.page(a.revokeKey)).Methods(http.MethodPost)
}

// keyLifetimes are the expiry choices of the form; "" never expires.
var keyLifetimes = []struct{ Value, Label string }{
	{"", "Never"},
	{"720h", "In 30 days"},
	{"2160h", "In 90 days"},
	{"8760h", "In 1 year"},
}

type keyRow struct {
	storage.APIKeyRow
	Expired bool
}

type keysData struct {
	Keys      []keyRow
	Lifetimes []struct{ Value, Label string }
	New       string // the key just made, shown once
	NewScope  string
}

func (a *App) showKeys(w http.ResponseWriter, r *http.Request, u User, status int, d keysData, flash, errMsg string) {
	list, err := a.store.ListAPIKeys(r.Context(), u.OrgID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	now := a.now()
	for _, k := range list {
		d.Keys = append(d.Keys, keyRow{APIKeyRow: k, Expired: k.ExpiresAt != nil && !k.ExpiresAt.After(now)})
	}
	d.Lifetimes = keyLifetimes
	a.render(w, r, status, "keys", view{Title: "API keys", Nav: "keys", Flash: flash, Error: errMsg, D: d})
}

func (a *App) keysPage(w http.ResponseWriter, r *http.Request, u User) {
	a.showKeys(w, r, u, http.StatusOK, keysData{}, flashOf(r), "")
}

func (a *App) createKey(w http.ResponseWriter, r *http.Request, u User) {
	scope := r.PostFormValue("scope")
	if scope == "" {
		scope = storage.ScopeReadWrite
	}
	var expires *time.Time
	if raw := r.PostFormValue("expires_in"); raw != "" {
		d, err := time.ParseDuration(raw)
		if err != nil || d <= 0 || d > 5*366*24*time.Hour {
			a.showKeys(w, r, u, http.StatusBadRequest, keysData{}, "", fmt.Sprintf("Expires: %q is not one of the offered choices.", raw))
			return
		}
		t := a.now().Add(d).UTC()
		expires = &t
	}
	k, secret, err := a.store.CreateAPIKey(r.Context(), u.OrgID, scope, expires)
	if errors.Is(err, outreach.ErrInvalid) {
		a.showKeys(w, r, u, http.StatusBadRequest, keysData{}, "", "Not created: "+err.Error())
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.log.Info("webapp: api key created", "key", k.ID, "org", u.OrgID, "user", u.ID)
	a.showKeys(w, r, u, http.StatusOK, keysData{New: secret, NewScope: k.Scope}, "", "")
}

func (a *App) revokeKey(w http.ResponseWriter, r *http.Request, u User) {
	id := mux.Vars(r)["id"]
	if !outreach.ValidID("key", id) {
		a.fail(w, r, outreach.NotFound("key %s", id))
		return
	}
	if err := a.store.RevokeOrgAPIKey(r.Context(), u.OrgID, id); err != nil {
		a.fail(w, r, err)
		return
	}
	a.log.Info("webapp: api key revoked", "key", id, "org", u.OrgID, "user", u.ID)
	http.Redirect(w, r, "/app/keys?done=revoked", http.StatusSeeOther)
}
