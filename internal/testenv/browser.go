package testenv

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

var (
	chromiumOnce sync.Once
	chromiumPath string
	chromiumErr  error
)

// Chromium is the browser the browser tests drive: $CHROMIUM (make test sets it once), else what
// scripts/chromium.sh finds or installs (Debian's chromium, as scripts/db.sh does for PostgreSQL).
func Chromium(t testing.TB) string {
	t.Helper()
	chromiumOnce.Do(func() {
		if p := os.Getenv("CHROMIUM"); p != "" {
			chromiumPath = p
			return
		}
		out, err := exec.Command(filepath.Join(RepoRoot(), "scripts", "chromium.sh")).Output()
		if err != nil {
			chromiumErr = err
			return
		}
		chromiumPath = strings.TrimSpace(string(out))
	})
	if chromiumErr != nil {
		t.Fatalf("no Chromium for the browser tests: scripts/chromium.sh: %v", chromiumErr)
	}
	return chromiumPath
}

// Browser starts a headless Chromium with a fresh profile and the flags a root sandbox in a
// closed network needs, and returns a chromedp context on it; the test's cleanup stops it.
func Browser(t testing.TB, width, height int) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc() // stops the browser process
	})
	return ctx
}
