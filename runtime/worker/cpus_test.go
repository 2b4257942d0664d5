package worker

import (
	goruntime "runtime"
	"testing"
)

// TestShareCPUs: the host gives up one P per worker, at least one stays, pools share the
// setting, and the last release puts back what was there.
func TestShareCPUs(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))
	goruntime.GOMAXPROCS(4)

	release1 := ShareCPUs(1)
	if got := goruntime.GOMAXPROCS(0); got != 3 {
		t.Fatalf("GOMAXPROCS = %d with one worker of 4 CPUs, want 3", got)
	}
	release2 := ShareCPUs(2) // a second pool keeps the first one's setting
	if got := goruntime.GOMAXPROCS(0); got != 3 {
		t.Errorf("GOMAXPROCS = %d with a second pool, want 3 (unchanged)", got)
	}
	release1()
	release1() // a second call is a no-op, not a second release
	if got := goruntime.GOMAXPROCS(0); got != 3 {
		t.Errorf("GOMAXPROCS = %d while a pool still shares, want 3", got)
	}
	release2()
	if got := goruntime.GOMAXPROCS(0); got != 4 {
		t.Errorf("GOMAXPROCS = %d after the last release, want 4 (restored)", got)
	}

	release := ShareCPUs(8) // more workers than CPUs: the host keeps one
	if got := goruntime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS = %d with 8 workers on 4 CPUs, want 1", got)
	}
	release()
}
