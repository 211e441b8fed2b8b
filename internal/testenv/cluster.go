package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a private PostgreSQL cluster with default settings (autovacuum on), in a temporary
// folder, on a free loopback port: for tests and runs that stop and start the database, or that
// must not share the server's settings. As root, initdb refuses to run, so the cluster then
// belongs to the `postgres` system user (Debian's postgresql package creates it).
type Cluster struct {
	Dir  string
	Port int
	URL  string // postgres://postgres@127.0.0.1:port/postgres?sslmode=disable
	bin  string
}

// ErrNoPostgres means no PostgreSQL server binaries were found (/usr/lib/postgresql/*/bin).
var ErrNoPostgres = errors.New("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (install Debian's postgresql package)")

// PostgresBin returns the newest /usr/lib/postgresql/*/bin that holds initdb.
func PostgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) < versionOf(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	return "", ErrNoPostgres
}

func versionOf(dir string) int {
	var v int
	fmt.Sscanf(filepath.Base(filepath.Dir(dir)), "%d", &v)
	return v
}

// NewCluster initializes a cluster in a new temporary folder and starts it on a free port.
// settings are extra `-c name=value` server settings.
func NewCluster(settings ...string) (_ *Cluster, err error) {
	bin, err := PostgresBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "outreachd-pg-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			(&Cluster{Dir: dir, bin: bin}).Remove()
		}
	}()
	if os.Getuid() == 0 {
		if out, err := exec.Command("chown", "postgres:postgres", dir).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("chown %s: %v: %s", dir, err, out)
		}
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin}
	if out, err := c.asOwner(filepath.Join(bin, "initdb"), "-D", dir, "-U", "postgres", "--auth=trust", "-E", "UTF8"); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c.Port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200", c.Port, dir)
	for _, s := range settings {
		opts += " -c " + s
	}
	c.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.Port)
	// Kept in the folder so Start after Stop uses the same options.
	if err := os.WriteFile(filepath.Join(dir, "outreachd.opts"), []byte(opts), 0o644); err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cluster) asOwner(name string, args ...string) ([]byte, error) {
	if os.Getuid() != 0 {
		return exec.Command(name, args...).CombinedOutput()
	}
	quoted := make([]string, 0, len(args)+1)
	for _, a := range append([]string{name}, args...) {
		quoted = append(quoted, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return exec.Command("su", "postgres", "-s", "/bin/sh", "-c", strings.Join(quoted, " ")).CombinedOutput()
}

// Start starts the cluster (again) and waits until it accepts connections.
func (c *Cluster) Start() error {
	opts, err := os.ReadFile(filepath.Join(c.Dir, "outreachd.opts"))
	if err != nil {
		return err
	}
	if out, err := c.asOwner(filepath.Join(c.bin, "pg_ctl"), "-D", c.Dir, "-w", "-t", "60", "-l", filepath.Join(c.Dir, "server.log"),
		"-o", string(opts), "start"); err != nil {
		return fmt.Errorf("pg_ctl start: %v: %s", err, out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, c.URL)
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster on port %d does not answer: %w", c.Port, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop shuts the cluster down at once (fast mode: sessions are ended, as in a restart).
func (c *Cluster) Stop() error {
	if out, err := c.asOwner(filepath.Join(c.bin, "pg_ctl"), "-D", c.Dir, "-w", "-t", "60", "-m", "fast", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %v: %s", err, out)
	}
	return nil
}

// Remove stops the cluster if it runs and deletes its folder.
func (c *Cluster) Remove() {
	_, _ = c.asOwner(filepath.Join(c.bin, "pg_ctl"), "-D", c.Dir, "-w", "-m", "immediate", "stop")
	_ = os.RemoveAll(c.Dir)
}

// PrivateCluster starts a Cluster for this test and removes it when the test ends; the test is
// skipped, saying why, when no PostgreSQL binaries exist.
func PrivateCluster(t testing.TB) *Cluster {
	t.Helper()
	if _, err := PostgresBin(); err != nil {
		t.Skipf("skipped: needs a private PostgreSQL cluster it can stop and start: %v", err)
	}
	c, err := NewCluster()
	if err != nil {
		t.Fatalf("private cluster: %v", err)
	}
	t.Cleanup(c.Remove)
	return c
}
