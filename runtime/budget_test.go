package runtime

import (
	"context"
	"time"

	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLimitsDefaults(t *testing.T) {
	got, err := Limits{}.withDefaults(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Limits{Compute: defaultCompute, WallClock: defaultWallClock, OutputBytes: 1 << 20, HeapBytes: 512 << 20, StackDepth: 10000}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults mismatch (-want +got):\n%s", diff)
	}
	base := Limits{Compute: 5, OutputBytes: 7}
	got, err = Limits{OutputBytes: 9}.withDefaults(&base)
	if err != nil {
		t.Fatal(err)
	}
	if got.Compute != 5 || got.OutputBytes != 9 || got.WallClock != defaultWallClock {
		t.Errorf("overrides = %+v, want Compute 5 from the base, OutputBytes 9, default wall clock", got)
	}
}

// TestRegexpMatchTimeout runs a catastrophically backtracking regexp (24.6 s unbounded)
// and checks that it ends as "no match" well inside the run's budgets instead of
// stalling the VM.
func TestRegexpMatchTimeout(t *testing.T) {
	pool, err := NewPool(&PoolOptions{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	res, err := pool.Run(context.Background(), `return /(a+)+(?=b)/.test("a".repeat(30))`, &RunOptions{Limits: &Limits{Compute: 20 * time.Second, WallClock: 20 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil || string(res.Value) != "false" {
		t.Errorf("got %s (%v), want false: the match should time out as no match", res.Value, res.Failure)
	}
}
