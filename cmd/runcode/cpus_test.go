package main

import (
	goruntime "runtime"
	"testing"
)

// TestProcessIsolationShareCPUs: with process isolation the CLI leaves a CPU to each worker
// (worker.ShareCPUs), unless the user set GOMAXPROCS: the library does not read the
// environment, so the CLI decides.
func TestProcessIsolationShareCPUs(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))
	goruntime.GOMAXPROCS(4)
	for _, tt := range []struct {
		env  string
		want int
	}{{"4", 4}, {"", 3}} {
		t.Setenv("GOMAXPROCS", tt.env)
		_, closeRunner, err := newRunner(runnerOptions{isolation: isolationProcess, workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := goruntime.GOMAXPROCS(0)
		if err := closeRunner(); err != nil {
			t.Error(err)
		}
		if got != tt.want {
			t.Errorf("GOMAXPROCS=%q: %d Ps with one worker, want %d", tt.env, got, tt.want)
		}
		if after := goruntime.GOMAXPROCS(0); after != 4 {
			t.Errorf("GOMAXPROCS=%q: %d Ps after close, want 4 back", tt.env, after)
		}
	}
}
