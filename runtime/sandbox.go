package runtime

import (
	"context"
	"errors"
	"sync"

	"github.com/runcode-go/runcode/internal/jsvm"
)

// This file holds what a benchmark driver (runcode bench, through internal/rtlink) needs
// beyond Pool.Run: a sandbox it builds itself, so that building a warm VM ("create"),
// running one program on it ("exec") and dropping it ("dispose") can be timed apart, and
// so that many idle VMs can be held at once to measure their memory.

// errSandboxUsed is returned by sandbox.Run for a sandbox that has already run a program
// or was disposed: like a pooled VM, a sandbox runs exactly one program.
var errSandboxUsed = errors.New("runtime: the sandbox already ran a program or was disposed")

// sandbox is one warm VM (globals installed, nothing run) built synchronously for the
// caller instead of taken from the pool's ready VMs. It runs one program with the pool's
// budgets, slots and grace, exactly as Pool.RunProgram would, and keeps the VM (and what
// the program left in it) alive until Dispose. A sandbox is safe for concurrent use; its
// methods may be called from any goroutine.
type sandbox struct {
	p  *Pool
	mu sync.Mutex
	r  *jsvm.VM // nil once disposed
	// ran is set when a program was started on the sandbox.
	ran bool
}

// newSandbox builds a fresh warm VM for the pool's programs: the cost the pool's background
// refill pays per run, paid here on the caller's clock. It returns ErrClosed after Close.
func (p *Pool) newSandbox() (*sandbox, error) {
	if p.isClosed() {
		return nil, ErrClosed
	}
	r, err := p.host.NewVM()
	if err != nil {
		return nil, err
	}
	return &sandbox{p: p, r: r}, nil
}

// Run prepares code (see Prepare) and runs it on the sandbox, like Pool.Run.
func (s *sandbox) Run(ctx context.Context, code string, opts *RunOptions) (*Result, error) {
	var max int
	if opts != nil {
		max = opts.ProgramBytes
	}
	prg, err := Prepare(code, &PrepareOptions{MaxBytes: max})
	if err != nil {
		var f *Failure
		if !errors.As(err, &f) {
			return nil, err
		}
		if s.p.isClosed() {
			return nil, ErrClosed
		}
		s.mu.Lock()
		s.ran = true // a program was handed to the sandbox; it will not get another
		s.mu.Unlock()
		return &Result{Failure: f}, nil
	}
	if opts == nil {
		opts = &RunOptions{}
	}
	var over Limits
	if opts.Limits != nil {
		over = *opts.Limits
	}
	limits, err := over.WithDefaults(&s.p.limits)
	if err != nil {
		return nil, err
	}
	nss, err := vmNamespaces(opts.Namespaces)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	r := s.r
	if r == nil || s.ran {
		s.mu.Unlock()
		return nil, errSandboxUsed
	}
	s.ran = true
	s.mu.Unlock()
	if res, err := s.p.admit(ctx); res != nil || err != nil {
		return res, err
	}
	defer s.p.runs.Done()
	return result(s.p.host.Run(ctx, r, &jsvm.Job{Program: prg.prg, Limits: jsvm.Limits(limits), Namespaces: nss,
		OnLog: opts.OnLog, ArgBytes: opts.ArgBytes, Release: func() { s.p.slots.Release(1) }})), nil
}

// Dispose drops the sandbox's VM. It does not wait for anything: a run has already ended
// when Run returns (VMs stuck in native code are the pool's to wait for, in Close).
// Dispose is idempotent.
func (s *sandbox) Dispose() {
	s.mu.Lock()
	s.r = nil
	s.mu.Unlock()
}
