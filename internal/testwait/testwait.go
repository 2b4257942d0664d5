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
	return receive(t, ch, what, t.Errorf)
}

// MustReceive is Receive that stops the test on timeout, for a test that cannot go on
// without the value. It must be called from the goroutine running the test.
func MustReceive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	return receive(t, ch, what, t.Fatalf)
}

// receive returns a value from ch, or reports the timeout with fail after Limit and
// returns the zero value.
func receive[T any](t testing.TB, ch <-chan T, what string, fail func(format string, args ...any)) T {
	t.Helper()
	timer := time.NewTimer(Limit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		fail("waited %v for %s; it never came", Limit, what)
		var zero T
		return zero
	}
}

// Go calls f on a goroutine of its own and returns a channel that receives its result: a
// call that may hang, awaited with Receive or MustReceive.
func Go[T any](f func() T) <-chan T {
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	return ch
}
