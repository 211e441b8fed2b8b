package storage

import (
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsUnavailable reports whether err means the database could not be reached or went away
// mid-statement (refused or lost connection, server shutting down or starting up, no connection
// slot), as opposed to an error in the statement itself. Callers answer such errors with "retry
// later" (the API's 503) and back off rather than log each one: they say nothing about the
// request and end when PostgreSQL is back.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	// An HTTP call's failure (a webhook, the LinkedIn provider, the drafter) is a *url.Error; it
	// says nothing about the database.
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"): // connection exception
			return true
		case pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03": // admin/crash shutdown, cannot connect now
			return true
		case pgErr.Code == "53300": // too many connections
			return true
		}
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "closed pool")
}
