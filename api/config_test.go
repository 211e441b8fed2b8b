package api_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"

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
		{"negative upload cap", api.Config{PublicURL: "https://o.example", MaxUploadBytes: -1}, "MaxUploadBytes"},
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

// TestBodyCaps: a file upload (multipart/form-data outside /api/, the application's Import
// leads) may carry up to MaxUploadBytes; every other body MaxBodyBytes.
func TestBodyCaps(t *testing.T) {
	t.Parallel()
	read := func(_, root *mux.Router, _ api.Helpers) {
		count := func(w http.ResponseWriter, r *http.Request) {
			n, err := io.Copy(io.Discard, r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
				return
			}
			fmt.Fprint(w, n)
		}
		root.HandleFunc("/app/upload", count)
		root.HandleFunc("/api/upload", count)
	}
	srv, err := api.NewServer(nil, api.Deps{Extra: []func(v1, root *mux.Router, h api.Helpers){read}},
		api.Config{PublicURL: "https://o.example", MaxBodyBytes: 1000, MaxUploadBytes: 5000})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.Handler()
	for _, tc := range []struct {
		name, path, contentType string
		size, status            int
	}{
		{"an upload under its cap", "/app/upload", "multipart/form-data; boundary=x", 4000, 200},
		{"an upload over its cap", "/app/upload", "multipart/form-data; boundary=x", 6000, 413},
		{"JSON over the body cap", "/app/upload", "application/json", 4000, 413},
		{"a form over the body cap", "/app/upload", "application/x-www-form-urlencoded", 1200, 413},
		{"a multipart body to the API keeps the body cap", "/api/upload", "multipart/form-data; boundary=x", 1200, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, tc.path, bytes.NewReader(make([]byte, tc.size)))
			req.Header.Set("Content-Type", tc.contentType)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
		})
	}
}
