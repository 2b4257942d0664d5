package runtime

import (
	"context"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newTestPool returns a pool closed at the end of the test, with small budgets so hostile
// programs end fast.
func newTestPool(t testing.TB, limits *Limits) *Pool {
	t.Helper()
	if limits == nil {
		limits = &Limits{}
	}
	p, err := NewPool(&PoolOptions{Size: 2, Limits: limits, Grace: 100e6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// runCode runs code and fails the test on a seam error.
func runCode(t testing.TB, p *Pool, code string, opts *RunOptions) *Result {
	t.Helper()
	res, err := p.Run(context.Background(), code, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}
