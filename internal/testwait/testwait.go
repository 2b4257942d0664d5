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
	select {
	case v := <-ch:
		return v
	case <-time.After(Limit):
		t.Errorf("waited %v for %s; it never came", Limit, what)
		var zero T
		return zero
	}
}
