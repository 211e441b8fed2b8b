package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// moduleRoot walks up from the working directory to the folder holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// buildBinary runs `go build -o bin/outreachd ./cmd/outreachd` (a no-op when make build just did).
func buildBinary(root string) (string, error) {
	bin := filepath.Join(root, "bin", "outreachd")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/outreachd")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// database is a fresh database on the server of DATABASE_URL, dropped by drop.
type database struct {
	base, name, url string
}

func createDatabase(ctx context.Context, base string) (*database, error) {
	var rnd [5]byte
	_, _ = rand.Read(rnd[:])
	name := "outreachd_load_" + hex.EncodeToString(rnd[:])
	c, err := pgx.Connect(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", base, err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, `CREATE DATABASE `+name); err != nil {
		return nil, fmt.Errorf("create database: %w", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	u.Path = "/" + name
	return &database{base: base, name: name, url: u.String()}, nil
}

func (d *database) drop() {
	c, err := pgx.Connect(context.Background(), d.base)
	if err != nil {
		return
	}
	defer c.Close(context.Background())
	_, _ = c.Exec(context.Background(), `DROP DATABASE IF EXISTS `+d.name+` WITH (FORCE)`)
}

// server is `outreachd serve` running as a child process.
type server struct {
	cmd  *exec.Cmd
	url  string
	log  string
	done chan struct{}
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startServer runs bin serve on dbURL with env added to ours, its output in a log file, and
// waits for /readyz.
func startServer(bin, dbURL string, env ...string) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	logf, err := os.CreateTemp("", "loaddriver-serve-*.log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), append([]string{"DATABASE_URL=" + dbURL, "HTTP_ADDR=" + addr,
		"ALLOW_PRIVATE_DESTINATIONS=true", "LOG_LEVEL=warn"}, env...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	s := &server{cmd: cmd, url: "http://" + addr, log: logf.Name(), done: make(chan struct{})}
	go func() { _ = cmd.Wait(); logf.Close(); close(s.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return nil, fmt.Errorf("outreachd serve exited at start; log in %s", s.log)
		default:
		}
		if resp, err := http.Get(s.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("outreachd serve not ready after 30s; log in %s", s.log)
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// stop asks for a graceful shutdown and kills the process if it takes more than 20 s.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// admin runs `bin admin args...` on dbURL and decodes its one JSON object.
func admin(bin, dbURL string, args ...string) (map[string]any, error) {
	cmd := exec.Command(bin, append([]string{"admin"}, args...)...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "ALLOW_PRIVATE_DESTINATIONS=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("admin %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	var m map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
		return nil, fmt.Errorf("admin %s: stdout is not one JSON object: %q", strings.Join(args, " "), stdout.String())
	}
	return m, nil
}

// adminString runs admin and returns one string field of its answer.
func adminString(bin, dbURL, field string, args ...string) (string, error) {
	m, err := admin(bin, dbURL, args...)
	if err != nil {
		return "", err
	}
	v, ok := m[field].(string)
	if !ok || v == "" {
		return "", fmt.Errorf("admin %s: no %q in %v", strings.Join(args, " "), field, m)
	}
	return v, nil
}

// commitClock connects to the database for reading commit timestamps, or returns nil when the
// server does not track them (track_commit_timestamp, a server setting that needs a restart).
func (d *database) commitClock(ctx context.Context) (*pgx.Conn, error) {
	c, err := pgx.Connect(ctx, d.url)
	if err != nil {
		return nil, err
	}
	var on string
	if err := c.QueryRow(ctx, `SHOW track_commit_timestamp`).Scan(&on); err != nil || on != "on" {
		_ = c.Close(ctx)
		return nil, err
	}
	return c, nil
}

// settle waits until the service has finished the background work an earlier phase left behind
// (leads still waiting for enrichment, deliveries still pending), so a phase measures its own
// load and not the previous phase's backlog. It returns how long that took.
func (d *database) settle(ctx context.Context, limit time.Duration) (time.Duration, error) {
	c, err := pgx.Connect(ctx, d.url)
	if err != nil {
		return 0, err
	}
	defer c.Close(context.Background())
	start := time.Now()
	for {
		var busy bool
		if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM prospects WHERE enrichment_status = 'pending')
			OR EXISTS (SELECT 1 FROM deliveries WHERE status = 'pending')`).Scan(&busy); err != nil {
			return 0, err
		}
		if !busy {
			return time.Since(start), nil
		}
		if time.Since(start) > limit {
			return time.Since(start), fmt.Errorf("the service still had background work after %s", limit)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// holdTransactions stands for a long transaction elsewhere on the server (a report, a bulk load,
// another application's database): once a second, on a connection to base (not the scenario's
// database), it takes a transaction id and keeps it for hold. PostgreSQL's snapshot horizon is
// cluster-wide, so such a transaction holds back every reader that waits for it. stop ends it.
func holdTransactions(base string, hold time.Duration) (stop func(), err error) {
	ctx, cancel := context.WithCancel(context.Background())
	c, err := pgx.Connect(ctx, base)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("hold: connect to %s: %w", base, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer c.Close(context.Background())
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			if _, err := c.Exec(ctx, fmt.Sprintf(`BEGIN; SELECT pg_current_xact_id(); SELECT pg_sleep(%f); COMMIT`, hold.Seconds())); err != nil && ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "hold: %v\n", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { cancel(); <-done }, nil
}
