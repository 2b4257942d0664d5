package testwait

import (
	"testing"
	"time"
)

// Limit bounds one wait.
const Limit = 2 * time.Minute

// Receive waits for a value from ch, up to Limit; on timeout it reports what did not come
// and returns the zero value. It may be called from any goroutine.
func Receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	v, ok := receive(ch)
	if !ok {
		t.Errorf("waited %v for %s; it never came", Limit, what)
	}
	return v
}

// MustReceive is Receive that stops the test on timeout, for a test that cannot go on
// without the value. It must be called from the goroutine running the test.
func MustReceive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	v, ok := receive(ch)
	if !ok {
		t.Fatalf("waited %v for %s; it never came", Limit, what)
	}
	return v
}

// receive returns a value from ch, or the zero value and false after Limit.
func receive[T any](ch <-chan T) (T, bool) {
	timer := time.NewTimer(Limit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v, true
	case <-timer.C:
		var zero T
		return zero, false
	}
}
