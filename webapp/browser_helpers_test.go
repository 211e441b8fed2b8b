package webapp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"outreachd/internal/testenv"
)

// startApp starts the built binary on a fresh database with its LinkedIn simulator at real
// speed, and makes an organization with the person ops@acme.test (scenarioPassword).
func startApp(t *testing.T) (*testenv.Server, testenv.Org) {
	t.Helper()
	srv := testenv.StartServer(t, testenv.DatabaseURL(t), "RATE_LIMIT_PER_MINUTE=100000", "SIMULATOR_SPEED=1")
	org := testenv.NewOrg(t, srv)
	testenv.Admin(t, srv.DBURL, "user", "create", "--org", org.ID, "--email", "ops@acme.test", "--password", scenarioPassword)
	return srv, org
}

// browser is one headless Chromium for a whole test, with a fresh profile.
type browser struct {
	t     *testing.T
	ctx   context.Context
	base  string
	shots string
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	ctx := testenv.Browser(t, 1280, 900)
	b := &browser{t: t, ctx: ctx, base: base, shots: filepath.Join(t.TempDir(), "shots")}
	if err := os.MkdirAll(b.shots, 0o755); err != nil {
		t.Fatal(err)
	}
	// The first action starts the browser; it must run on the context without a deadline.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

// run performs actions with a deadline, failing the test with what was being done.
func (b *browser) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v\nat %s\npage: %s", what, err, b.location(), b.mainText())
	}
}

func (b *browser) location() string {
	loc, _ := chromedp.Run(b.ctx, chromedp.Location())
	return loc
}

func (b *browser) mainText() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	return text
}

func (b *browser) open(path string) {
	b.t.Helper()
	b.run("open "+path, chromedp.Navigate(b.base+path), chromedp.WaitReady(chromedp.CSS("body")))
}

// xpath literal of s (the tests' names hold no quote).
func lit(s string) string { return "'" + s + "'" }

// button finds a button by its text, as a person (or a screen reader) names it; within scopes
// the search to the element whose text contains it (an article, a table row).
func button(name string) string {
	return "//button[normalize-space(.)=" + lit(name) + "]"
}

func buttonIn(scope, name string) string {
	return "//*[self::article or self::tr][contains(., " + lit(scope) + ")]//button[normalize-space(.)=" + lit(name) + "]"
}

// field finds the control its <label> names.
func field(label string) string {
	return "//*[@id=//label[normalize-space(.)=" + lit(label) + "]/@for]"
}

// seatBox is the builder's Send from checkbox of the seat named name.
func seatBox(name string) string {
	return "//fieldset[legend='Send from']//label[starts-with(normalize-space(.), " + lit(name) + ")]/input[@type='checkbox']"
}

// signIn signs in as email (with scenarioPassword) on the sign-in page.
func (b *browser) signIn(email string) {
	b.t.Helper()
	b.open("/app/login")
	b.fill("Email", email)
	b.fill("Password", scenarioPassword)
	b.click(button("Sign in"))
	b.waitText("Event Destinations")
}

func (b *browser) click(xpath string) {
	b.t.Helper()
	b.run("click "+xpath, chromedp.Click(xpath, chromedp.NodeVisible))
}

func (b *browser) fill(label, value string) {
	b.t.Helper()
	b.run("fill "+label, chromedp.Clear(field(label)), chromedp.SendKeys(field(label), value))
}

// waitText waits until the page's main content contains want.
func (b *browser) waitText(want string) string {
	b.t.Helper()
	var text string
	testenv.Eventually(b.t, 15*time.Second, func() (bool, string) {
		text = b.mainText()
		return strings.Contains(text, want), fmt.Sprintf("the page at %s never showed %q; it shows:\n%s", b.location(), want, text)
	})
	return text
}

func (b *browser) text() string { return b.mainText() }

// value reads the value of the input sel (a CSS selector).
func (b *browser) value(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("read %s: %v", sel, err)
	}
	return v
}

// count is how many elements match css on the page.
func (b *browser) count(css string) int {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll("+strconv.Quote(css)+").length"))
	if err != nil {
		b.t.Fatalf("count %s: %v", css, err)
	}
	return n
}

// typeIn replaces what the control at xpath holds with text, typed key by key, and lets the
// page's script see the field emptied first (the note's counter and the previews follow it).
func (b *browser) typeIn(xpath, text string) {
	b.t.Helper()
	empty := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		ok, err := chromedp.Evaluate[bool](fmt.Sprintf(`(function () {
			var el = document.evaluate(%q, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
			if (!el) return false;
			el.value = ""; el.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, xpath))(ctx, t)
		if err == nil && !ok {
			err = fmt.Errorf("no element %s", xpath)
		}
		return err
	})
	actions := []chromedp.Action[chromedp.Void]{empty}
	if text != "" {
		actions = append(actions, chromedp.SendKeys(xpath, text))
	}
	b.run("type into "+xpath, actions...)
}

// choose picks value in a select and lets the page's script know, as a person's choice would.
func (b *browser) choose(xpath, value string) {
	b.t.Helper()
	b.run("choose "+value, chromedp.SetValue(xpath, value), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`document.querySelectorAll("select").forEach(function (s) { s.dispatchEvent(new Event("change", {bubbles: true})); }) || true`)(ctx, t)
		return err
	}))
}

// stepField is the control labelled label in the n-th step (from 1) of the campaign builder.
func stepField(n int, label string) string {
	return fmt.Sprintf("(//fieldset[@data-step])[%d]//*[@id=//label[normalize-space(.)=%s]/@for]", n, lit(label))
}

// upload writes content to dir/name, chooses it in a campaign's import form and presses Import.
func (b *browser) upload(dir, name, content string) {
	b.t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.run("choose "+name, chromedp.SetUploadFiles(field("CSV file"), []string{path}))
	b.click(button("Import"))
}

// shot saves a PNG of the whole page under the test's temp dir, and under $APP_SHOTS_DIR too
// when set (for people to look at).
func (b *browser) shot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	for _, dir := range []string{b.shots, os.Getenv("APP_SHOTS_DIR")} {
		if dir == "" {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
}

// receiver is a local webhook endpoint that records what it is sent.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []received
	code int
}

type received struct {
	ID    string // webhook-id
	Event string
	Test  bool
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{code: 200}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var env struct {
			Event string `json:"event"`
			Data  struct {
				Test bool `json:"test"`
			} `json:"data"`
		}
		_ = json.Unmarshal(body, &env)
		rc.mu.Lock()
		rc.got = append(rc.got, received{ID: r.Header.Get("webhook-id"), Event: env.Event, Test: env.Data.Test})
		code := rc.code
		rc.mu.Unlock()
		w.WriteHeader(code)
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) all() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}
