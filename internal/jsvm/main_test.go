package jsvm

import (
	"context"
	"testing"
	"time"

	"github.com/runcode-go/runcode/internal/testleak"
)

func TestMain(m *testing.M) { testleak.VerifyTestMain(m) }

// newTestHost returns a host of size warm VMs, closed at the end of the test.
func newTestHost(t testing.TB, size int) *Host {
	t.Helper()
	h, err := NewHost(size, 100*time.Millisecond, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// newDefaultRun builds a VM with the default limits outside any run: for tests that
// drive it from Go.
func newDefaultRun(t testing.TB) *VM {
	t.Helper()
	r, err := newTestHost(t, 1).NewVM()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runJob runs code on a warm VM of h as job says, its zero limits the defaults.
func runJob(t testing.TB, h *Host, code string, job *Job) *Outcome {
	t.Helper()
	if job == nil {
		job = &Job{}
	}
	r, err := h.Take()
	if err != nil {
		t.Fatal(err)
	}
	job.Code, job.Limits = code, job.Limits.Or(DefaultLimits)
	return h.Run(context.Background(), r, job)
}
