package webapp

import (
	"strings"
	"testing"
	"time"

	"outreachd/delivery"
	"outreachd/outreach"
)

func TestDescribeTest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		res  delivery.AttemptView
		ok   bool
		want string
	}{
		{delivery.AttemptView{StatusCode: 204, Duration: 12 * time.Millisecond}, true, "Test lead_accepted delivered: HTTP 204 in 12 ms."},
		{delivery.AttemptView{StatusCode: 500, Error: "HTTP 500", Duration: 40 * time.Millisecond}, false, "Test lead_accepted failed: HTTP 500 in 40 ms."},
		{delivery.AttemptView{StatusCode: 302, Error: "redirects are not followed", Duration: time.Millisecond}, false, "Test lead_accepted failed: HTTP 302 in 1 ms. redirects are not followed"},
		{delivery.AttemptView{Error: "dial tcp: connection refused", Duration: 3 * time.Millisecond}, false, "Test lead_accepted failed after 3 ms: dial tcp: connection refused"},
	}
	for _, tt := range tests {
		got := describeTest(outreach.EventKind("lead_accepted"), tt.res)
		if got.OK != tt.ok || got.Text != tt.want {
			t.Errorf("describeTest(%+v) = %+v, want %v %q", tt.res, got, tt.ok, tt.want)
		}
	}
}

func TestHealthPicture(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 14, 20, 0, 0, time.UTC)
	hours := []delivery.HourHealth{
		{Hour: now.Truncate(time.Hour), Delivered: 8, Failed: 2},
		{Hour: now.Truncate(time.Hour).Add(-5 * time.Hour), Delivered: 3},
		{Hour: now.Truncate(time.Hour).Add(-30 * time.Hour), Delivered: 100}, // outside the 24 hours
	}
	h := healthOf(hours, now)
	svg := string(h.SVG)
	if h.Delivered != 11 || h.Failed != 2 {
		t.Fatalf("totals %d/%d, want 11/2", h.Delivered, h.Failed)
	}
	for _, want := range []string{`aria-label="Last 24 hours: 11 delivered, 2 failed"`, "<title>Nov 25 14:00 UTC: 8 delivered, 2 failed</title>",
		"<title>Nov 25 09:00 UTC: 3 delivered, 0 failed</title>", `fill="#d2453b"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("the picture lacks %s", want)
		}
	}
	if n := strings.Count(svg, "<g>"); n != 24 {
		t.Errorf("%d hour bars, want 24", n)
	}
}
