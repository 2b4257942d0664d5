package worker

import (
	"testing"
	"time"
)

// receiveLimit bounds a test's wait on a channel. It is no timed assertion: it only turns
// a wait that would hang the test binary (until go test's own timeout, with no word on
// what it waited for) into a failure that says what did not come.
const receiveLimit = 2 * time.Minute

// receive waits for a value from ch, up to receiveLimit; on timeout it reports what did
// not come and returns the zero value. It may be called from any goroutine.
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(receiveLimit):
		t.Errorf("waited %v for %s; it never came", receiveLimit, what)
		var zero T
		return zero
	}
}
