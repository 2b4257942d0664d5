package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/runtime/worker"
)

// Isolation modes of --isolation.
const (
	isolationInProcess = "in-process"
	isolationProcess   = "process"
)

// runnerOptions configures newRunner.
type runnerOptions struct {
	// isolation is --isolation: isolationInProcess (or "") or isolationProcess.
	isolation string
	// workers bounds the programs that run at once: the worker processes with process
	// isolation (0: 2), runtime.PoolOptions.MaxRuns in process (0: the runtime's default).
	workers int
	// warm is how many never-used VMs an in-process pool keeps ready (0: the runtime's
	// default). Worker processes are all started ahead.
	warm int
	// memoryCeiling is runtime.PoolOptions.MemoryCeiling, in process only.
	memoryCeiling int64
	// gcPercent is worker.Options.GCPercent (0: the worker's default), with process
	// isolation only: in process the command sets its own collector (gcPercent.inProcess).
	gcPercent int
}

// newRunner returns what runs programs for the isolation mode: a runtime.Pool in this
// process, or a pool of worker processes running this same binary in the worker role.
func newRunner(o runnerOptions) (ptc.Runner, func() error, error) {
	switch o.isolation {
	case isolationInProcess, "":
		pool, err := runtime.NewPool(&runtime.PoolOptions{Size: o.warm, MaxRuns: o.workers, MemoryCeiling: o.memoryCeiling})
		if err != nil {
			return nil, nil, err
		}
		return pool, pool.Close, nil
	case isolationProcess:
		wo := workerOptions(o)
		// Sharing the CPUs changes GOMAXPROCS, a stop-the-world that in a fresh process
		// also faults in the collector's span sets (milliseconds); it runs while the first
		// worker starts, which leaves this process waiting anyway.
		shared := make(chan func(), 1)
		if os.Getenv("GOMAXPROCS") == "" { // else the user chose; leave it
			go func() { shared <- worker.ShareCPUs(wo.Size) }()
		} else {
			shared <- func() {}
		}
		// This process runs no program: it holds the tools, the pipeline and each call's
		// garbage. Collecting it at a lower percent reuses its pages rather than faulting in
		// fresh ones as its heap grows, which is most of a fresh host's cost per run
		// (BENCHMARKS.md). GOGC in the environment wins.
		restoreGC := func() {}
		if os.Getenv("GOGC") == "" {
			prev := debug.SetGCPercent(hostGCPercent)
			restoreGC = func() { debug.SetGCPercent(prev) }
		}
		pool, err := worker.NewSelf(wo)
		release := <-shared
		if err != nil {
			release()
			restoreGC()
			return nil, nil, err
		}
		return pool, func() error {
			defer restoreGC()
			defer release()
			return pool.Close()
		}, nil
	}
	return nil, nil, fmt.Errorf("--isolation must be %s or %s, got %q", isolationInProcess, isolationProcess, o.isolation)
}

// workerOptions are the options of the worker pool newRunner starts for o: workers are this
// binary in the worker role (worker.NewSelf).
func workerOptions(o runnerOptions) *worker.Options {
	size := o.workers
	if size == 0 {
		size = defaultWorkers
	}
	return &worker.Options{Size: size, GCPercent: o.gcPercent}
}

// hostGCPercent is this process's GOGC while its programs run in worker processes.
const hostGCPercent = 50

// defaultWorkers is the worker processes of a pool when the command does not say.
const defaultWorkers = 2
