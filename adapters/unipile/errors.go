package unipile

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrInvalidRequest is a call refused before it was sent (an empty id, a note over 300
// characters): nothing reached Unipile, and sending it again would fail the same way. Its
// class is ClassRejected.
var ErrInvalidRequest error = invalidRequest{}

type invalidRequest struct{}

func (invalidRequest) Error() string        { return "unipile: invalid request" }
func (invalidRequest) Is(target error) bool { return target == ClassRejected }

// Error is an answer from Unipile that is not a success: its RFC 7807 problem document
// ({type, status, title, detail}) when it sent one, the status line otherwise. A 2xx answer
// that could not be read is an Error too (Title "unreadable answer"): the call was carried out
// but its result is unknown.
type Error struct {
	Method, Path string // the call, Path after /api/v1
	Status       int    // the HTTP status
	Type         string // "errors/already_invited_recently"; "" when the body was no problem document
	Title        string
	Detail       string
	// RetryAfter is the Retry-After header's delay; 0 when absent.
	RetryAfter time.Duration
	// Body is the raw answer, truncated to the configured MaxErrorBodyBytes.
	Body string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unipile: %s %s: %d", e.Method, e.Path, e.Status)
	if e.Type != "" {
		b.WriteString(" " + e.Type)
	}
	if e.Title != "" {
		b.WriteString(": " + e.Title)
	}
	if e.Detail != "" {
		b.WriteString(" (" + e.Detail + ")")
	}
	return b.String()
}

// Class is what a failure means for whoever made the call. It is an error value, so
// errors.Is(err, unipile.ClassRateLimited) tests an error's class.
type Class string

const (
	// ClassAlreadyInvited: the person already has an invitation from this seat (or had one too
	// recently to send another). Never retry.
	ClassAlreadyInvited Class = "already_invited"
	// ClassAlreadyConnected: the person is already a 1st-degree connection. Never retry.
	ClassAlreadyConnected Class = "already_connected"
	// ClassRateLimited: the seat hit a limit of LinkedIn's or Unipile's; it should cool down
	// (for RetryAfter when Unipile said how long).
	ClassRateLimited Class = "rate_limited"
	// ClassNotConnected: a message to someone who is not a 1st-degree connection; wait until
	// they accept the invitation.
	ClassNotConnected Class = "not_connected"
	// ClassSeatStopped: the seat is disconnected, needs a checkpoint solved or is restricted;
	// nothing it does works until its status is OK again.
	ClassSeatStopped Class = "seat_stopped"
	// ClassNotFound: the profile, chat, invitation or account does not exist.
	ClassNotFound Class = "not_found"
	// ClassBadAPIKey: Unipile refused the API key itself; no seat can act until the operator
	// fixes it.
	ClassBadAPIKey Class = "bad_api_key"
	// ClassTransient: Unipile or the network failed (5xx, time-out, connection error, an
	// unreadable answer); retry with back-off, after reconciling when MaybePerformed.
	ClassTransient Class = "transient"
	// ClassRejected: any other refusal (bad parameters, a blocked recipient, a feature not
	// subscribed, a request refused before sending); retrying would fail the same way.
	ClassRejected Class = "rejected"
)

func (c Class) Error() string { return "unipile: " + string(c) }

// Is lets errors.Is match an Error against its Class.
func (e *Error) Is(target error) bool {
	c, ok := target.(Class)
	return ok && e.class() == c
}

// Types of Unipile's problem documents, by what they mean here.
var (
	alreadyInvitedTypes = map[string]bool{
		"errors/already_invited_recently":   true,
		"errors/cannot_resend_within_24hrs": true,
		// Seen on an invitation to someone already invited.
		"errors/action_already_performed": true,
	}
	rateLimitTypes = map[string]bool{
		"errors/too_many_requests": true,
		"errors/cannot_resend_yet": true,
		"errors/limit_exceeded":    true,
	}
	seatStopped403Types = map[string]bool{
		"errors/account_restricted": true,
		"errors/action_required":    true,
	}
)

func (e *Error) class() Class {
	switch {
	case e.Status >= 200 && e.Status <= 299: // carried out, answer unreadable
		return ClassTransient
	case e.Type == "errors/already_connected":
		return ClassAlreadyConnected
	case alreadyInvitedTypes[e.Type]:
		return ClassAlreadyInvited
	case e.Status == http.StatusTooManyRequests || rateLimitTypes[e.Type]:
		return ClassRateLimited
	case e.Type == "errors/no_connection_with_recipient":
		return ClassNotConnected
	case e.Status == http.StatusUnauthorized:
		// missing_credentials is the API key; every other 401 type names the seat's session
		// (disconnected_account, checkpoint_error, expired_credentials, …).
		if e.Type == "" || e.Type == "errors/missing_credentials" {
			return ClassBadAPIKey
		}
		return ClassSeatStopped
	case e.Status == http.StatusForbidden && seatStopped403Types[e.Type]:
		return ClassSeatStopped
	case e.Status == http.StatusNotFound:
		return ClassNotFound
	case e.Status >= 500 || e.Status == http.StatusRequestTimeout:
		return ClassTransient
	}
	return ClassRejected
}

// TransportError is a call that got no answer: the connection failed, timed out, or broke
// before the answer was read.
type TransportError struct {
	Method, Path string
	// Sent is true once the whole request was written: Unipile may have carried it out. When
	// false it surely did not (the connection was never made or broke while sending).
	Sent bool
	Err  error
}

func (e *TransportError) Error() string {
	state := "not sent"
	if e.Sent {
		state = "sent, answer lost"
	}
	return fmt.Sprintf("unipile: %s %s: %s: %v", e.Method, e.Path, state, e.Err)
}

func (e *TransportError) Unwrap() error { return e.Err }

// Is lets errors.Is(err, ClassTransient) match a transport failure.
func (e *TransportError) Is(target error) bool { return target == ClassTransient }

// ClassOf classifies an error returned by the Client; "" for nil and for errors that did not
// come from it.
func ClassOf(err error) Class {
	var ue *Error
	var te *TransportError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ue):
		return ue.class()
	case errors.As(err, &te):
		return ClassTransient
	case errors.Is(err, ErrInvalidRequest):
		return ClassRejected
	}
	return ""
}

// MaybePerformed reports whether a failed call that changes something (POST, DELETE) may
// nevertheless have been carried out: the answer was lost after the request was sent, or
// Unipile answered 5xx, or it answered 2xx unreadably. Then whoever retries must first look
// (list sent invitations, list the chat's messages) so that nothing is done twice. A false
// answer means surely not carried out. GET calls always answer false.
func MaybePerformed(err error) bool {
	var ue *Error
	var te *TransportError
	switch {
	case errors.As(err, &te):
		return te.Sent && te.Method != http.MethodGet
	case errors.As(err, &ue):
		if ue.Method == http.MethodGet {
			return false
		}
		return ue.Status >= 500 || (ue.Status >= 200 && ue.Status <= 299)
	}
	return false
}

// RetryAfter is how long Unipile asked to wait before trying again; 0 when it did not say.
func RetryAfter(err error) time.Duration {
	var ue *Error
	if errors.As(err, &ue) {
		return ue.RetryAfter
	}
	return 0
}

// IsTimeout reports whether the call ran out of time (the configured timeout or the caller's
// deadline) rather than failing outright.
func IsTimeout(err error) bool {
	var te *TransportError
	if !errors.As(err, &te) {
		return false
	}
	var timeout interface{ Timeout() bool }
	return errors.Is(te.Err, context.DeadlineExceeded) || (errors.As(te.Err, &timeout) && timeout.Timeout())
}

// maxRetryAfter clamps an absurd Retry-After; a seat's cool-down is counted in hours.
const maxRetryAfter = 7 * 24 * time.Hour

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent or unreadable.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		d = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		d = time.Until(at)
	}
	return max(0, min(d, maxRetryAfter))
}
