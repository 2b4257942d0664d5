package worker

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/runtime"
)

// TestGCPercentOption: a negative Options.GCPercent is refused by New with an error that
// names the field, before any worker starts.
func TestGCPercentOption(t *testing.T) {
	_, err := New(&Options{Command: []string{os.Args[0], "__worker"}, GCPercent: -1})
	var oe *runtime.OptionError
	if !errors.As(err, &oe) || oe.Field != "Options.GCPercent" || !errors.Is(err, runtime.ErrInvalidOptions) {
		t.Fatalf("New with GCPercent -1 = %v, want an OptionError for Options.GCPercent", err)
	}
	if want := "runtime: invalid option Options.GCPercent: must not be negative (a worker's collector cannot be turned off; zero means 400), got -1"; err.Error() != want {
		t.Errorf("error text %q, want %q", err.Error(), want)
	}
}

// TestWorkerGCPercent: a worker runs its collector at the percent of its init frame (the
// default for zero), as its Go runtime reports it back in ready; a negative one is a
// protocol violation, and the worker exits without answering.
func TestWorkerGCPercent(t *testing.T) {
	for _, tt := range []struct{ asked, want int }{{0, DefaultGCPercent}, {250, 250}, {1000, 1000}} {
		ready, stderr := initWorker(t, tt.asked)
		if ready == nil || ready.T != tReady || ready.GCPercent != tt.want {
			t.Errorf("init with gcPercent %d: ready %+v (stderr %q), want gcPercent %d", tt.asked, ready, stderr, tt.want)
		}
	}
	if ready, stderr := initWorker(t, -1); ready != nil || !strings.Contains(stderr, "the first frame must be a valid init") {
		t.Errorf("init with gcPercent -1: ready %+v, stderr %q; want no answer and a protocol error", ready, stderr)
	}
}

// initWorker starts a worker, sends it an init frame asking for gcPercent, and returns its
// answer (nil if it sent none) and what it wrote on stderr, once it has exited.
func initWorker(t *testing.T, gcPercent int) (*message, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "__worker")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := writeFrame(in, &message{T: tInit, Limits: testLimits, GCPercent: gcPercent}, DefaultMaxFrame); err != nil {
		t.Fatal(err)
	}
	ready, err := readFrame(out, DefaultMaxFrame)
	if err != nil {
		ready = nil
	}
	in.Close() // the worker returns from Serve and exits
	_ = cmd.Wait()
	return ready, stderr.String()
}

// TestPoolChecksGCPercent: the pool starts only workers that report the percent it asked
// for, and a pool's runs are served at it.
func TestPoolChecksGCPercent(t *testing.T) {
	_, err := New(&Options{Command: []string{os.Args[0], "__fake", "wrong-gc"}, Size: 1, GCPercent: 250})
	if err == nil || !strings.Contains(err.Error(), "worker broke the protocol: it runs its collector at GOGC 251, not the 250 asked") {
		t.Errorf("New with a worker at the wrong percent = %v", err)
	}
	p, err := New(&Options{Command: []string{os.Args[0], "__worker"}, Size: 1, Limits: testLimits, GCPercent: 250})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got := runCode(t, p, "return 'ok'", nil).Text(); got != "ok" {
		t.Errorf("run = %q", got)
	}
}
