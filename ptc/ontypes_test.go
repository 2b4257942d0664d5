package ptc

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/runcode-go/runcode/registry"
)

// TestOnTypes: OnTypes is called after each run that changed a learned type, once per
// run however many of its calls changed one, and not after a run whose results fit the
// types already learned.
func TestOnTypes(t *testing.T) {
	e := newEnv(t)
	e.register(&registry.Tool{Name: "profile", Description: "A user's profile.", Execute: func(_ context.Context, c *registry.Call) (any, error) {
		return c.Args.Any(), nil // what it was given: the program decides the shape
	}})
	var calls atomic.Int32
	e.ptc.OnTypes = func() { calls.Add(1) }
	ex, set := e.executor()
	for _, step := range []struct {
		code string
		want int32
	}{
		{`return await tools.profile({id: 1})`, 1},
		{`return await tools.profile({id: 2})`, 1},
		{`await tools.profile({id: 3, name: "a"}); await tools.profile({id: 4, email: "b"})`, 2},
		{`await tools.profile({id: 5, name: "c", email: "d"})`, 2},
		{`await tools.profile({id: "x"})`, 3},
	} {
		res, _ := ex.Run(context.Background(), set, runCodeCall(step.code))
		if res.IsError() {
			t.Fatal(resultText(res))
		}
		if got := calls.Load(); got != step.want {
			t.Errorf("after %s: OnTypes called %d times, want %d", step.code, got, step.want)
		}
	}

	e.ptc.NoInferredTypes = true
	calls.Store(0)
	ex, set = e.executor()
	ex.Run(context.Background(), set, runCodeCall(`return await tools.profile({other: true})`))
	if got := calls.Load(); got != 0 {
		t.Errorf("NoInferredTypes: OnTypes called %d times", got)
	}
}
