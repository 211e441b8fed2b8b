package main

import (
	"fmt"
	"html"
	"strings"
)

// soakSVG draws the soak's minutes as four stacked line charts (delivered rate, latency p99, the
// hub's table sizes, server RSS) in one hand-written SVG: no plotting dependency for four
// polylines.
func soakSVG(ms []soakMinute) string {
	pick := func(f func(soakMinute) float64) []float64 {
		out := make([]float64, len(ms))
		for i, m := range ms {
			out[i] = f(m)
		}
		return out
	}
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd"}
	tables := panel{title: "hub table sizes (heap + indexes + TOAST)", unit: "MB"}
	for i, t := range soakTables {
		tables.series = append(tables.series, series{t, colors[i], pick(func(m soakMinute) float64 { return m.tableMB[t] })})
	}
	panels := []panel{
		{"deliveries received with a 2xx per second (all destinations)", "/s", []series{{"delivered", colors[0], pick(func(m soakMinute) float64 { return m.delivered })}}},
		{"latency, event commit to receipt (healthy destinations)", "ms", []series{
			{"p50", colors[2], pick(func(m soakMinute) float64 { return float64(m.p50.Microseconds()) / 1000 })},
			{"p99", colors[1], pick(func(m soakMinute) float64 { return float64(m.p99.Microseconds()) / 1000 })}}},
		tables,
		{"outreachd resident memory (RSS)", "MB", []series{{"RSS", colors[3], pick(func(m soakMinute) float64 { return m.rssMB })}}},
	}
	height := top + len(panels)*(panelH+gap) + 20
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="13" font-weight="bold">outreachd soak run, one point per minute (make soak)</text>`+"\n", left)
	plotW := float64(width - left - right)
	for pi, p := range panels {
		drawPanel(&b, p, ms, float64(top+pi*(panelH+gap)+15), plotW)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#666">minute of the run</text>`+"\n", left+int(plotW)/2-40, height-6)
	b.WriteString("</svg>\n")
	return b.String()
}

// Chart geometry of soakSVG (pixels).
const width, panelH, left, right, top, gap = 760, 170, 70, 170, 30, 40

type series struct {
	name   string
	color  string
	values []float64
}

type panel struct {
	title, unit string
	series      []series
}

// drawPanel draws one chart: its frame, three horizontal ticks, the minutes on the x axis and
// one polyline per series, with a legend on the right.
func drawPanel(b *strings.Builder, p panel, ms []soakMinute, y0, plotW float64) {
	maxV := 0.0
	for _, s := range p.series {
		for _, v := range s.values {
			maxV = max(maxV, v)
		}
	}
	if maxV == 0 {
		maxV = 1
	}
	maxV *= 1.1
	fmt.Fprintf(b, `<text x="%d" y="%.0f" font-weight="bold">%s</text>`+"\n", left, y0-4, html.EscapeString(p.title))
	fmt.Fprintf(b, `<rect x="%d" y="%.0f" width="%.0f" height="%d" fill="none" stroke="#999"/>`+"\n", left, y0, plotW, panelH)
	for _, frac := range []float64{0, 0.5, 1} {
		y := y0 + float64(panelH)*(1-frac)
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#eee"/>`+"\n", left, y, float64(left)+plotW, y)
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%s %s</text>`+"\n", left-4, y+4, formatTick(maxV*frac), p.unit)
	}
	n := len(ms)
	xOf := func(i int) float64 {
		if n <= 1 {
			return float64(left) + plotW/2
		}
		return float64(left) + plotW*float64(i)/float64(n-1)
	}
	for i := range ms {
		if n <= 12 || i%max(1, n/10) == 0 || i == n-1 {
			fmt.Fprintf(b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#666">%d</text>`+"\n", xOf(i), y0+float64(panelH)+13, ms[i].minute)
		}
	}
	for si, s := range p.series {
		var pts []string
		for i, v := range s.values {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(i), y0+float64(panelH)*(1-v/maxV)))
		}
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", s.color, strings.Join(pts, " "))
		ly := y0 + 12 + float64(si)*15
		fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2"/>`+"\n", float64(left)+plotW+10, ly-4, float64(left)+plotW+28, ly-4, s.color)
		fmt.Fprintf(b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", float64(left)+plotW+32, ly, html.EscapeString(s.name))
	}
}

func formatTick(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}
