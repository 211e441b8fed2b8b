package webapp

import (
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// Analytics: the organization's totals and outcomes (GET /analytics's figures, with the calls
// booked and the conversions recorded), the daily chart of GET /analytics/daily's figures over
// 7, 30 or 92 days for all campaigns or one, and each campaign's acceptance and reply rates with
// the counts behind them. Days are UTC days on the engine's clock, as the API counts them.

func (a *App) analyticsRoutes(sub *mux.Router) {
	sub.HandleFunc("/analytics", a.page(a.analyticsPage)).Methods(http.MethodGet)
}

// analyticsPeriods are the periods the page offers, in days.
var analyticsPeriods = []int{7, 30, 92}

// rate is a share with the counts behind it; with no denominator it is "—", never 0%.
type rate struct{ Num, Den int64 }

func (r rate) String() string {
	if r.Den == 0 {
		return "—"
	}
	return strconv.FormatFloat(float64(r.Num)*100/float64(r.Den), 'f', 0, 64) + "%"
}

type campaignRates struct {
	C      storage.Campaign
	T      storage.ActivityTotals
	Accept rate // connections accepted / invitations sent
	Reply  rate // replies / messages sent
}

type analyticsData struct {
	Days        int
	Periods     []int
	CampaignID  string
	Campaign    string // the chosen campaign's name; "" for all campaigns
	Campaigns   []storage.Campaign
	Totals      storage.OrgTotals
	Statuses    []statusCount
	Lifetime    storage.ActivityTotals
	Conversions storage.ConversionCounts
	From, To    time.Time
	Period      outreach.ReportStats
	Daily       []storage.DailyRow
	Chart       template.HTML
	Rates       []campaignRates
	All         campaignRates
}

func (a *App) analyticsPage(w http.ResponseWriter, r *http.Request, u User) {
	ctx := r.Context()
	q := r.URL.Query()
	d := analyticsData{Days: 30, Periods: analyticsPeriods, CampaignID: q.Get("campaign")}
	if raw := q.Get("days"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || !slices.Contains(analyticsPeriods, n) {
			a.fail(w, r, outreach.Invalidf("the period must be 7, 30 or 92 days, got %q", truncateText(raw, 20)))
			return
		}
		d.Days = n
	}
	camps, err := a.store.ListCampaigns(ctx, u.OrgID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d.Campaigns = camps
	if d.CampaignID != "" {
		c, err := a.store.GetCampaign(ctx, u.OrgID, d.CampaignID)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		d.Campaign = c.Name
	}
	if d.Totals, err = a.store.OrgAnalytics(ctx, u.OrgID); err != nil {
		a.fail(w, r, err)
		return
	}
	for s, n := range d.Totals.ProspectsByStatus {
		d.Statuses = append(d.Statuses, statusCount{s, n})
	}
	sort.Slice(d.Statuses, func(i, j int) bool { return d.Statuses[i].N > d.Statuses[j].N })
	if d.Conversions, err = a.store.OrgConversions(ctx, u.OrgID); err != nil {
		a.fail(w, r, err)
		return
	}
	d.To = a.domainNow().UTC().Truncate(24 * time.Hour)
	d.From = d.To.AddDate(0, 0, -(d.Days - 1))
	if d.Daily, err = a.store.DailyAnalytics(ctx, storage.DailyQuery{OrgID: u.OrgID, CampaignID: d.CampaignID, From: d.From, To: d.To}); err != nil {
		a.fail(w, r, err)
		return
	}
	for _, row := range d.Daily {
		p := &d.Period
		p.InvitesSent += row.InvitesSent
		p.ConnectionsAccepted += row.ConnectionsAccepted
		p.MessagesSent += row.MessagesSent
		p.Replies += row.Replies
		p.PositiveReplies += row.PositiveReplies
		p.NegativeReplies += row.NegativeReplies
		p.Bookings += row.Bookings
		p.InvitesWithdrawn += row.InvitesWithdrawn
	}
	d.Chart = activityChart(d.Daily)
	totals, err := a.store.CampaignActivityTotals(ctx, u.OrgID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	for _, c := range camps {
		t := totals[c.ID]
		d.Rates = append(d.Rates, ratesOf(c, t))
		d.Lifetime.InvitesSent += t.InvitesSent
		d.Lifetime.ConnectionsAccepted += t.ConnectionsAccepted
		d.Lifetime.MessagesSent += t.MessagesSent
		d.Lifetime.Replies += t.Replies
		d.Lifetime.Bookings += t.Bookings
	}
	d.All = ratesOf(storage.Campaign{Name: "All campaigns"}, d.Lifetime)
	title := "Analytics"
	if d.Campaign != "" {
		title = fmt.Sprintf("Analytics · %s", d.Campaign)
	}
	a.render(w, r, http.StatusOK, "analytics", view{Title: title, Nav: "analytics", D: d})
}

func ratesOf(c storage.Campaign, t storage.ActivityTotals) campaignRates {
	return campaignRates{C: c, T: t, Accept: rate{t.ConnectionsAccepted, t.InvitesSent}, Reply: rate{t.Replies, t.MessagesSent}}
}

// truncateText shortens an echoed value to n runes.
func truncateText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
