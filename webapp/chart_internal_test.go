package webapp

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"outreachd/storage"
)

// TestChartLabelsFit: every date under the daily chart lies wholly inside the picture (the last
// one read "Nov 3" for Nov 30, cut at the right edge), none overlaps the next, and the last day
// is always labelled.
func TestChartLabelsFit(t *testing.T) {
	t.Parallel()
	viewBox := regexp.MustCompile(`viewBox="0 0 (\d+) \d+"`)
	label := regexp.MustCompile(`<text x="([0-9.]+)" y="\d+" font-size="9" fill="#5b6775" text-anchor="middle">([A-Z][a-z]{2} \d+)</text>`)
	for _, n := range []int{1, 7, 30, 92} {
		last := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
		days := make([]storage.DailyRow, n)
		for i := range days {
			days[i].Day = last.AddDate(0, 0, i-n+1)
			days[i].InvitesSent = i % 5
		}
		svg := string(activityChart(days))
		width, _ := strconv.ParseFloat(viewBox.FindStringSubmatch(svg)[1], 64)
		labels := label.FindAllStringSubmatch(svg, -1)
		if len(labels) == 0 || labels[len(labels)-1][2] != "Nov 30" {
			t.Fatalf("%d days: the last day is not labelled in full: %v", n, labels)
		}
		prevEnd := -1.0
		for _, l := range labels {
			x, _ := strconv.ParseFloat(l[1], 64)
			half := float64(len(l[2])) * 5.4 / 2 // a generous width per character at font-size 9
			if x-half < 0 || x+half > width {
				t.Errorf("%d days: %q at %.1f runs outside the picture (0–%.0f)", n, l[2], x, width)
			}
			if x-half < prevEnd {
				t.Errorf("%d days: %q overlaps the label before it", n, l[2])
			}
			prevEnd = x + half
		}
		if got := strings.Count(svg, "<g><title>"); got != n {
			t.Errorf("%d days drawn as %d", n, got)
		}
	}
}

// TestKindLabel: a destination on plain http:// is not badged https.
func TestKindLabel(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ kind, url, want string }{
		{"https", "https://crm.example.com/hook", "https"},
		{"https", "http://127.0.0.1:9000/hook", "http, unencrypted"},
		{"https", "HTTP://crm.example.com/hook", "http, unencrypted"},
		{"slack", "https://hooks.slack.com/services/T/B/x", "slack"},
		{"slack", "", "slack"},
	} {
		if got := kindLabel(c.kind, c.url); got != c.want {
			t.Errorf("kindLabel(%q, %q) = %q, want %q", c.kind, c.url, got, c.want)
		}
	}
}
