package outreach

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// A provider error says whether the same call may succeed later, and from when when the
// provider said; wrapping keeps both.
func TestLinkedInRetryable(t *testing.T) {
	until := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
	cause := errors.New("429 too many requests")
	tests := []struct {
		name      string
		err       error
		retry     bool
		at        time.Time
		is        error
		wantCause bool
	}{
		{"rate limited, until a time", fmt.Errorf("invite: %w", &LinkedInError{Kind: ErrRateLimited, RetryAt: until, Err: cause}), true, until, ErrRateLimited, true},
		{"rate limited, no time given", fmt.Errorf("invite: %w", ErrRateLimited), true, time.Time{}, ErrRateLimited, false},
		{"seat disconnected", &LinkedInError{Kind: ErrAccountDisconnected}, true, time.Time{}, ErrAccountDisconnected, false},
		{"provider unavailable", fmt.Errorf("send: %w", ErrProviderUnavailable), true, time.Time{}, ErrProviderUnavailable, false},
		{"already invited", fmt.Errorf("in:x: %w", ErrAlreadyInvited), false, time.Time{}, ErrAlreadyInvited, false},
		{"note too long", &LinkedInError{Kind: ErrNoteTooLong, Err: cause}, false, time.Time{}, ErrNoteTooLong, true},
		{"unknown profile", ErrUnknownProfile, false, time.Time{}, ErrUnknownProfile, false},
		{"already connected", fmt.Errorf("in:x: %w", ErrAlreadyConnected), false, time.Time{}, ErrAlreadyConnected, false},
		{"refused", &LinkedInError{Kind: ErrRefused, Err: cause}, false, time.Time{}, ErrRefused, true},
		{"not a provider error", errors.New("boom"), false, time.Time{}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			retry, at := LinkedInRetryable(tt.err)
			if retry != tt.retry || !at.Equal(tt.at) {
				t.Fatalf("LinkedInRetryable = %v, %s; want %v, %s", retry, at, tt.retry, tt.at)
			}
			if tt.is != nil && !errors.Is(tt.err, tt.is) {
				t.Fatalf("%v is not %v", tt.err, tt.is)
			}
			if errors.Is(tt.err, cause) != tt.wantCause {
				t.Fatalf("errors.Is(%v, cause) = %v", tt.err, !tt.wantCause)
			}
		})
	}
	if got := (&LinkedInError{Kind: ErrRateLimited, RetryAt: until, Err: cause}).Error(); got != "linkedin: seat rate limited: 429 too many requests (until 2026-11-23T15:00:00Z)" {
		t.Fatalf("message %q", got)
	}
}
