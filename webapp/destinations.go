package webapp

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"outreachd/delivery"
	"outreachd/outreach"
)

// The Event Destinations page: the list with each destination's last attempt and 24-hour
// health, the add form, Send test and Delete. Every rule (ten at most, the SSRF guard, the
// Slack forms, event names) is delivery.Destinations', the same the API and the CLI apply.

func (a *App) destinationRoutes(sub *mux.Router) {
	sub.HandleFunc("/destinations", a.page(a.destinationsPage)).Methods(http.MethodGet)
	sub.HandleFunc("/destinations", a.page(a.addDestination)).Methods(http.MethodPost)
	sub.HandleFunc("/destinations/preview", a.page(a.previewFilter)).Methods(http.MethodPost)
	sub.HandleFunc("/destinations/{id}", a.page(a.destinationPage)).Methods(http.MethodGet)
	sub.HandleFunc("/destinations/{id}", a.page(a.updateDestination)).Methods(http.MethodPost)
	sub.HandleFunc("/destinations/{id}/delete", a.page(a.deleteDestination)).Methods(http.MethodPost)
	sub.HandleFunc("/destinations/{id}/test", a.page(a.testDestination)).Methods(http.MethodPost)
	sub.HandleFunc("/destinations/{id}/secret", a.page(a.rotateSecret)).Methods(http.MethodPost)
	sub.HandleFunc("/destinations/{id}/resend", a.page(a.resendDelivery)).Methods(http.MethodPost)
	sub.HandleFunc("/destinations/{id}/recover", a.page(a.recoverDeliveries)).Methods(http.MethodPost)
}

// destRow is one destination as the list shows it.
type destRow struct {
	D      delivery.Destination
	URL    string
	Events string
	Last   *delivery.AttemptLogEntry
	Health healthSummary
	Test   *testOutcome // the result of a Send test made without script, shown in place
}

// destForm is the add form's input, kept when it is shown again with an error.
type destForm struct {
	Kind, URL, Name, Events, SlackChannel string
	Limits                                limitsForm
}

type destinationsData struct {
	Rows      []destRow
	Form      destForm
	Full      bool
	Max       int
	Kinds     []outreach.EventKind
	Example   string // of a filter
	NewSecret string // a generated signing secret, shown once
	NewName   string
	// tested is a Send test made without script: its result is shown in its row.
	testedID string
	tested   *testOutcome
}

// Limits is the add form's filter and rate limit, as the form's "limitsfields" reads them.
func (d destinationsData) Limits() limitsForm { return d.Form.Limits }

// flashes are the messages a redirect after a change may ask for (?done=...): fixed texts,
// so nothing a visitor types is ever echoed from a URL.
var flashes = map[string]string{
	"added":      "Destination added.",
	"updated":    "Destination saved.",
	"deleted":    "Destination deleted.",
	"resent":     "Resend queued: a new attempt is made now; reload to see it in the log.",
	"revoked":    "Key revoked. Requests with it are refused from now on.",
	"dismissed":  "Dismissed. The draft will not be sent.",
	"status":     "Campaign status changed.",
	"created":    "Draft saved. Import its leads below, then launch it when ready: nothing is sent before.",
	"saved":      "Changes saved.",
	"duplicated": "This is a copy, saved as a draft: its sequence, schedule, filters and seat, without leads. Rename it and change what you need.",
	"intake":     "The intake URL was revoked; posts to it are refused from now on.",
}

func flashOf(r *http.Request) string { return flashes[r.URL.Query().Get("done")] }

func (a *App) loadDestinations(r *http.Request, orgID string) ([]destRow, error) {
	ctx := r.Context()
	list, last, err := a.deps.Destinations.List(ctx, orgID)
	if err != nil {
		return nil, err
	}
	now := a.now()
	health, err := a.deps.Destinations.Health(ctx, orgID, delivery.IDs(list), now.Add(-23*time.Hour))
	if err != nil {
		return nil, err
	}
	rows := make([]destRow, len(list))
	for i, d := range list {
		rows[i] = destRow{D: d, URL: delivery.DisplayURL(d), Events: strings.Join(d.Events, ", "), Health: healthOf(health[d.ID], now)}
		if l, ok := last[d.ID]; ok {
			rows[i].Last = &l
		}
	}
	return rows, nil
}

func (a *App) showDestinations(w http.ResponseWriter, r *http.Request, u User, status int, data destinationsData, flash, errMsg string) {
	rows, err := a.loadDestinations(r, u.OrgID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	for i := range rows {
		if rows[i].D.ID == data.testedID {
			rows[i].Test = data.tested
		}
	}
	data.Rows = rows
	data.Full = len(rows) >= delivery.MaxDestinationsPerOrg
	data.Max = delivery.MaxDestinationsPerOrg
	data.Kinds = outreach.AllEventKinds()
	data.Example = filterExample
	if data.Form.Events == "" {
		data.Form.Events = string(outreach.EventsAll)
	}
	a.render(w, r, status, "destinations", view{Title: "Event Destinations", Nav: "destinations", Flash: flash, Error: errMsg, D: data})
}

func (a *App) destinationsPage(w http.ResponseWriter, r *http.Request, u User) {
	a.showDestinations(w, r, u, http.StatusOK, destinationsData{}, flashOf(r), "")
}

// splitEvents reads the Events field (delivery.SplitEvents): nil when it names none.
func splitEvents(s string) []string {
	if f := delivery.SplitEvents(s); len(f) > 0 {
		return f
	}
	return nil
}

func (a *App) addDestination(w http.ResponseWriter, r *http.Request, u User) {
	f := destForm{Kind: strings.TrimSpace(r.PostFormValue("kind")), URL: strings.TrimSpace(r.PostFormValue("url")),
		Name: r.PostFormValue("name"), Events: r.PostFormValue("events"), SlackChannel: r.PostFormValue("slack_channel"),
		Limits: limitsFrom(r)}
	refused := func(err error) {
		a.showDestinations(w, r, u, http.StatusBadRequest, destinationsData{Form: f}, "", "Not added: "+err.Error())
	}
	rate, err := f.Limits.rateLimit()
	if err != nil {
		refused(err)
		return
	}
	events := splitEvents(f.Events)
	if events == nil {
		events = []string{string(outreach.EventsAll)}
	}
	kind := f.Kind
	token := strings.TrimSpace(r.PostFormValue("slack_token"))
	if kind == "" || kind == "auto" {
		kind = outreach.DestinationHTTPS
		if token != "" || strings.HasPrefix(f.URL, "https://hooks.slack.com/") {
			kind = outreach.DestinationSlack
		}
	}
	d, generated, err := a.deps.Destinations.Create(r.Context(), u.OrgID, delivery.DestinationSpec{Name: f.Name, Kind: kind,
		URL: f.URL, Events: events, Filter: f.Limits.filter(), RateLimitPerSecond: rate, Secret: strings.TrimSpace(r.PostFormValue("secret")),
		SlackBotToken: token, SlackChannel: f.SlackChannel})
	if errors.Is(err, outreach.ErrInvalid) {
		refused(err)
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if generated == "" {
		http.Redirect(w, r, "/app/destinations?done=added", http.StatusSeeOther)
		return
	}
	a.showDestinations(w, r, u, http.StatusOK, destinationsData{NewSecret: generated, NewName: d.Name}, flashes["added"], "")
}

func (a *App) destinationOf(w http.ResponseWriter, r *http.Request, u User) (delivery.Destination, bool) {
	id := mux.Vars(r)["id"]
	if !outreach.ValidID("dst", id) {
		a.fail(w, r, outreach.NotFound("destination %s", id))
		return delivery.Destination{}, false
	}
	d, err := a.deps.Destinations.Get(r.Context(), u.OrgID, id)
	if err != nil {
		a.fail(w, r, err)
		return delivery.Destination{}, false
	}
	return d, true
}

func (a *App) deleteDestination(w http.ResponseWriter, r *http.Request, u User) {
	d, ok := a.destinationOf(w, r, u)
	if !ok {
		return
	}
	if err := a.deps.Destinations.Delete(r.Context(), u.OrgID, d.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/app/destinations?done=deleted", http.StatusSeeOther)
}
