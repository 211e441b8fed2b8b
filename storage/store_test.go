package storage_test

import (
	"context"
	"strings"
	"testing"

	"outreachd/internal/testenv"
	"outreachd/storage"
)

// The pool is small by default (PostgreSQL commits the most with few transactions at once), and
// pool_max_conns in the database URL sizes it; the hub's pool gets half, at least 4.
func TestPoolSize(t *testing.T) {
	url := testenv.DatabaseURL(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	for _, c := range []struct {
		url         string
		sync, async int32
	}{
		{url, storage.DefaultMaxConns(), max(4, storage.DefaultMaxConns()/2)},
		{url + sep + "pool_max_conns=20", 20, 10},
		{url + sep + "pool_max_conns=2", 2, 4},
	} {
		st, err := storage.Open(context.Background(), c.url, storage.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Pool().Config().MaxConns; got != c.sync {
			t.Errorf("%s: pool of %d, want %d", c.url, got, c.sync)
		}
		if got := st.AsyncPool().Config().MaxConns; got != c.async {
			t.Errorf("%s: hub's pool of %d, want %d", c.url, got, c.async)
		}
		st.Close()
	}
}

// A configuration the store cannot open with is refused before anything connects.
func TestOpenValidatesConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg  storage.Config
		want string
	}{
		{storage.Config{MaxConns: -1}, "MaxConns -1 must not be negative"},
	} {
		// The URL names no server that answers: Validate must refuse first.
		st, err := storage.Open(context.Background(), "postgres://nobody@127.0.0.1:1/none?connect_timeout=1", c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			if st != nil {
				st.Close()
			}
			t.Errorf("Open(%+v) = %v, want an error naming %q", c.cfg, err, c.want)
		}
	}
}
