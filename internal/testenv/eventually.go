package testenv

import (
	"testing"
	"time"
)

// Eventually waits until cond reports done, checking at once and then at growing intervals
// (10 ms doubling to 200 ms, so a quick condition is seen quickly and a slow one does not
// hammer the database), and fails the test after timeout. cond's second result says what it
// saw, in words (for example "2 of 3 deliveries finished"); the failure quotes the last one, so
// a timeout tells what state the test was stuck in, not only that it waited.
//
// It is the one polling loop of the tests: a test that must see something happen (an event
// delivered, a lead enriched, a server ready) calls it instead of its own sleep loop. A test
// that must prove something did not happen should not sleep either: it waits with Eventually
// for a later fact that is only true once the work in question was done (the attempt row of
// the same delivery, the next event of the same stream), then checks the absence.
//
// Call it from the test's goroutine (it calls t.Fatalf).
func Eventually(t testing.TB, timeout time.Duration, cond func() (done bool, state string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	wait := 10 * time.Millisecond
	for {
		done, state := cond()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s (%s)", timeout, state)
		}
		time.Sleep(min(wait, time.Until(deadline)+time.Millisecond))
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// EventuallyTrue is Eventually for a condition without a state of its own to report: what
// names the awaited fact in the failure message.
func EventuallyTrue(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	Eventually(t, timeout, func() (bool, string) { return cond(), "waiting for " + what })
}
