package bench

import (
	"context"
	"errors"
	"sync"

	"github.com/runcode-go/runcode/internal/jsvm"
	"github.com/runcode-go/runcode/runtime"
)

// sandboxRunner is the ptc.Runner of runcode bench in process: each program runs on the
// sandbox the driver created for it, a warm VM built on the driver's clock (create), run
// with the default budgets as runtime.Pool runs it (exec), and dropped (dispose), so that
// the three are timed apart and idle sandboxes can be held to count their memory. It is
// safe for concurrent use.
type sandboxRunner struct {
	host   *jsvm.Host
	limits runtime.Limits // the defaults
	mu     sync.Mutex
	next   *jsvm.VM // the sandbox of the next run, if created
}

func newSandboxRunner() (*sandboxRunner, error) {
	// One warm VM kept ready, as runtime.Pool{Size: 1} keeps: the bench never takes it,
	// but its memory was in the figures before the sandboxes came from jsvm.
	h, err := jsvm.NewHost(1, runtime.DefaultGrace, 0)
	if err != nil {
		return nil, err
	}
	return &sandboxRunner{host: h, limits: runtime.DefaultLimits()}, nil
}

func (r *sandboxRunner) close() { r.host.Close() }

func (r *sandboxRunner) Limits() runtime.Limits { return r.limits }

// create builds the sandbox of the next run and returns what drops it. A VM is dropped
// by no longer holding it; one that ran is no longer the runner's.
func (r *sandboxRunner) create() (dispose func(), err error) {
	vm, err := r.host.NewVM()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.next = vm
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		if r.next == vm {
			r.next = nil
		}
		r.mu.Unlock()
		vm = nil
	}, nil
}

func (r *sandboxRunner) Run(ctx context.Context, code string, opts *runtime.RunOptions) (*runtime.Result, error) {
	r.mu.Lock()
	vm := r.next
	r.next = nil
	r.mu.Unlock()
	if vm == nil {
		return nil, errors.New("runcode bench: no sandbox was created for this run")
	}
	if opts == nil {
		opts = &runtime.RunOptions{}
	}
	var over runtime.Limits
	if opts.Limits != nil {
		over = *opts.Limits
	}
	limits, err := over.WithDefaults(&r.limits)
	if err != nil {
		return nil, err
	}
	if err := runtime.CheckNamespaces(opts.Namespaces); err != nil {
		return nil, err
	}
	nss := make([]*jsvm.Namespace, len(opts.Namespaces))
	for i, ns := range opts.Namespaces {
		o := ns.Options()
		if nss[i], err = jsvm.NewNamespace(ns.Global(), ns.Members(), ns.Start, (*jsvm.NamespaceOptions)(&o)); err != nil {
			return nil, err
		}
		nss[i].Errors = vmError
	}
	out := r.host.Run(ctx, vm, &jsvm.Job{Code: code, ProgramBytes: opts.ProgramBytes, Limits: jsvm.Limits(limits),
		Namespaces: nss, ArgBytes: opts.ArgBytes, OnLog: opts.OnLog, FileName: opts.FileName,
		Truncate: opts.TruncateOutput, Draws: (*jsvm.Draws)(opts.Draws)})
	res := &runtime.Result{Logs: out.Logs, Value: out.Value, Compute: out.Compute, Draws: (*runtime.Draws)(out.Draws)}
	if f := out.Failure; f != nil {
		res.Failure = &runtime.Failure{Kind: runtime.Kind(f.Kind), Message: f.Message}
	}
	return res, nil
}

// vmError gives the VM a call's error in its own types, as runtime does for the
// namespaces it builds: a *runtime.Failure ends the run, a *runtime.CallError rejects
// with its fields.
func vmError(err error) error {
	var f *runtime.Failure
	if errors.As(err, &f) {
		return &jsvm.Failure{Kind: jsvm.Kind(f.Kind), Message: f.Message}
	}
	var ce *runtime.CallError
	if errors.As(err, &ce) {
		return (*jsvm.CallError)(ce)
	}
	return err
}
