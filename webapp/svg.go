package webapp

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"outreachd/delivery"
	"outreachd/storage"
)

// Small pictures drawn on the server as inline SVG (no script, no image requests). Only numbers
// and fixed words go into them, so building them with fmt is safe; each has a text equivalent
// (aria-label and per-bar <title>) for screen readers.

const (
	healthBarW = 6
	healthGap  = 1
	healthH    = 28
)

// healthSummary totals a destination's last 24 hours.
type healthSummary struct {
	Delivered, Failed int
	SVG               template.HTML
}

// healthOf draws delivered (green) and failed (red) attempts per hour over the 24 hours that end
// at now, oldest on the left, scaled to the busiest hour; an hour without attempts is a grey tick.
func healthOf(hours []delivery.HourHealth, now time.Time) healthSummary {
	end := now.UTC().Truncate(time.Hour)
	start := end.Add(-23 * time.Hour)
	var slots [24]delivery.HourHealth
	var s healthSummary
	peak := 1
	for _, h := range hours {
		i := int(h.Hour.UTC().Sub(start) / time.Hour)
		if i < 0 || i >= 24 {
			continue
		}
		slots[i].Delivered += h.Delivered
		slots[i].Failed += h.Failed
		s.Delivered += h.Delivered
		s.Failed += h.Failed
		peak = max(peak, slots[i].Delivered+slots[i].Failed)
	}
	w := 24*(healthBarW+healthGap) - healthGap
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="health" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="Last 24 hours: %d delivered, %d failed">`,
		w, healthH, w, healthH, s.Delivered, s.Failed)
	for i, h := range slots {
		x := i * (healthBarW + healthGap)
		hourAt := start.Add(time.Duration(i) * time.Hour)
		fmt.Fprintf(&b, `<g><title>%s UTC: %d delivered, %d failed</title>`, hourAt.Format("Jan 2 15:00"), h.Delivered, h.Failed)
		if h.Delivered+h.Failed == 0 {
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="2" fill="#d5dbe1"/>`, x, healthH-2, healthBarW)
		} else {
			total := h.Delivered + h.Failed
			hTotal := max(3, total*healthH/peak)
			hFail := 0
			if h.Failed > 0 {
				hFail = max(2, h.Failed*hTotal/total)
			}
			hOK := hTotal - hFail
			if hOK > 0 {
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#2f9e63"/>`, x, healthH-hOK, healthBarW, hOK)
			}
			if hFail > 0 {
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#d2453b"/>`, x, healthH-hTotal, healthBarW, hFail)
			}
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	s.SVG = template.HTML(b.String())
	return s
}

// activitySeries are the daily counters the campaign chart draws, with their colours.
var activitySeries = []struct {
	Name, Color string
	Get         func(storage.DailyRow) int64
}{
	{"Invites sent", "#1f6f78", func(r storage.DailyRow) int64 { return int64(r.InvitesSent) }},
	{"Connections accepted", "#6aa84f", func(r storage.DailyRow) int64 { return int64(r.ConnectionsAccepted) }},
	{"Messages sent", "#e0a526", func(r storage.DailyRow) int64 { return int64(r.MessagesSent) }},
	{"Replies", "#b4548c", func(r storage.DailyRow) int64 { return int64(r.Replies) }},
}

// Chart geometry, in viewBox units: the plot is chartPlotW wide whatever the number of days, so
// its text keeps one size from 7 to 92 days.
const (
	chartH, chartTop, chartBottom, chartLeft = 160, 10, 22, 30
	chartPlotW                               = 720
	chartLabelW                              = 34 // room one "Nov 30" takes at font-size 9
)

// activityChart draws grouped daily bars of activity, one group per day, with a date under the
// first day, every week or fortnight (as room allows) and the last day, each inside the picture.
func activityChart(days []storage.DailyRow) template.HTML {
	n := len(days)
	groupW := float64(chartPlotW) / float64(max(n, 1))
	barW := groupW * 0.8 / float64(len(activitySeries))
	w := chartLeft + chartPlotW + 4
	var peak int64 = 1
	var totals [4]int64
	for _, d := range days {
		for i, s := range activitySeries {
			v := s.Get(d)
			peak = max(peak, v)
			totals[i] += v
		}
	}
	plotH := chartH - chartTop - chartBottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="Daily activity over %d days: %d invites sent, %d connections accepted, %d messages sent, %d replies">`,
		w, chartH, n, totals[0], totals[1], totals[2], totals[3])
	for _, frac := range []int64{0, 2, 4} {
		v := peak * frac / 4
		y := chartTop + plotH - int(v*int64(plotH)/peak)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#e3e7ec"/><text x="%d" y="%d" font-size="9" fill="#5b6775" text-anchor="end">%d</text>`,
			chartLeft, w, y, y, chartLeft-4, y+3, v)
	}
	every := 7
	if groupW*7 < chartLabelW+6 {
		every = 14
	}
	if groupW >= chartLabelW+6 {
		every = 1
	}
	for i, d := range days {
		x := float64(chartLeft) + float64(i)*groupW + groupW*0.1
		fmt.Fprintf(&b, `<g><title>%s: %d invites, %d accepted, %d messages, %d replies</title>`, d.Day.Format("Jan 2"),
			d.InvitesSent, d.ConnectionsAccepted, d.MessagesSent, d.Replies)
		for j, s := range activitySeries {
			v := s.Get(d)
			bh := int(v * int64(plotH) / peak)
			if v > 0 && bh < 1 {
				bh = 1
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`, x+float64(j)*barW, chartTop+plotH-bh, barW*0.9, bh, s.Color)
		}
		b.WriteString(`</g>`)
		if i == n-1 || (i%every == 0 && float64(n-1-i)*groupW >= chartLabelW+4) {
			// Centred under its day, but never past either edge of the picture.
			cx := min(max(x-groupW*0.1+groupW/2, chartLabelW/2+1), float64(w)-chartLabelW/2-1)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="9" fill="#5b6775" text-anchor="middle">%s</text>`, cx, chartH-6, d.Day.Format("Jan 2"))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
