package runtime

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHostilePrograms runs each hostile program of issue 4: each must end its own run with
// the expected kind, and the pool must keep serving ordinary programs. goleak
// (TestMain) checks afterwards that nothing the runs started is left behind. Budgets are
// small so the table stays fast; the kinds, not the durations, are asserted.
func TestHostilePrograms(t *testing.T) {
	tests := []struct {
		name  string
		code  string
		kinds []Kind // any of these
		limit *Limits
	}{
		{name: "busy loop", code: "while (true) {}", kinds: []Kind{KindTimeout}},
		{name: "busy loop swallowing exceptions", code: "for (;;) { try { while (true) {} } catch {} }", kinds: []Kind{KindTimeout}},
		{name: "giant repeat", code: "'x'.repeat(1e9)", kinds: []Kind{KindException}},
		{name: "giant fill", code: "new Array(1e9).fill(0)", kinds: []Kind{KindException}},
		{name: "giant join", code: "Array(3e8).join('abc')", kinds: []Kind{KindException}},
		{name: "giant typed array", code: "new Float64Array(3e8)", kinds: []Kind{KindException}},
		{name: "runaway recursion", code: "function r() { return r() + 1 }; r()", kinds: []Kind{KindException, KindTimeout}}, // a loaded machine can spend the budget first
		{name: "catastrophic backtracking", code: "return /(a+)+(?=b)/.test('a'.repeat(20))", kinds: []Kind{KindTimeout}, limit: &Limits{Compute: 20 * time.Millisecond}},
		{name: "log flood", code: "while (true) console.log('flood')", kinds: []Kind{KindOutputLimit}},
		{name: "never-settling promise", code: "await new Promise(() => {})", kinds: []Kind{KindException}},
		{name: "accumulating objects", code: "const a = []; while (true) a.push({k: 'v', n: a.length})", kinds: []Kind{KindMemoryLimit, KindTimeout}},
		{name: "accumulating timers", code: "for (;;) setTimeout(() => {}, 1e9)", kinds: []Kind{KindTimeout, KindMemoryLimit}},
		{name: "throwing getter on the completion", code: "return {get x() { throw new Error('gotcha') }}", kinds: []Kind{KindInvalidOutput}},
		{name: "toString bomb thrown", code: "throw {toString() { for (;;) {} }}", kinds: []Kind{KindTimeout, KindException}},
		// goja's compiler is quadratic in the length of operator chains: compiling is work
		// of the run, under its budget.
		{name: "slow to compile", code: strings.Repeat("x = 1"+strings.Repeat("+1", 200)+";\n", 2500) + "let x", kinds: []Kind{KindTimeout}, limit: &Limits{Compute: 50 * time.Millisecond}},
	}
	// A pool per case: Close waits for a VM abandoned inside a native call, so one case's
	// leftovers never count against the next case's heap budget (the sampler sees the
	// whole process).
	opts := &PoolOptions{Size: 2, Grace: 50 * time.Millisecond, Limits: &Limits{
		Compute: 200 * time.Millisecond, WallClock: 5 * time.Second, HeapBytes: 64 << 20, OutputBytes: 64 << 10, StackDepth: 1000,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPool(opts)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := p.Close(); err != nil {
					t.Error(err)
				}
			}()
			res, err := p.Run(context.Background(), tt.code, &RunOptions{Limits: tt.limit})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Failure == nil || !slices.Contains(tt.kinds, res.Failure.Kind) {
				t.Errorf("result = %.300s, want a failure of kind %v", res.Text(), tt.kinds)
			}
			if got := runCode(t, p, "return 'healthy'", nil).Text(); got != "healthy" {
				t.Errorf("the next run = %q, want healthy", got)
			}
		})
	}
}
