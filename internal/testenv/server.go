package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Binary builds cmd/outreachd once per test process and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "outreachd-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "outreachd")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/outreachd")
		cmd.Dir = RepoRoot()
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// FreeAddr returns a loopback address with a port that was free a moment ago.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Server is a running `outreachd serve` process.
type Server struct {
	URL   string // http://127.0.0.1:port
	DBURL string
	Env   []string
	Args  []string // after "serve", e.g. --demo
	cmd   *exec.Cmd
	logs  *bytes.Buffer
	mu    sync.Mutex
	t     testing.TB
}

// StartServer runs `outreachd serve` on dbURL with extra environment (KEY=VALUE) and waits
// until /readyz answers. The process is killed when the test ends; its log is printed on failure.
// Its seats act as soon as the schedule and their caps allow (LINKEDIN_ACTION_SPACING=0) unless
// env says otherwise.
func StartServer(t testing.TB, dbURL string, env ...string) *Server {
	t.Helper()
	return StartServerArgs(t, dbURL, nil, env...)
}

// StartServerArgs is StartServer with arguments after `serve` (such as --demo).
func StartServerArgs(t testing.TB, dbURL string, args []string, env ...string) *Server {
	t.Helper()
	addr := FreeAddr(t)
	s := &Server{URL: "http://" + addr, DBURL: dbURL, Args: args, t: t, logs: &bytes.Buffer{}}
	s.Env = append([]string{"DATABASE_URL=" + dbURL, "HTTP_ADDR=" + addr, "ALLOW_PRIVATE_DESTINATIONS=true", "LOG_LEVEL=warn",
		"LINKEDIN_ACTION_SPACING=0"}, env...)
	s.start()
	t.Cleanup(func() {
		s.Kill()
		if t.Failed() {
			t.Logf("server log:\n%s", s.Logs())
		}
	})
	return s
}

func (s *Server) start() {
	s.t.Helper()
	cmd := exec.Command(Binary(s.t), append([]string{"serve"}, s.Args...)...)
	cmd.Env = append(os.Environ(), s.Env...)
	w := &lockedWriter{mu: &s.mu, buf: s.logs}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.cmd = cmd
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("server did not become ready; log:\n%s", s.Logs())
}

// Kill stops the process with SIGKILL (no graceful shutdown) and waits for it.
func (s *Server) Kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// Stop sends SIGTERM (a graceful shutdown) and waits up to grace for the process to exit; it
// kills it after that and reports false. The exit status is not checked.
func (s *Server) Stop(grace time.Duration) bool {
	s.t.Helper()
	if s.cmd == nil || s.cmd.Process == nil {
		return true
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	clean := true
	select {
	case <-done:
	case <-time.After(grace):
		clean = false
		_ = s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
	return clean
}

// Start starts the process again after Stop or Kill, on the same address and database.
func (s *Server) Start() {
	s.t.Helper()
	if s.cmd == nil {
		s.start()
	}
}

// Restart starts the process again on the same address and database.
func (s *Server) Restart() {
	s.Kill()
	s.start()
}

// Logs returns what the process printed so far.
func (s *Server) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// Admin runs `outreachd admin args...` against dbURL and decodes its one JSON object. It fails
// the test unless the command exits 0.
func Admin(t testing.TB, dbURL string, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := AdminRaw(t, dbURL, args...)
	if code != 0 {
		t.Fatalf("admin %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("admin %s: stdout is not one JSON object: %q", strings.Join(args, " "), out)
	}
	return m
}

// AdminRaw runs the admin CLI and returns stdout, stderr and the exit code.
func AdminRaw(t testing.TB, dbURL string, args ...string) (string, string, int) {
	t.Helper()
	return AdminRawEnv(t, dbURL, nil, args...)
}

// AdminRawEnv is AdminRaw with extra environment (KEY=VALUE) that overrides its defaults, e.g.
// ALLOW_PRIVATE_DESTINATIONS=false.
func AdminRawEnv(t testing.TB, dbURL string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(Binary(t), append([]string{"admin"}, args...)...)
	cmd.Env = append(append(os.Environ(), "DATABASE_URL="+dbURL, "ALLOW_PRIVATE_DESTINATIONS=true"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}

// Client calls the API with one key.
type Client struct {
	Base string
	Key  string
	HTTP *http.Client
}

// Response is a decoded answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// Do sends a request with a JSON body (nil for none; a []byte or string is sent as is).
func (c Client) Do(t testing.TB, method, path string, body any, headers ...string) Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
	_ = json.Unmarshal(raw, &r.JSON)
	return r
}

// Org is an organization with a read_write and a read key, made through the admin CLI.
type Org struct {
	ID       string
	WriteKey string
	ReadKey  string
	Write    Client
	Read     Client
}

// NewOrg creates an organization (extra flags go to org create) and two keys for it.
func NewOrg(t testing.TB, srv *Server, orgFlags ...string) Org {
	t.Helper()
	o := Admin(t, srv.DBURL, append([]string{"org", "create", "--name", "Org " + t.Name()}, orgFlags...)...)
	id := o["org_id"].(string)
	w := Admin(t, srv.DBURL, "key", "create", "--org", id, "--scope", "read_write")["key"].(string)
	r := Admin(t, srv.DBURL, "key", "create", "--org", id, "--scope", "read")["key"].(string)
	return Org{ID: id, WriteKey: w, ReadKey: r,
		Write: Client{Base: srv.URL, Key: w}, Read: Client{Base: srv.URL, Key: r}}
}
