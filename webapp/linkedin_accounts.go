package webapp

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"outreachd/engine"
	"outreachd/outreach"
	"outreachd/storage"
)

// LinkedIn accounts: the organization's seats, each with its status in words, Sales Navigator,
// when it may act next and what it used today and this week against its caps (the rows `admin
// account list` prints, engine.SeatRows); a seat's own page changes its caps
// (engine.SetSeatLimits, as `admin account limits`). Connecting, reconnecting and
// disconnecting are in linkedin_accounts_connect.go.

func (a *App) linkedInAccountRoutes(sub *mux.Router) {
	sub.HandleFunc("/linkedin-accounts", a.page(a.linkedInAccountsPage)).Methods(http.MethodGet)
	sub.HandleFunc("/linkedin-accounts/connect", a.page(a.connectSeat)).Methods(http.MethodPost)
	sub.HandleFunc("/linkedin-accounts/{id}", a.page(a.seatPage)).Methods(http.MethodGet)
	sub.HandleFunc("/linkedin-accounts/{id}/limits", a.page(a.setSeatLimits)).Methods(http.MethodPost)
	sub.HandleFunc("/linkedin-accounts/{id}/disconnect", a.page(a.disconnectSeat)).Methods(http.MethodPost)
	sub.HandleFunc("/linkedin-accounts/{id}/reconnect", a.page(a.reconnectSeat)).Methods(http.MethodPost)
}

// seatFlashes are the outcomes said at the top of the list, about the seat ?seat= names.
var seatFlashes = map[string]string{
	"connected":    "%s is connected: campaigns may send from it now.",
	"already":      "%s was already a seat of this organization; it is connected again.",
	"reconnected":  "%s is connected again: its campaigns take it up within a quarter of an hour, where they stopped.",
	"disconnected": "%s is disconnected: outreachd sends nothing from it until you reconnect it.",
	"limits":       "The limits of %s are saved; they hold from its next action on.",
}

// seatsData is the list page.
type seatsData struct {
	Seats   []seatView
	Connect connectForm
	Clock   string
}

// connectForm is the Connect LinkedIn account form: how the configured provider connects a
// seat, and what was typed when it was refused.
type connectForm struct {
	How   string // "" when seats cannot be connected in this process
	Name  string
	Error string
}

func (a *App) linkedInAccountsPage(w http.ResponseWriter, r *http.Request, u User) {
	a.showSeats(w, r, u, http.StatusOK, connectForm{})
}

func (a *App) showSeats(w http.ResponseWriter, r *http.Request, u User, status int, f connectForm) {
	now := a.engineNow(r.Context())
	seats, err := a.seatViews(r.Context(), u.OrgID, now)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	f.How = a.connectHow()
	flash := ""
	if msg, ok := seatFlashes[r.URL.Query().Get("done")]; ok {
		for _, s := range seats {
			if s.AccountID == r.URL.Query().Get("seat") {
				flash = fmt.Sprintf(msg, s.Name)
			}
		}
	}
	a.render(w, r, status, "linkedin_accounts", view{Title: "LinkedIn accounts", Nav: "linkedin-accounts", Flash: flash,
		D: seatsData{Seats: seats, Connect: f, Clock: a.clockInWords(now)}})
}

// seatPageData is a seat's own page: the seat and its limits form.
type seatPageData struct {
	Seat   seatView
	Limits []limitField
	Clock  string
}

func (a *App) seatPage(w http.ResponseWriter, r *http.Request, u User) {
	a.showSeat(w, r, u, http.StatusOK, nil)
}

// showSeat renders a seat's page; typed holds the limits form as it was posted, with its
// refusals, when it was refused.
func (a *App) showSeat(w http.ResponseWriter, r *http.Request, u User, status int, typed []limitField) {
	now := a.engineNow(r.Context())
	s, ok := a.seatOf(w, r, u, now)
	if !ok {
		return
	}
	s.OwnPage = true
	d := seatPageData{Seat: s, Limits: typed, Clock: a.clockInWords(now)}
	if d.Limits == nil {
		d.Limits = limitFieldsOf(s.Limits)
	}
	a.render(w, r, status, "linkedin_account", view{Title: s.Name + " · LinkedIn accounts", Nav: "linkedin-accounts", D: d})
}

// seatOf reads the organization's seat the path names, answering 404 for any other.
func (a *App) seatOf(w http.ResponseWriter, r *http.Request, u User, now time.Time) (seatView, bool) {
	id := mux.Vars(r)["id"]
	if outreach.ValidID("acc", id) {
		seats, err := a.seatViews(r.Context(), u.OrgID, now)
		if err != nil {
			a.fail(w, r, err)
			return seatView{}, false
		}
		for _, s := range seats {
			if s.AccountID == id {
				return s, true
			}
		}
	}
	a.fail(w, r, outreach.NotFound("LinkedIn account %s", id))
	return seatView{}, false
}

// seatViews are the organization's seats as the pages show them, oldest first.
func (a *App) seatViews(ctx context.Context, orgID string, now time.Time) ([]seatView, error) {
	rows, err := engine.SeatRows(ctx, a.store.Pool(), orgID, now)
	if err != nil {
		return nil, err
	}
	people, err := a.accounts.orgEmails(ctx, orgID)
	if err != nil {
		return nil, err
	}
	out := make([]seatView, len(rows))
	for i, row := range rows {
		out[i] = seatViewOf(row, people, now)
	}
	return out, nil
}

// engineNow is the engine's clock: this process's (sped up in the demo), else the serving
// instance's, which is where the caps count their days.
func (a *App) engineNow(ctx context.Context) time.Time {
	if a.deps.DomainNow != nil {
		return a.deps.DomainNow()
	}
	return engine.EngineNow(ctx, a.store.Pool())
}

// seatOfOrg reads the organization's seat the path names as stored, answering 404 for any other.
func (a *App) seatOfOrg(w http.ResponseWriter, r *http.Request, u User) (storage.LinkedInAccount, bool) {
	id := mux.Vars(r)["id"]
	if !outreach.ValidID("acc", id) {
		a.fail(w, r, outreach.NotFound("LinkedIn account %s", id))
		return storage.LinkedInAccount{}, false
	}
	s, err := a.store.GetOrgLinkedInAccount(r.Context(), u.OrgID, id)
	if err != nil {
		a.fail(w, r, err)
		return storage.LinkedInAccount{}, false
	}
	return s, true
}
