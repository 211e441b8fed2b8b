package outreach

import (
	"errors"
	"fmt"
)

// Sentinel errors of the domain. Every layer wraps them with %w and decides with errors.Is;
// api/errors.go is the one place that turns them into HTTP statuses, so the names and
// meanings here are part of the contract between packages.
var (
	// ErrInvalid marks input the caller must fix (400); the wrapping message names the problem.
	ErrInvalid = errors.New("invalid input")
	// ErrNotFound marks something that does not exist or is outside the caller's organization (404).
	ErrNotFound = errors.New("not found")
	// ErrCampaignClosed marks a write to a campaign that can no longer take leads (409).
	ErrCampaignClosed = errors.New("campaign is completed or archived")
	// ErrConflict marks a write that clashes with the current state of a resource.
	ErrConflict = errors.New("conflict")
	// ErrUnauthenticated marks a call that did not prove who sent it (a provider's webhook
	// without its shared secret, a call-back for a sign-in link the service did not make or
	// that expired or was used) (401).
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrTooLarge marks a body over the size its endpoint accepts (413).
	ErrTooLarge = errors.New("body too large")
)

// InvalidInputError is input the caller must fix, as a type: Message is the whole sentence the
// client reads (it names the input at fault and says what is wrong), and for an error about one
// field Field and Problem hold the two apart, so a caller can word it in its own context without
// cutting strings (api's lead push turns `field "x" must be a string` into `leads[3].x must be a
// string`). It is ErrInvalid for errors.Is, or Kind when set (ErrInvalidFilters). Its text
// carries no sentinel's words, so wrapping it with context ("leads[3]%w") reads as the client
// should see it; api/errors.go maps it by its type. Build it with Invalidf, InvalidField or
// JSONInputError.
type InvalidInputError struct {
	Message string
	// Field is the input at fault as the client names it ("events", a JSON field of the body);
	// "" when the message is not about one field.
	Field string
	// Problem is what is wrong with Field, worded to follow its name ("must be a string, got
	// number"); "" when Field is.
	Problem string
	// Kind is the sentinel the error is (errors.Is); nil means ErrInvalid.
	Kind error
	// Err is the cause when there is one (a JSON decoding error), for errors.As and logs.
	Err error
}

func (e *InvalidInputError) Error() string { return e.Message }

// Is reports whether target is the sentinel e stands for.
func (e *InvalidInputError) Is(target error) bool {
	if e.Kind != nil {
		return target == e.Kind
	}
	return target == ErrInvalid
}

func (e *InvalidInputError) Unwrap() error { return e.Err }

// Invalidf is an InvalidInputError whose message names the problem, so callers can both answer
// 400 (errors.Is(err, ErrInvalid)) and show the client what to fix.
func Invalidf(format string, args ...any) error {
	return &InvalidInputError{Message: fmt.Sprintf(format, args...)}
}

// InvalidField is an InvalidInputError about one field, worded "field: problem".
func InvalidField(field, format string, args ...any) error {
	problem := fmt.Sprintf(format, args...)
	return &InvalidInputError{Message: field + ": " + problem, Field: field, Problem: problem}
}

func invalidf(format string, args ...any) error { return Invalidf(format, args...) }

// ConflictError is a write that clashes with the current state of a resource (409): Message is
// the whole sentence the client reads ("campaign cmp_… is active; only a draft can be edited"),
// without the sentinel's word. It matches ErrConflict with errors.Is. Build it with Conflictf.
type ConflictError struct{ Message string }

func (e *ConflictError) Error() string { return e.Message }

// Is reports whether target is ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Conflictf is a ConflictError whose message says what clashes.
func Conflictf(format string, args ...any) error {
	return &ConflictError{Message: fmt.Sprintf(format, args...)}
}

// NotFoundError is a thing the client named that does not exist (or is not theirs): 404, with
// a message that names it ("delivery dlv_… not found"). It matches ErrNotFound with errors.Is.
type NotFoundError struct {
	// What names the thing ("delivery dlv_…", "session").
	What string
}

func (e *NotFoundError) Error() string { return e.What + " not found" }

// Is reports whether target is ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// NotFound is a NotFoundError naming what (formatted like fmt.Sprintf).
func NotFound(format string, args ...any) error {
	return &NotFoundError{What: fmt.Sprintf(format, args...)}
}

// ErrPastRetention marks a request for something the retention policy already removed (a
// delivery, its attempts and payload older than the retention period): 410, with a message that
// names what is gone and since when.
var ErrPastRetention = errors.New("past the retention period")

// WrapServerErr says what was being done around an error of the server's (a database failure),
// and leaves a client's error (invalid input or filters, not found, a conflict) as it is, so
// that its message reaches the client unchanged.
func WrapServerErr(err error, what string) error {
	for _, sentinel := range []error{ErrInvalid, ErrInvalidFilters, ErrNotFound, ErrConflict} {
		if errors.Is(err, sentinel) {
			return err
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}
