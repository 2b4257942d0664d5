package runtime

import (
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
