package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"outreachd/internal/testenv"
)

// TestLastAttemptExplainsTheFailure: last_attempt carries a short, sanitized excerpt of what the
// endpoint answered (or of the network error), so a failure is explained without reading the
// attempt log; the log keeps the longer excerpt. A body with NUL, control characters and bytes
// that are not UTF-8 is recorded, not lost.
func TestLastAttemptExplainsTheFailure(t *testing.T) {
	t.Parallel()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t))
	org := testenv.NewOrg(t, srv)
	body := "upstream \x00failed:\r\n\tdatabase \x1b[31mdown\xff\xfe " + strings.Repeat("détail ", 80)
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(500)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(bad.Close)
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close() // nothing listens there any more: a network error

	check := func(t *testing.T, url, wantStart string, wantCode float64) {
		d := createDest(t, org.Write, map[string]any{"url": url, "events": "all"})
		id := d["id"].(string)
		r := org.Write.Do(t, "POST", "/api/v1/destinations/"+id+"/test", map[string]any{"event": "reply_received"})
		wantStatus(t, r, 200)
		g := org.Read.Do(t, "GET", "/api/v1/destinations/"+id, nil)
		wantStatus(t, g, 200)
		la, _ := data(t, g)["last_attempt"].(map[string]any)
		if la == nil || la["status_code"] != wantCode {
			t.Fatalf("last_attempt = %v", la)
		}
		ex, ok := la["response_excerpt"].(string)
		if !ok {
			t.Fatalf("last_attempt has no response_excerpt: %s", g.Body)
		}
		if len(ex) > 256 || !utf8.ValidString(ex) || strings.IndexFunc(ex, unicode.IsControl) >= 0 {
			t.Fatalf("excerpt is not short, valid, printable text: %q (%d bytes)", ex, len(ex))
		}
		if !strings.HasPrefix(ex, wantStart) {
			t.Fatalf("excerpt %q does not start with %q", ex, wantStart)
		}
		// The attempt log keeps more than the summary.
		a := org.Read.Do(t, "GET", "/api/v1/destinations/"+id+"/attempts", nil)
		wantStatus(t, a, 200)
		if wantCode == 500 {
			full, _ := list(a.JSON["data"])[0]["response_excerpt"].(string)
			if len(full) <= 256 || !strings.Contains(full, "down") {
				t.Fatalf("attempt log excerpt = %q", full)
			}
		}
	}
	t.Run("HTTP 500 with a messy body", func(t *testing.T) {
		check(t, bad.URL+"/hook", "upstream failed: database [31mdown", 500)
	})
	t.Run("network error", func(t *testing.T) {
		check(t, goneURL+"/hook", "", 0)
	})
}
