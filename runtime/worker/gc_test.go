package worker

import (
	"errors"
	"os"
	"os/exec"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

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

// TestWorkerGCPercent: a worker takes the percent of its init frame (the default for zero)
// as the one its runs widen to, and says so in ready; a negative one is a protocol
// violation, and the worker exits without answering. TestWidenLater shows the runtime
// runs at it.
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

// gcPercent is the collector's GOGC as the Go runtime reports it.
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// TestWidenLater: a run gets the wide GC percent once gcAfter has passed and the Go
// runtime's default GOMAXPROCS once wideAfter has; narrow puts back the narrow percent and one P; a run that ends
// first never widens.
func TestWidenLater(t *testing.T) {
	savedProcs, savedGC := goruntime.GOMAXPROCS(0), debug.SetGCPercent(100)
	defer func() {
		goruntime.GOMAXPROCS(savedProcs)
		debug.SetGCPercent(savedGC)
	}()
	defer func(w, n int) { wideGC, narrowGC = w, n }(wideGC, narrowGC)
	wideGC, narrowGC = 250, 60
	goruntime.SetDefaultGOMAXPROCS()
	wideProcs := goruntime.GOMAXPROCS(1)
	debug.SetGCPercent(narrowGC)

	narrow := widenLater()
	narrow()
	time.Sleep(wideAfter + 10*time.Millisecond)
	if got, procs := gcPercent(), goruntime.GOMAXPROCS(0); got != 60 || procs != 1 {
		t.Errorf("a run that ended at once: GC percent %d and GOMAXPROCS %d after wideAfter, want 60 and 1", got, procs)
	}

	narrow = widenLater()
	for deadline := time.Now().Add(10 * time.Second); gcPercent() != 250 || goruntime.GOMAXPROCS(0) != wideProcs; {
		if time.Now().After(deadline) {
			t.Fatalf("a long run: GC percent %d and GOMAXPROCS %d after 10s, want 250 and %d", gcPercent(), goruntime.GOMAXPROCS(0), wideProcs)
		}
		time.Sleep(time.Millisecond)
	}
	narrow()
	if got, procs := gcPercent(), goruntime.GOMAXPROCS(0); got != 60 || procs != 1 {
		t.Errorf("after narrow: GC percent %d and GOMAXPROCS %d, want 60 and 1", got, procs)
	}
}
