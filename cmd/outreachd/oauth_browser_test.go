package main_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"outreachd/internal/testenv"
)

// screenshotDir keeps screenshots where a person can look at them: $APP_SHOTS_DIR when
// set, else the test's temporary folder.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("APP_SHOTS_DIR"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// TestOAuthConsentInBrowser is the consent round trip in headless Chromium: the person signs in
// on the way, clicks Allow (by its accessible name), the code reaches the client's local redirect
// receiver — which proves the consent page's Content-Security-Policy lets the form's redirect
// through — and is exchanged with the PKCE verifier; then the person revokes the assistant on the
// Connected assistants page.
func TestOAuthConsentInBrowser(t *testing.T) {
	t.Parallel()
	rt := newRoundTrip(t)
	shots := screenshotDir(t)
	ctx := testenv.Browser(t, 1100, 900)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

	allow, deny := `//button[normalize-space()="Allow"]`, `//button[normalize-space()="Deny"]`
	err := chromedp.Do(ctx,
		chromedp.Navigate(rt.authorizeURL()),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), rt.email),
		chromedp.SendKeys(chromedp.ID("password"), rt.password),
		chromedp.Click(`//button[normalize-space()="Sign in"]`),
		chromedp.WaitVisible(allow),
		chromedp.WaitVisible(deny),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	consent, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(allow)); err != nil {
		t.Fatalf("browser: %v", err)
	}
	writeShot(t, shots, "oauth-consent.png", consent)
	var got url.Values
	testenv.EventuallyTrue(t, 20*time.Second, "the redirect to the assistant", func() bool {
		got = rt.received()
		return got != nil
	})
	if got.Get("code") == "" || got.Get("state") != "xyz" || got.Get("iss") != rt.srv.URL {
		t.Fatalf("the redirect receiver got %v", got)
	}
	tok := postForm(t, rt.srv.URL+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {got.Get("code")},
		"redirect_uri": {rt.redirect}, "client_id": {rt.clientID}, "code_verifier": {rt.verifier}})
	rt.verify(tok)

	err = chromedp.Do(ctx,
		chromedp.Navigate(rt.srv.URL+"/app/assistants"),
		chromedp.WaitVisible(`//td[normalize-space()="Round Trip Assistant"]`),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	assistants, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(`//button[normalize-space()="Revoke"]`),
		chromedp.WaitVisible(`//*[@role="status" and contains(., "disconnected")]`),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	writeShot(t, shots, "oauth-assistants.png", assistants)
	if _, err := rt.verifierSrv.VerifyAccessToken(context.Background(), tok["access_token"].(string)); err == nil {
		t.Fatal("token works after the assistant was revoked in the browser")
	}
}

func writeShot(t *testing.T, dir, name string, png []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
