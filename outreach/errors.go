package outreach

import (
	"errors"
	"fmt"
	"strings"
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
)

// invalidf returns an error wrapping ErrInvalid whose message names the problem, so callers
// can both answer 400 (errors.Is) and show the client what to fix.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Describe renders err for a person: the sentinels' own words ("invalid input", "not found")
// are dropped from the wrapped chain, so "status: invalid input: not one of …" reads
// "status: not one of …" and "campaign c1: not found" reads "campaign c1 not found". The API and the operator CLI show client errors this way.
func Describe(err error) string {
	msg := err.Error()
	msg = strings.ReplaceAll(msg, ErrInvalid.Error()+": ", "")
	msg = strings.TrimSuffix(msg, ": "+ErrInvalid.Error())
	msg = strings.ReplaceAll(msg, ErrNotFound.Error()+": ", "")
	if strings.HasSuffix(msg, ": "+ErrNotFound.Error()) {
		msg = strings.TrimSuffix(msg, ": "+ErrNotFound.Error()) + " not found"
	}
	return msg
}

// ErrPastRetention marks a request for something the retention policy already removed (a
// delivery, its attempts and payload older than the retention period): 410, with a message that
// names what is gone and since when.
var ErrPastRetention = errors.New("past the retention period")
