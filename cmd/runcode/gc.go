package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"

	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/runtime/worker"
)

// gcPercent is --gc-percent of the commands that run programs (run, serve, bench): the Go
// collector's GOGC where programs run. With --isolation process it is each worker's
// (worker.Options.GCPercent; unset, the worker's default); in process it is this
// process's, which the command sets itself (the library leaves process-wide settings to
// its embedder), and unset leaves GOGC as the environment has it.
type gcPercent struct {
	n   int // worker.Options.GCPercent: 0, the worker's default, when unset
	set bool
}

// register adds --gc-percent to fs.
func (g *gcPercent) register(fs *flag.FlagSet) {
	fs.Var(g, "gc-percent", fmt.Sprintf("the Go collector's GOGC `PERCENT` where programs run, a positive integer: each worker process's with --isolation process (default %d, past a run's first 2 ms; Go's 100 before), this process's in process (default: GOGC as the environment sets it); a higher percent collects less often and holds more garbage; runs are charged only what they hold live", worker.DefaultGCPercent))
}

func (g *gcPercent) Set(text string) error {
	n, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil {
		// The flag package prefixes the flag's name and the value.
		return errors.New("want a whole percentage, e.g. 400")
	}
	g.n, g.set = n, true
	return nil
}

func (g *gcPercent) String() string {
	if g == nil || !g.set {
		return ""
	}
	return strconv.Itoa(g.n)
}

// check returns what is wrong with the flag, or "".
func (g *gcPercent) check() string {
	if g.set && g.n <= 0 {
		return fmt.Sprintf("--gc-percent must be a positive percentage (the collector cannot be turned off for programs), got %d", g.n)
	}
	return ""
}

// inProcess applies the flag to this process for the runs in it, and returns what puts the
// collector back as it was. Unset, it does nothing. Set, it sets GOGC to the percent and,
// when heap is positive, a memory limit of what the process maps now plus heap, as a worker
// has: the collector then works harder as the process nears it, instead of letting the
// garbage grow to the percent's multiple of what the runs hold.
func (g *gcPercent) inProcess(heap int64) (restore func()) {
	if !g.set {
		return func() {}
	}
	prev := debug.SetGCPercent(g.n)
	if heap <= 0 {
		return func() { debug.SetGCPercent(prev) }
	}
	prevLimit := debug.SetMemoryLimit(mappedBytes() + heap)
	return func() {
		debug.SetMemoryLimit(prevLimit)
		debug.SetGCPercent(prev)
	}
}

// forOneRun is inProcess for the commands that run one program at a time in this process
// (run, bench): the memory limit is the run's heap budget over what the process maps,
// unless GOMEMLIMIT set one.
func (g *gcPercent) forOneRun() (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return g.inProcess(0)
	}
	// The CLI has no heap budget flag: a run has runtime's default.
	return g.inProcess(runtime.DefaultLimits().HeapBytes)
}

// mappedBytes is the memory the Go runtime has mapped for this process, as its memory
// limit counts it.
func mappedBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
