package webapp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"outreachd/delivery"
	"outreachd/outreach"
)

// A destination's filter and rate limit on its forms (the add form and the settings of its own
// page), and the filter's preview: "matches N of the last 100 events" among the organization's
// recent events. The rules and their words are delivery's, the API's.

// previewEvents is how many of the organization's latest events the preview counts matches in.
const previewEvents = 100

// filterExample is the example the filter fields show.
const filterExample = `{"data.campaign.id": "cmp_…", "data.message.sentiment": {"$in": ["positive", "neutral"]}}`

// limitsForm is the filter and the rate limit as typed in a form: kept when the form is shown
// again with an error, so nothing typed is lost.
type limitsForm struct {
	Filter, RateLimit string
}

func limitsFrom(r *http.Request) limitsForm {
	return limitsForm{Filter: r.PostFormValue("filter"), RateLimit: strings.TrimSpace(r.PostFormValue("rate_limit_per_second"))}
}

// limitsOf is what a stored destination shows in its settings: the filter indented for editing
// (saving compacts it again) and the rate limit.
func limitsOf(d delivery.Destination) limitsForm {
	var f limitsForm
	if d.Filter != nil {
		var b bytes.Buffer
		if json.Indent(&b, d.Filter, "", "  ") == nil {
			f.Filter = b.String()
		} else {
			f.Filter = string(d.Filter)
		}
	}
	if d.RateLimitPerSecond != nil {
		f.RateLimit = strconv.Itoa(*d.RateLimitPerSecond)
	}
	return f
}

// filter is the typed filter as the manager takes it: empty is none (JSON null, which removes
// a stored one).
func (f limitsForm) filter() json.RawMessage {
	if strings.TrimSpace(f.Filter) == "" {
		return json.RawMessage("null")
	}
	return json.RawMessage(f.Filter)
}

// rateLimit is the typed rate limit: nil when the field is empty (no limit).
func (f limitsForm) rateLimit() (*int, error) {
	if f.RateLimit == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(f.RateLimit)
	if err != nil {
		return nil, outreach.InvalidField("rate_limit_per_second", "must be an integer from %d to %d (attempts per second), or empty for no limit; got %q",
			delivery.MinRateLimitPerSecond, delivery.MaxRateLimitPerSecond, f.RateLimit)
	}
	return &n, nil
}

// previewFilter counts how many of the organization's last events a destination with the form's
// events and filter would receive. With script the answer is {ok, text}, shown beside the
// filter; without, a page with the sentence.
func (a *App) previewFilter(w http.ResponseWriter, r *http.Request, u User) {
	out := testOutcome{}
	bodies, err := a.store.RecentOutboxBodies(r.Context(), u.OrgID, previewEvents)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	p, err := delivery.PreviewFilter(splitEvents(r.PostFormValue("events")), limitsFrom(r).filter(), bodies)
	switch {
	case errors.Is(err, outreach.ErrInvalid):
		out.Text = err.Error()
	case err != nil:
		a.fail(w, r, err)
		return
	case p.Of == 0:
		out = testOutcome{OK: true, Text: "No events yet to compare with: the organization has not emitted any recently."}
	default:
		out = testOutcome{OK: true, Text: fmt.Sprintf("Matches %d of the last %d events.", p.Matched, p.Of)}
	}
	if wantsJSON(r) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	back := "/app/destinations"
	if id := r.PostFormValue("id"); outreach.ValidID("dst", id) {
		back += "/" + id
	}
	a.render(w, r, http.StatusOK, "preview", view{Title: "Filter preview", Nav: "destinations", D: previewPage{Result: out, Back: back}})
}

type previewPage struct {
	Result testOutcome
	Back   string
}
