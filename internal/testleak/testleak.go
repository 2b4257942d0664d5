package testleak

import (
	"testing"

	"go.uber.org/goleak"
)

// VerifyTestMain runs the package's tests, then fails the test binary if a goroutine is
// still running.
func VerifyTestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
