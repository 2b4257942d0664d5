package runtime

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/jsvm"
)

func TestLimitsDefaults(t *testing.T) {
	got, err := Limits{}.WithDefaults(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Limits{Compute: 60 * time.Second, WallClock: 600 * time.Second, OutputBytes: 1 << 20, HeapBytes: 512 << 20, StackDepth: 10000}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults mismatch (-want +got):\n%s", diff)
	}
	base := Limits{Compute: 5, OutputBytes: 7}
	got, err = Limits{OutputBytes: 9}.WithDefaults(&base)
	if err != nil {
		t.Fatal(err)
	}
	if got.Compute != 5 || got.OutputBytes != 9 || got.WallClock != 600*time.Second {
		t.Errorf("overrides = %+v, want Compute 5 from the base, OutputBytes 9, default wall clock", got)
	}
}

// The public constants are the VM's.
func TestConstantsAreTheVMs(t *testing.T) {
	if MaxDepth != jsvm.MaxDepth || MaxArgBytes != jsvm.MaxArgBytes {
		t.Errorf("MaxDepth %d, MaxArgBytes %d; the VM's are %d, %d", MaxDepth, MaxArgBytes, jsvm.MaxDepth, jsvm.MaxArgBytes)
	}
}
