package webapp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"outreachd/engine"
	"outreachd/outreach"
	"outreachd/storage"
)

// Connect LinkedIn account, Reconnect and Disconnect. The configured provider decides how a
// seat connects: the simulator at once (SeatConnector, the same code as `admin account connect`),
// Unipile through its hosted sign-in page (SeatLinks): the person is sent there, and the seat
// joins when Unipile calls back (POST /api/providers/unipile/accounts). Disconnect stops
// outreachd using a seat (engine.DisconnectSeat, recorded as the person's); it changes nothing
// on LinkedIn, and Reconnect brings the seat back.

// SeatConnector connects LinkedIn seats at once, with nobody signing in (the LinkedIn simulator).
type SeatConnector interface {
	// Connect connects the seat name of orgID (again, when it exists) and returns it.
	Connect(ctx context.Context, orgID, name string) (storage.LinkedInAccount, error)
	// Reconnect connects seat again.
	Reconnect(ctx context.Context, seat storage.LinkedInAccount) (storage.LinkedInAccount, error)
}

// SeatLinks connects LinkedIn seats through the provider's hosted sign-in page (Unipile's:
// *unipile.Seats).
type SeatLinks interface {
	// ConnectLink makes the sign-in link through which a person connects a LinkedIn account as
	// the seat name of orgID.
	ConnectLink(ctx context.Context, orgID, name string) (outreach.ConnectLink, error)
	// ReconnectLink makes the link through which the seat's owner signs in again, or none
	// (working) when the provider reports the account working.
	ReconnectLink(ctx context.Context, orgID, name, providerAccountID string) (link outreach.ConnectLink, working bool, err error)
}

// connectHow says how Connect LinkedIn account works in this process: "now", "sign-in", or ""
// when seats cannot be connected here.
func (a *App) connectHow() string {
	switch {
	case a.deps.SeatLinks != nil:
		return "sign-in"
	case a.deps.Seats != nil:
		return "now"
	}
	return ""
}

func (a *App) connectSeat(w http.ResponseWriter, r *http.Request, u User) {
	typed := r.PostFormValue("name")
	name, err := outreach.SeatName(typed)
	if err != nil {
		a.showSeats(w, r, u, http.StatusBadRequest, connectForm{Name: typed, Error: capitalized(err.Error()) + "."})
		return
	}
	ctx := r.Context()
	switch a.connectHow() {
	case "sign-in":
		link, err := a.deps.SeatLinks.ConnectLink(ctx, u.OrgID, name)
		if err != nil {
			a.failSeat(w, r, err)
			return
		}
		a.log.Info("webapp: sign-in link made for a new seat", "user", u.ID)
		a.sendToSignIn(w, r, name, link)
	case "now":
		before, err := a.store.OrgLinkedInAccounts(ctx, u.OrgID)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		acc, err := a.deps.Seats.Connect(ctx, u.OrgID, name)
		if err != nil {
			a.failSeat(w, r, err)
			return
		}
		done := "connected"
		for _, b := range before {
			if b.ID == acc.ID {
				done = "already"
			}
		}
		a.log.Info("webapp: seat connected", "account", acc.ID, "user", u.ID)
		http.Redirect(w, r, seatDone(done, acc.ID), http.StatusSeeOther)
	default:
		a.renderError(w, r, http.StatusServiceUnavailable, "LinkedIn seats cannot be connected in this process.")
	}
}

func (a *App) reconnectSeat(w http.ResponseWriter, r *http.Request, u User) {
	acc, ok := a.seatOfOrg(w, r, u)
	if !ok {
		return
	}
	if acc.Status != "disconnected" {
		a.renderError(w, r, http.StatusConflict, acc.Name+" is not disconnected: there is nothing to reconnect.")
		return
	}
	ctx := r.Context()
	var err error
	switch a.connectHow() {
	case "sign-in":
		link, working, lerr := a.deps.SeatLinks.ReconnectLink(ctx, u.OrgID, acc.Name, acc.ProviderAccountID)
		switch {
		case lerr != nil:
			err = lerr
		case !working:
			a.log.Info("webapp: sign-in link made to reconnect a seat", "account", acc.ID, "user", u.ID)
			a.sendToSignIn(w, r, acc.Name, link)
			return
		default: // the provider says the account works: nobody needs to sign in
			_, err = engine.ConnectSeat(ctx, a.store.Pool(), u.OrgID, acc.Name, acc.ProviderAccountID)
		}
	case "now":
		_, err = a.deps.Seats.Reconnect(ctx, acc)
	default:
		a.renderError(w, r, http.StatusServiceUnavailable, "LinkedIn seats cannot be reconnected in this process.")
		return
	}
	if err != nil {
		a.failSeat(w, r, err)
		return
	}
	a.log.Info("webapp: seat reconnected", "account", acc.ID, "user", u.ID)
	http.Redirect(w, r, seatDone("reconnected", acc.ID), http.StatusSeeOther)
}

func (a *App) disconnectSeat(w http.ResponseWriter, r *http.Request, u User) {
	acc, ok := a.seatOfOrg(w, r, u)
	if !ok {
		return
	}
	ctx := r.Context()
	if r.PostFormValue("confirm") != "yes" {
		msg, err := a.disconnectWords(ctx, u.OrgID, acc)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		a.render(w, r, http.StatusOK, "confirm", view{Title: "Disconnect " + acc.Name, Nav: "linkedin-accounts", D: confirmData{
			Heading: "Disconnect " + acc.Name + "?", Message: msg, Action: "/app/linkedin-accounts/" + acc.ID + "/disconnect",
			Fields: map[string]string{"confirm": "yes"}, Button: "Disconnect " + acc.Name, Cancel: "/app/linkedin-accounts#" + acc.ID}})
		return
	}
	if _, err := engine.DisconnectSeat(ctx, a.store.Pool(), u.OrgID, acc.ID, "user:"+u.ID, a.engineNow(ctx)); err != nil {
		a.fail(w, r, err)
		return
	}
	a.log.Info("webapp: seat disconnected", "account", acc.ID, "user", u.ID)
	http.Redirect(w, r, seatDone("disconnected", acc.ID), http.StatusSeeOther)
}

// disconnectWords says what disconnecting acc does, naming the campaigns it touches: those
// that send from it alone, those that list it beside other seats (their new people go to the
// others), and those that send from the organization's seats (naming none).
func (a *App) disconnectWords(ctx context.Context, orgID string, acc storage.LinkedInAccount) ([]string, error) {
	camps, err := a.store.ListCampaigns(ctx, orgID)
	if err != nil {
		return nil, err
	}
	seats, err := a.store.OrgLinkedInAccounts(ctx, orgID)
	if err != nil {
		return nil, err
	}
	var named, beside, stranded, shared []string
	for _, c := range camps {
		if c.Status != outreach.CampaignActive && c.Status != outreach.CampaignPaused {
			continue
		}
		switch {
		case len(c.AccountIDs) == 0:
			shared = append(shared, "“"+c.Name+"”")
		case !slices.Contains(c.AccountIDs, acc.ID):
		case len(c.AccountIDs) == 1, c.OutreachType == outreach.OutreachInbound && c.AccountIDs[0] == acc.ID:
			named = append(named, "“"+c.Name+"”") // an inbound campaign writes from its first seat
		case c.OutreachType == outreach.OutreachInbound: // not its first seat: only people already in touch with it wait
		case anotherWorking(sendingSeatsOf(seats, c.AccountIDs).Seats, acc.ID):
			beside = append(beside, "“"+c.Name+"”")
		default:
			stranded = append(stranded, "“"+c.Name+"”")
		}
	}
	msg := []string{"outreachd stops acting through " + acc.Name + " at once: no invitation, message, reply or profile look-up goes out from it. " +
		"Nothing changes on LinkedIn itself and nothing is deleted; replies people send to it still arrive."}
	if len(named) > 0 {
		msg = append(msg, fmt.Sprintf("Campaigns that send from it: %s. Their people wait where they are, and continue where they stopped once the seat is reconnected.",
			strings.Join(named, ", ")))
	}
	if len(beside) > 0 {
		msg = append(msg, fmt.Sprintf("Campaigns that send from it and other seats: %s. Their new people go through their other connected seats; the people %s already contacted wait for it.",
			strings.Join(beside, ", "), acc.Name))
	}
	if len(stranded) > 0 {
		msg = append(msg, fmt.Sprintf("Campaigns whose other seats are not connected either: %s. They send nothing until one of their seats is connected.",
			strings.Join(stranded, ", ")))
	}
	if len(shared) > 0 {
		next := "New people go through your other connected seats; the people " + acc.Name + " already contacted wait for it."
		if !anotherWorking(seats, acc.ID) {
			next = "No other seat is connected, so they send nothing until one is."
		}
		msg = append(msg, fmt.Sprintf("Campaigns that send from the organization's seats: %s. %s", strings.Join(shared, ", "), next))
	}
	if len(named)+len(beside)+len(stranded)+len(shared) == 0 {
		msg = append(msg, "No active or paused campaign sends from it.")
	}
	return append(msg, "Reconnect brings it back."), nil
}

func anotherWorking(seats []storage.LinkedInAccount, except string) bool {
	for _, s := range seats {
		if s.ID != except && s.Status != "disconnected" {
			return true
		}
	}
	return false
}

// signInData is the page that sends the person to the provider's sign-in.
type signInData struct {
	Name    string
	URL     string
	Expires string
}

// sendToSignIn sends the person to the provider's hosted sign-in page. A redirect answering
// the form would be refused by the browser (the pages' Content-Security-Policy allows forms to
// lead only to this origin, redirects included), so a page of ours goes there at once and
// offers the link too.
func (a *App) sendToSignIn(w http.ResponseWriter, r *http.Request, name string, link outreach.ConnectLink) {
	if u, err := url.Parse(link.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		a.fail(w, r, fmt.Errorf("the provider's sign-in link %q is not an http(s) URL", link.URL))
		return
	}
	a.render(w, r, http.StatusOK, "seat_sign_in", view{Title: "Sign in to LinkedIn", Nav: "linkedin-accounts", GoTo: link.URL,
		D: signInData{Name: name, URL: link.URL, Expires: link.ExpiresAt.UTC().Format("15:04 UTC on Mon 2 Jan")}})
}

// failSeat answers a provider's failure to connect or reconnect a seat.
func (a *App) failSeat(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, outreach.ErrProviderUnavailable):
		a.log.Warn("webapp: LinkedIn provider unavailable", "err", err)
		a.renderError(w, r, http.StatusBadGateway, "The LinkedIn provider did not answer. Nothing was changed; try again in a moment.")
	case errors.Is(err, outreach.ErrUnknownAccount):
		a.renderError(w, r, http.StatusConflict, "The LinkedIn provider no longer holds this account, so it cannot be reconnected. "+
			"Connect it again as a new seat with Connect LinkedIn account.")
	default:
		a.fail(w, r, err)
	}
}

// capitalized is s with its first letter upper-case, for an error said as a sentence.
func capitalized(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
