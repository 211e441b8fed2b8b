package storage_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"outreachd/internal/testenv"
	"outreachd/outreach"
	"outreachd/storage"
)

func TestIsUnavailable(t *testing.T) {
	t.Parallel()
	// A real refused connection, as pgx reports it.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, refused := pgx.Connect(ctx, "postgres://postgres@"+testenv.FreeAddr(t)+"/postgres?sslmode=disable&connect_timeout=2")
	if refused == nil {
		t.Fatal("connecting to a free port worked")
	}
	_, httpErr := http.Get("http://" + testenv.FreeAddr(t) + "/")
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"refused connection", fmt.Errorf("list campaigns: %w", refused), true},
		{"server shutting down", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{"cannot connect now", &pgconn.PgError{Code: "57P03"}, true},
		{"connection exception class", &pgconn.PgError{Code: "08006"}, true},
		{"too many connections", &pgconn.PgError{Code: "53300"}, true},
		{"closed connection", fmt.Errorf("x: %w", pgconn.ErrConnClosed), true},
		{"lost mid-statement", fmt.Errorf("query: %w", io.ErrUnexpectedEOF), true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false},
		{"not found", fmt.Errorf("campaign x: %w", outreach.ErrNotFound), false},
		{"cancelled request", context.Canceled, false},
		{"an HTTP call's failure", fmt.Errorf("provider: %w", httpErr), false},
		{"nil", nil, false},
		{"plain error", errors.New("boom"), false},
	}
	for _, c := range cases {
		if got := storage.IsUnavailable(c.err); got != c.want {
			t.Errorf("%s: IsUnavailable(%v) = %v; want %v", c.name, c.err, got, c.want)
		}
	}
}
