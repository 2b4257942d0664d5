package testleak

import (
	"testing"

	"go.uber.org/goleak"
)

// VerifyTestMain runs the package's tests, then fails the test binary if a goroutine is
// still running. regexp2's match-timeout clock (the runtime sets a default match
// timeout) is the exception: one process-wide goroutine that stops by itself about a
// second after the last timed match, not ours to wait for.
func VerifyTestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock"))
}
