package webapp

import (
	"net/http"

	"github.com/gorilla/mux"
)

// LinkedIn accounts: the organization's seats with their status, read-only. Connecting,
// reconnecting and disconnecting a seat from this page, and its day's actions against its
// limits, come with the page's next version; until then `outreachd admin account connect` binds a
// seat.

func (a *App) linkedInAccountRoutes(sub *mux.Router) {
	sub.HandleFunc("/linkedin-accounts", a.page(a.linkedInAccountsPage)).Methods(http.MethodGet)
}

func (a *App) linkedInAccountsPage(w http.ResponseWriter, r *http.Request, u User) {
	seats, err := a.store.OrgLinkedInAccounts(r.Context(), u.OrgID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.render(w, r, http.StatusOK, "linkedin_accounts", view{Title: "LinkedIn accounts", Nav: "linkedin-accounts", D: seats})
}
