package api_test

import (
	"strings"
	"testing"

	"outreachd/api"
)

// NewServer fills in the defaults and refuses a configuration it cannot run with, naming the
// setting.
func TestNewServerValidatesConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  api.Config
		want string // "" = accepted
	}{
		{"defaults fill the limits", api.Config{PublicURL: "https://outreach.example.com/"}, ""},
		{"a path under the origin", api.Config{PublicURL: "http://127.0.0.1:8080/outreach"}, ""},
		{"no public URL", api.Config{}, "PublicURL"},
		{"not http", api.Config{PublicURL: "ftp://outreach.example.com"}, "PublicURL"},
		{"no host", api.Config{PublicURL: "https://"}, "PublicURL"},
		{"a bare host", api.Config{PublicURL: "outreach.example.com"}, "PublicURL"},
		{"a query", api.Config{PublicURL: "https://outreach.example.com?x=1"}, "PublicURL"},
		{"negative rate limit", api.Config{PublicURL: "https://o.example", RateLimitPerMinute: -1}, "rate limits"},
		{"negative inbox limit", api.Config{PublicURL: "https://o.example", InboxRateLimitPerMinute: -5}, "rate limits"},
		{"negative intake limit", api.Config{PublicURL: "https://o.example", IntakeRateLimitPerMinute: -5}, "rate limits"},
		{"negative body cap", api.Config{PublicURL: "https://o.example", MaxBodyBytes: -1}, "MaxBodyBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := api.NewServer(nil, api.Deps{}, tt.cfg)
			if tt.want == "" {
				if err != nil || srv == nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one naming %s", err, tt.want)
			}
		})
	}
}
