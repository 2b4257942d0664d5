package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/runtime/worker"
)

// workerArg is the hidden first argument that starts the binary in the worker role: it
// serves the programs of one host (package runtime/worker) on stdin and stdout. It is not in
// the usage text: only runcode itself starts it.
const workerArg = "__worker"

// workerCommand is the worker role. Its exit status is 0 when the host closed the channel,
// 3 when the host broke the protocol.
func workerCommand(stdin io.Reader, stdout, stderr io.Writer) int {
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
		return &releasingPool{Pool: pool}, pool.Close, nil
	case isolationProcess:
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, fmt.Errorf("--isolation process: finding this executable: %v", err)
		}
		size := o.workers
		if size == 0 {
			size = defaultWorkers
		}
		release := worker.ShareCPUs(size)
		pool, err := worker.New(&worker.Options{Command: []string{exe, workerArg}, Size: size})
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

// defaultWorkers is the worker processes of a pool when the command does not say.
const defaultWorkers = 2

// releasingPool is an in-process pool that gives back to the system the memory of a run
// that failed at its memory limit or its time budget (a memory bomb ends either way).
// The run's VM only becomes garbage when Run returns, after the collection the runtime
// starts as it fails the run; without another one, an idle server would keep holding
// that memory, up to the memory ceiling, until the Go runtime's periodic collection
// minutes later.
type releasingPool struct {
	*runtime.Pool
	mu               sync.Mutex
	releasing, again bool
}

func (p *releasingPool) Run(ctx context.Context, code string, opts *runtime.RunOptions) (*runtime.Result, error) {
	res, err := p.Pool.Run(ctx, code, opts)
	if err == nil && res.Failure != nil && (res.Failure.Kind == runtime.KindMemoryLimit || res.Failure.Kind == runtime.KindTimeout) {
		p.release()
	}
	return res, err
}

// release collects and returns free memory to the system. A run that asks while a
// release is under way gets one more after it (its VM may have been live during the
// first) instead of one of its own.
func (p *releasingPool) release() {
	p.mu.Lock()
	if p.releasing {
		p.again = true
		p.mu.Unlock()
		return
	}
	p.releasing = true
	for {
		p.again = false
		p.mu.Unlock()
		debug.FreeOSMemory()
		p.mu.Lock()
		if !p.again {
			p.releasing = false
			p.mu.Unlock()
			return
		}
	}
}
