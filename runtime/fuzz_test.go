package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// FuzzRun feeds arbitrary program text through preparation and a run with small budgets:
// the seam must never return an error for a program, never panic, and always end within
// the budgets with a known failure kind or a valid JSON completion.
func FuzzRun(f *testing.F) {
	for _, seed := range []string{
		"return 1 + 1",
		"const x: number = 1; return x",
		"enum E { A } return E.A",
		"console.log({a: [1, {b: 2}]}, new Map([[1, 2]]))",
		"throw new Error('x')",
		"await new Promise(() => {})",
		"while (true) {}",
		"return {get x() { throw 1 }}",
		"let o = {}; o.o = o; return o",
		"return await tools.echo({a: 1})",
		"for await (const x of []) {}",
		"})(); (() => {",
		"'x'.repeat(1e9)",
		"\x00\xff`${",
	} {
		f.Add(seed)
	}
	pool, err := NewPool(&PoolOptions{Size: 1, Grace: 50 * time.Millisecond, Limits: &Limits{
		Compute: 100 * time.Millisecond, WallClock: time.Second, HeapBytes: 64 << 20, OutputBytes: 64 << 10, StackDepth: 500,
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = pool.Close() })
	var ft fakeTools
	ns := ft.namespace(f)
	kinds := []Kind{KindException, KindTimeout, KindInvalidOutput, KindOutputLimit, KindMemoryLimit}
	f.Fuzz(func(t *testing.T, code string) {
		res, err := pool.Run(context.Background(), code, &RunOptions{Namespaces: []*Namespace{ns}})
		if err != nil {
			t.Fatalf("Run(%q) returned a seam error: %v", code, err)
		}
		_ = res.Text()
		if res.Failure != nil {
			if !slices.Contains(kinds, res.Failure.Kind) {
				t.Fatalf("Run(%q) failed with kind %q", code, res.Failure.Kind)
			}
			return
		}
		if len(res.Value) > 0 && !json.Valid(res.Value) {
			t.Fatalf("Run(%q) completed with invalid JSON %q", code, res.Value)
		}
	})
}
