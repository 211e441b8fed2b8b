package webapp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"outreachd/delivery"
	"outreachd/outreach"
)

// A destination's own page: edit, rotate the signing secret, its attempt log (filtered by event
// and outcome, with each response's excerpt), Resend of one delivery and Recover of the failed
// ones since a time; and Send test, answered in place.

// testOutcome is the result of Send test as a sentence.
type testOutcome struct {
	OK   bool   `json:"ok"`
	Text string `json:"text"`
}

func describeTest(kind outreach.EventKind, res delivery.AttemptView) testOutcome {
	ms := res.Duration.Milliseconds()
	switch {
	case res.Error == "" && res.StatusCode/100 == 2:
		return testOutcome{OK: true, Text: fmt.Sprintf("Test %s delivered: HTTP %d in %d ms.", kind, res.StatusCode, ms)}
	case res.StatusCode != 0:
		text := fmt.Sprintf("Test %s failed: HTTP %d in %d ms.", kind, res.StatusCode, ms)
		if res.Error != "" && res.Error != fmt.Sprintf("HTTP %d", res.StatusCode) {
			text += " " + res.Error
		}
		return testOutcome{Text: text}
	}
	return testOutcome{Text: fmt.Sprintf("Test %s failed after %d ms: %s", kind, ms, res.Error)}
}

// wantsJSON reports a request made by the page's script (fetch with Accept: application/json).
func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

func (a *App) testDestination(w http.ResponseWriter, r *http.Request, u User) {
	d, ok := a.destinationOf(w, r, u)
	if !ok {
		return
	}
	kind, res, err := a.deps.Destinations.Test(r.Context(), d, r.PostFormValue("event"))
	var out testOutcome
	switch {
	case errors.Is(err, outreach.ErrInvalid), errors.Is(err, outreach.ErrConflict):
		out = testOutcome{Text: err.Error()}
	case err != nil:
		a.log.Error("webapp: send test", "destination", d.ID, "err", err)
		out = testOutcome{Text: "The test could not be sent: the delivery hub is not available in this process."}
	default:
		out = describeTest(kind, res)
	}
	if wantsJSON(r) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	if r.PostFormValue("from") == "detail" {
		a.showDestination(w, r, u, d, http.StatusOK, detailExtra{tested: &out})
		return
	}
	a.showDestinations(w, r, u, http.StatusOK, destinationsData{testedID: d.ID, tested: &out}, "", "")
}

type detailData struct {
	D         delivery.Destination
	URL       string
	Events    string
	Last      *delivery.AttemptLogEntry
	Health    healthSummary
	Attempts  []delivery.AttemptLogEntry
	Filter    delivery.AttemptFilter
	Kinds     []outreach.EventKind
	Limits    limitsForm // the settings' filter and rate limit: as stored, or as typed when refused
	Example   string     // of a filter
	Prev      string
	Next      string
	NewSecret string
	Test      *testOutcome
	Since     string // the Recover form's default: 24 hours ago, UTC
}

type detailExtra struct {
	flash, errMsg string
	newSecret     string
	tested        *testOutcome
	typed         *limitsForm // the filter and rate limit of a refused save
}

const attemptsPerPage = 50

func (a *App) destinationPage(w http.ResponseWriter, r *http.Request, u User) {
	d, ok := a.destinationOf(w, r, u)
	if !ok {
		return
	}
	a.showDestination(w, r, u, d, http.StatusOK, detailExtra{flash: flashOf(r)})
}

// attemptFilter reads the log's filter from the query; unknown values are refused by name.
func attemptFilter(q url.Values) (delivery.AttemptFilter, error) {
	f := delivery.AttemptFilter{Event: q.Get("event"), Outcome: q.Get("outcome"), Limit: attemptsPerPage}
	switch q.Get("throttled") {
	case "":
	case "true":
		f.Throttled = true
	default:
		return f, outreach.Invalidf("throttled: must be true or empty, got %q", q.Get("throttled"))
	}
	if f.Event != "" {
		if _, ok := outreach.ParseEventKind(f.Event); !ok {
			return f, outreach.Invalidf("event: unknown event kind %q", f.Event)
		}
	}
	if f.Outcome != "" && !slices.Contains([]string{"delivered", "failed"}, f.Outcome) {
		return f, outreach.Invalidf("outcome: must be delivered or failed, got %q", f.Outcome)
	}
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 1000 {
			return f, outreach.Invalidf("page: must be a number from 1 to 1000")
		}
		f.Offset = (n - 1) * attemptsPerPage
	}
	return f, nil
}

func (a *App) showDestination(w http.ResponseWriter, r *http.Request, u User, d delivery.Destination, status int, x detailExtra) {
	ctx := r.Context()
	f, err := attemptFilter(r.URL.Query())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	list, more, err := a.deps.Destinations.FilteredAttempts(ctx, u.OrgID, d.ID, f)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	last, tried, err := a.deps.Destinations.LastAttempt(ctx, d)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	now := a.now()
	health, err := a.deps.Destinations.Health(ctx, u.OrgID, []string{d.ID}, now.Add(-23*time.Hour))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	data := detailData{D: d, URL: delivery.DisplayURL(d), Events: strings.Join(d.Events, ", "), Attempts: list, Filter: f,
		Kinds: outreach.AllEventKinds(), Health: healthOf(health[d.ID], now), NewSecret: x.newSecret, Test: x.tested,
		Since: now.Add(-24 * time.Hour).UTC().Format("2006-01-02T15:04"), Limits: limitsOf(d), Example: filterExample}
	if x.typed != nil {
		data.Limits = *x.typed
	}
	if tried {
		data.Last = &last
	}
	page := f.Offset/attemptsPerPage + 1
	link := func(p int) string {
		q := url.Values{}
		if f.Event != "" {
			q.Set("event", f.Event)
		}
		if f.Outcome != "" {
			q.Set("outcome", f.Outcome)
		}
		if f.Throttled {
			q.Set("throttled", "true")
		}
		q.Set("page", strconv.Itoa(p))
		return "/app/destinations/" + d.ID + "?" + q.Encode()
	}
	if page > 1 {
		data.Prev = link(page - 1)
	}
	if more {
		data.Next = link(page + 1)
	}
	a.render(w, r, status, "destination", view{Title: d.Name, Nav: "destinations", Flash: x.flash, Error: x.errMsg, D: data})
}

func (a *App) updateDestination(w http.ResponseWriter, r *http.Request, u User) {
	d, ok := a.destinationOf(w, r, u)
	if !ok {
		return
	}
	name := r.PostFormValue("name")
	enabled := r.PostFormValue("enabled") == "on"
	typed := limitsFrom(r)
	refused := func(err error) {
		a.showDestination(w, r, u, d, http.StatusBadRequest, detailExtra{errMsg: "Not saved: " + err.Error(), typed: &typed})
	}
	rate, err := typed.rateLimit()
	if err != nil {
		refused(err)
		return
	}
	p := delivery.DestinationPatch{Name: &name, Events: splitEvents(r.PostFormValue("events")), Enabled: &enabled,
		Filter: typed.filter(), SetRateLimit: true, RateLimitPerSecond: rate}
	if p.Events == nil {
		p.Events = []string{}
	}
	if url := strings.TrimSpace(r.PostFormValue("url")); d.URL != "" && (url != "" || d.Kind != outreach.DestinationSlack) {
		// A Slack webhook URL is not shown again, so an empty field keeps it.
		p.URL = &url
	}
	if d.Kind == outreach.DestinationSlack && d.URL == "" {
		ch := r.PostFormValue("slack_channel")
		p.SlackChannel = &ch
	}
	_, _, err = a.deps.Destinations.Update(r.Context(), u.OrgID, d.ID, p)
	if errors.Is(err, outreach.ErrInvalid) {
		refused(err)
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/app/destinations/"+d.ID+"?done=updated", http.StatusSeeOther)
}

// rotateSecret replaces the signing secret with a new generated one (shown once), or removes it.
func (a *App) rotateSecret(w http.ResponseWriter, r *http.Request, u User) {
	d, ok := a.destinationOf(w, r, u)
	if !ok {
		return
	}
	secret := delivery.GenerateSecretValue
	if r.PostFormValue("action") == "remove" {
		secret = ""
	}
	d, generated, err := a.deps.Destinations.Update(r.Context(), u.OrgID, d.ID, delivery.DestinationPatch{Secret: &secret})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	msg := "Signing secret removed: deliveries are sent unsigned."
	if generated != "" {
		msg = "New signing secret made. Deliveries are signed with it from now on."
	}
	a.showDestination(w, r, u, d, http.StatusOK, detailExtra{flash: msg, newSecret: generated})
}

// hubDestinationOf opens Resend and Recover (action): the destination the path names, and the
// delivery hub they go through (503 when it does not run in this process). On failure it has
// answered.
func (a *App) hubDestinationOf(w http.ResponseWriter, r *http.Request, u User, action string) (delivery.Destination, bool) {
	d, ok := a.destinationOf(w, r, u)
	if ok && a.deps.Hub == nil {
		a.renderError(w, r, http.StatusServiceUnavailable, action+" is not available: the delivery hub is not running in this process.")
		return d, false
	}
	return d, ok
}

func (a *App) resendDelivery(w http.ResponseWriter, r *http.Request, u User) {
	d, ok := a.hubDestinationOf(w, r, u, "Resend")
	if !ok {
		return
	}
	id := r.PostFormValue("delivery_id")
	// The delivery must be one of this destination's (the hub checks the organization).
	if _, err := a.deps.Destinations.Delivery(r.Context(), u.OrgID, id); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := a.deps.Hub.Resend(r.Context(), u.OrgID, id); err != nil {
		a.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/app/destinations/"+d.ID+"?done=resent", http.StatusSeeOther)
}

func (a *App) recoverDeliveries(w http.ResponseWriter, r *http.Request, u User) {
	d, ok := a.hubDestinationOf(w, r, u, "Recover")
	if !ok {
		return
	}
	raw := strings.TrimSpace(r.PostFormValue("since"))
	since, err := time.ParseInLocation("2006-01-02T15:04", raw, time.UTC)
	now := a.now()
	if err != nil || !since.Before(now) {
		a.showDestination(w, r, u, d, http.StatusBadRequest, detailExtra{
			errMsg: "Since: give a date and time in the past, like 2026-03-01T09:00 (UTC)."})
		return
	}
	n, err := a.deps.Hub.Recover(r.Context(), u.OrgID, delivery.RecoverRange{From: since, To: now.Add(time.Second), DestinationID: d.ID})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	msg := fmt.Sprintf("%d failed deliveries since %s UTC are queued again, each with a fresh set of attempts.", n, since.Format("2006-01-02 15:04"))
	if n == 1 {
		msg = fmt.Sprintf("1 failed delivery since %s UTC is queued again with a fresh set of attempts.", since.Format("2006-01-02 15:04"))
	}
	a.showDestination(w, r, u, d, http.StatusOK, detailExtra{flash: msg})
}
