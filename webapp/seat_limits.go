package webapp

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"outreachd/engine"
)

// A seat's caps, changed on its page through engine.SetSeatLimits (`admin account limits`): each
// field is checked by the engine's own rule (SeatLimitsChange.Validate) so that a refusal is
// said next to its field in the engine's words, and nothing is saved unless every field is good.

// limitField is one cap of the form.
type limitField struct {
	Name    string // the form field
	Label   string
	Value   string // as shown or typed
	Default int
	Why     string
	Error   string
	set     func(c *engine.SeatLimitsChange, n int)
}

// limitSpecs are the caps in the form's order, with why their defaults are what they are
// (docs/linkedin.md, "Limits").
var limitSpecs = []limitField{
	{Name: "invites_per_day", Label: "Invitations per day",
		Why: "Tools default to 15 to 25 a day; accounts with few connections have invitations silently dropped well below the 80 to 100 a paid account is said to manage.",
		set: func(c *engine.SeatLimitsChange, n int) { c.InvitesPerDay = &n }},
	{Name: "invites_per_week", Label: "Invitations per week",
		Why: "The weekly count is the one LinkedIn restricts on: about 200 a week is cited for paid accounts and 150 for free ones; tools keep to about 100.",
		set: func(c *engine.SeatLimitsChange, n int) { c.InvitesPerWeek = &n }},
	{Name: "messages_per_day", Label: "Messages per day",
		Why: "Sequence messages and replies together. Tools allow 20 to 100; messages to connections are watched less than invitations.",
		set: func(c *engine.SeatLimitsChange, n int) { c.MessagesPerDay = &n }},
	{Name: "profile_views_per_day", Label: "Profile views per day",
		Why: "Every look-up before an invitation, and every enrichment through the seat, is a profile view; 80 to 100 a day is the range cited.",
		set: func(c *engine.SeatLimitsChange, n int) { c.ProfileViewsPerDay = &n }},
	{Name: "max_pending", Label: "Max pending invitations",
		Why: "No new invitation while this many wait for an answer. Tools stay under 500 (about 700 is the reported ceiling): too many outstanding invitations can block an account for up to a month.",
		set: func(c *engine.SeatLimitsChange, n int) { c.MaxPending = &n }},
}

// limitFieldsOf is the form filled with a seat's caps.
func limitFieldsOf(l engine.SeatLimits) []limitField {
	d := engine.DefaultSeatLimits()
	current := []int{l.InvitesPerDay, l.InvitesPerWeek, l.MessagesPerDay, l.ProfileViewsPerDay, l.MaxPending}
	defaults := []int{d.InvitesPerDay, d.InvitesPerWeek, d.MessagesPerDay, d.ProfileViewsPerDay, d.MaxPending}
	out := make([]limitField, len(limitSpecs))
	for i, f := range limitSpecs {
		f.Value, f.Default = strconv.Itoa(current[i]), defaults[i]
		out[i] = f
	}
	return out
}

// readLimits reads the posted form into a change, each field checked on its own by the
// engine's rule; ok is false when any was refused (its Error says why). An empty field takes
// the default.
func readLimits(form url.Values, current engine.SeatLimits) (fields []limitField, c engine.SeatLimitsChange, ok bool) {
	fields, ok = limitFieldsOf(current), true
	for i := range fields {
		f := &fields[i]
		f.Value = strings.TrimSpace(form.Get(f.Name))
		n := f.Default
		if f.Value != "" {
			var err error
			if n, err = strconv.Atoi(f.Value); err != nil {
				f.Error, ok = f.Label+" must be a whole number.", false
				continue
			}
		}
		var one engine.SeatLimitsChange
		f.set(&one, n)
		if err := one.Validate(); err != nil {
			f.Error, ok = capitalized(err.Error())+".", false
			continue
		}
		f.set(&c, n)
	}
	return fields, c, ok
}

func (a *App) setSeatLimits(w http.ResponseWriter, r *http.Request, u User) {
	now := a.engineNow(r.Context())
	s, ok := a.seatOf(w, r, u, now)
	if !ok {
		return
	}
	fields, c, ok := readLimits(r.PostForm, s.Limits)
	if !ok {
		a.showSeat(w, r, u, http.StatusBadRequest, fields)
		return
	}
	if _, err := engine.SetSeatLimits(r.Context(), a.store.Pool(), u.OrgID, s.AccountID, c, now); err != nil {
		a.fail(w, r, err)
		return
	}
	a.log.Info("webapp: seat limits changed", "account", s.AccountID, "user", u.ID)
	http.Redirect(w, r, seatDone("limits", s.AccountID), http.StatusSeeOther)
}

// seatDone is the list with the outcome of an action on a seat said at its top.
func seatDone(done, accountID string) string {
	return "/app/linkedin-accounts?" + url.Values{"done": {done}, "seat": {accountID}}.Encode() + "#" + accountID
}
