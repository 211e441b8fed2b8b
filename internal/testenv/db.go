// Package testenv gives tests real parts: a fresh PostgreSQL database per test (cloned from a
// template migrated once per schema version), and the built outreachd binary started as a
// separate process that a test talks to over HTTP, the way a client would.
package testenv

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/delivery"
	"outreachd/storage"
)

// RepoRoot is the module's root folder.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

var (
	baseOnce sync.Once
	baseURL  string
	baseErr  error
)

// BaseURL is the server tests use: $DATABASE_URL (make test sets it), else what scripts/db.sh finds
// or starts.
func BaseURL(t testing.TB) string {
	t.Helper()
	baseOnce.Do(func() {
		if u := os.Getenv("DATABASE_URL"); u != "" {
			baseURL = u
			return
		}
		out, err := exec.Command(filepath.Join(RepoRoot(), "scripts", "db.sh")).Output()
		if err != nil {
			baseErr = fmt.Errorf("scripts/db.sh: %w", err)
			return
		}
		baseURL = strings.TrimSpace(string(out))
	})
	if baseErr != nil {
		t.Fatalf("no PostgreSQL for tests: %v", baseErr)
	}
	return baseURL
}

// withDatabase returns url with its database name replaced.
func withDatabase(t testing.TB, base, db string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse database url: %v", err)
	}
	u.Path = "/" + db
	return u.String()
}

// schemaVersion is a hash of the embedded migrations, so a changed schema gets a new template.
func schemaVersion() string {
	h := sha256.New()
	root := filepath.Join(RepoRoot(), "storage", "migrations")
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			h.Write([]byte(d.Name()))
			h.Write(b)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:12]
}

var (
	tmplOnce sync.Once
	tmplName string
	tmplErr  error
)

// template makes sure a migrated template database for the current schema exists. Test
// packages run in parallel processes, so creation is serialized with an advisory lock and the
// template is built under a temporary name, then renamed.
func template(t testing.TB, base string) string {
	t.Helper()
	tmplOnce.Do(func() {
		tmplName = "outreachd_tmpl_" + schemaVersion()
		tmplErr = buildTemplate(base, tmplName)
	})
	if tmplErr != nil {
		t.Fatalf("template database: %v", tmplErr)
	}
	return tmplName
}

func buildTemplate(base, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return err
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, `SELECT pg_advisory_lock(7203114999)`); err != nil {
		return err
	}
	defer admin.Exec(context.Background(), `SELECT pg_advisory_unlock(7203114999)`) //nolint:errcheck
	var exists bool
	if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	building := name + "_building"
	_, _ = admin.Exec(ctx, `DROP DATABASE IF EXISTS `+building+` WITH (FORCE)`)
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+building); err != nil {
		return err
	}
	// No delivery hub's store: migrating a new database commits no event.
	st, err := storage.Open(ctx, withDatabaseRaw(base, building), storage.Config{MaxConns: 2})
	if err != nil {
		return err
	}
	err = st.Migrate(ctx)
	st.Close()
	if err != nil {
		return fmt.Errorf("migrate template: %w", err)
	}
	_, err = admin.Exec(ctx, `ALTER DATABASE `+building+` RENAME TO `+name)
	return err
}

func withDatabaseRaw(base, db string) string {
	u, _ := url.Parse(base)
	u.Path = "/" + db
	return u.String()
}

// DatabaseURL creates a fresh, migrated database for this test and drops it when the test ends.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	base := BaseURL(t)
	return newDatabase(t, base, template(t, base))
}

// EmptyDatabaseURL creates a fresh database with no tables for this test (upgrade tests migrate it
// to an old version themselves) and drops it when the test ends.
func EmptyDatabaseURL(t testing.TB) string {
	t.Helper()
	return newDatabase(t, BaseURL(t), "template0")
}

// newDatabase creates a database copied from tmpl on the server at base, dropped when the test ends.
func newDatabase(t testing.TB, base, tmpl string) string {
	t.Helper()
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	name := "outreachd_t_" + hex.EncodeToString(rnd[:])
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", base, err)
	}
	defer admin.Close(ctx)
	// CREATE DATABASE ... TEMPLATE fails while another session is connected to the template
	// (only briefly possible); retry a few times.
	for i := 0; ; i++ {
		_, err = admin.Exec(ctx, `CREATE DATABASE `+name+` TEMPLATE `+tmpl)
		if err == nil || i == 20 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
	})
	return withDatabase(t, base, name)
}

// Store opens a *storage.Store on a fresh database for this test, with the delivery hub's store
// attached (Stores).
func Store(t testing.TB) *storage.Store {
	t.Helper()
	st, _ := Stores(t)
	return st
}

// StoreOrg creates an organization named after the test in st and returns its id.
func StoreOrg(t testing.TB, st *storage.Store) string {
	t.Helper()
	o, err := st.CreateOrg(context.Background(), "Org "+t.Name(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// Stores opens a *storage.Store on a fresh database for this test and the delivery hub's store
// attached to it, as serve builds them: events committed through the first get their deliveries
// through the second.
func Stores(t testing.TB) (*storage.Store, *delivery.Store) {
	t.Helper()
	return OpenStores(t, DatabaseURL(t), 8)
}

// OpenStores opens a *storage.Store of at most maxConns connections on the database at url, with
// the delivery hub's store attached (default fan-out policy; a hub built on it sets its own), both
// closed when the test ends.
func OpenStores(t testing.TB, url string, maxConns int32) (*storage.Store, *delivery.Store) {
	t.Helper()
	ds := delivery.NewStore(delivery.FanoutPolicy{})
	st, err := storage.Open(context.Background(), url, storage.Config{MaxConns: maxConns, Deliveries: ds})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(st.Close)
	return st, ds
}
