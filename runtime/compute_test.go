package runtime

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
)

// ignoreCompute leaves out a result's measured VM time where a test compares the rest.
var ignoreCompute = cmpopts.IgnoreFields(Result{}, "Compute")

func TestResultCompute(t *testing.T) {
	p := newTestPool(t, nil)
	t.Run("a program that ran has VM time", func(t *testing.T) {
		res := runCode(t, p, "let n = 0; for (let i = 0; i < 100000; i++) n += i; return n", nil)
		if res.Failure != nil || res.Compute <= 0 {
			t.Errorf("got failure %v, compute %v; want a value and a positive compute time", res.Failure, res.Compute)
		}
	})
	t.Run("a program that failed has its VM time too", func(t *testing.T) {
		res := runCode(t, p, "for (let i = 0; i < 100000; i++) {} throw new Error('late')", nil)
		if res.Failure == nil || res.Compute <= 0 {
			t.Errorf("got failure %v, compute %v; want a failure and a positive compute time", res.Failure, res.Compute)
		}
	})
	t.Run("a run cancelled before it started has none", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := p.Run(ctx, "return 1", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil || res.Compute != 0 {
			t.Errorf("got failure %v, compute %v; want a failure and no compute time", res.Failure, res.Compute)
		}
	})
}
