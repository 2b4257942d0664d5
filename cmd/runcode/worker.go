package main

import (
	"fmt"
	"io"
	"os"

	"github.com/runcode-go/runcode/internal/procfd"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/runtime/worker"
)

// workerArg is the hidden first argument that starts the binary in the worker role: it
// serves the programs of one host (package runtime/worker) on stdin and stdout. It is not in
// the usage text: only runcode itself starts it.
const workerArg = "__worker"

// workerCommand is the worker role. It first closes the descriptors the process inherited
// by accident (Serve leaves the process's descriptors to its command). Its exit status is
// 0 when the host closed the channel, 3 when the host broke the protocol or the channel
// broke.
func workerCommand(stdin io.Reader, stdout, stderr io.Writer) int {
	procfd.CloseInherited()
	if err := worker.Serve(stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "runcode %s: %v\n", workerArg, err)
		return 3
	}
	return exitOK
}

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
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, fmt.Errorf("--isolation process: finding this executable: %v", err)
		}
		wo := workerOptions(o, exe)
		release := func() {}
		if os.Getenv("GOMAXPROCS") == "" { // else the user chose; leave it
			release = worker.ShareCPUs(wo.Size)
		}
		pool, err := worker.New(wo)
		if err != nil {
			release()
			return nil, nil, err
		}
		return pool, func() error {
			defer release()
			return pool.Close()
		}, nil
	}
	return nil, nil, fmt.Errorf("--isolation must be %s or %s, got %q", isolationInProcess, isolationProcess, o.isolation)
}

// workerOptions are the options of the worker pool newRunner starts for o, with exe as the
// worker executable.
func workerOptions(o runnerOptions, exe string) *worker.Options {
	size := o.workers
	if size == 0 {
		size = defaultWorkers
	}
	return &worker.Options{Command: []string{exe, workerArg}, Size: size, GCPercent: o.gcPercent}
}

// defaultWorkers is the worker processes of a pool when the command does not say.
const defaultWorkers = 2
