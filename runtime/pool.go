package runtime

import (
	"cmp"
	"context"
	"encoding/json"
	goruntime "runtime"
	"sync"
	"time"

	"github.com/runcode-go/runcode/internal/jsprep"
	"github.com/runcode-go/runcode/internal/jsvm"
	"golang.org/x/sync/semaphore"
)

// PoolOptions configures a Pool. A nil *PoolOptions means the defaults. NewPool reads it
// once and keeps no reference, so the caller may reuse or change it afterwards.
type PoolOptions struct {
	// Size is how many warm VMs the pool keeps ready. Zero means 4.
	Size int
	// Limits are the default budgets of every run; a nil Limits or a zero field means the
	// default named on the field (docs/run_code.md, "Budgets").
	Limits *Limits
	// MaxRuns bounds how many programs run at once; Run waits for a slot (or for its
	// context). A VM abandoned inside a native built-in keeps its slot until it finishes,
	// and runs waiting on host work hold one too. A nested run (RunOptions.Nested) does not
	// count. Zero means 64 per CPU (GOMAXPROCS).
	MaxRuns int
	// Grace bounds how long Run keeps waiting, after a budget ran out, the context was
	// cancelled or the program ended, for a VM stuck inside a native built-in and for host
	// calls that ignore cancellation; then Run returns and leaves them. Close waits for such
	// VMs, and for such host calls up to Grace more. Zero means DefaultGrace.
	Grace time.Duration
	// MemoryCeiling bounds the live heap of the whole process while in-process runs are in
	// flight: above it, Run waits before it starts another program, and the run holding
	// the most memory fails with kind memory-limit (each run is still bound by its own
	// HeapBytes too). With several pools in one process the lowest ceiling applies. Zero
	// means no ceiling; a negative value means the Go runtime's memory limit (GOMEMLIMIT,
	// debug.SetMemoryLimit) when one is set, and no ceiling otherwise.
	MemoryCeiling int64
}

// DefaultGrace is the default of PoolOptions.Grace: long enough for host work that honours
// cancellation to stop, short enough that a budget stays a bound on how long a run takes.
const DefaultGrace = 100 * time.Millisecond

// RunOptions configures one run. A nil *RunOptions means the defaults. Run reads it and
// keeps no reference; one RunOptions may be shared by concurrent runs if nobody mutates it.
type RunOptions struct {
	// Namespaces are the host namespaces installed for this run (for example tools). Nil
	// means none.
	Namespaces []*Namespace
	// Limits override the pool's budgets for this run; a nil Limits or a zero field means
	// the pool's value.
	Limits *Limits
	// ProgramBytes bounds the program text for Run. Zero means 1 MiB.
	ProgramBytes int
	// ArgBytes bounds one namespace call's arguments as JSON; a larger call is rejected
	// before it starts. Zero means MaxArgBytes.
	ArgBytes int
	// OnLog, if set, is called with each entry of Result.Logs as the output ledger accepts
	// it, in order, on the VM goroutine; it must not block for long. It lets a caller that
	// may lose the Result (a worker killed at its memory limit) keep the output. Nil: none.
	OnLog func(entry string)
	// FileName names the program in the stack frames of its errors (for example
	// "prog.ts", the file the program came from). Empty means "program.js" (or
	// "program.ts" for a program that needed TypeScript stripping).
	FileName string
	// TruncateOutput degrades output over the budget instead of failing with output-limit:
	// the log entry that does not fit is cut with a "…N more bytes" marker and later ones
	// dropped, a completion is cut to valid JSON with "…N more" markers, and the logs open
	// with a one-line warning. False means the contract's behaviour.
	TruncateOutput bool
	// KeepFullValue, with TruncateOutput, keeps the whole completion when truncation cut it
	// (Result.FullValue). It changes nothing the program or the model sees.
	KeepFullValue bool
	// State, when not nil, gives the program the global state (get, set, delete,
	// keys; synchronous) over a session's key/value state, and Result.State is what the
	// program left when it changed it. Nil means no state global.
	State *State
	// Globals are read-only globals given to the program, each a JSON value by name
	// (a saved script's input). A name the VM already has fails the run. Nil means none.
	Globals map[string]json.RawMessage
	// Nested marks a run that a host call of another run of the same pool makes and waits
	// for. It does not wait for a slot or for memory, which its caller holds (it would wait
	// forever on a full pool). The caller bounds how deep runs nest.
	Nested bool
	// Draws, when not nil, makes the run record the clock and random values its program
	// draws (Result.Draws) and give back the ones Draws holds first, in order, so that a run
	// resumed by replay makes the same calls. Each call's StartFunc context carries the
	// draws made before it ([CallDraws]). A run records the first [MaxDraws] of each kind;
	// past them it draws unrecorded, real values. Nil means the real clock and random
	// source, unrecorded.
	Draws *Draws
}

// Pool runs programs on warm goja VMs, each VM exactly one program: goja cannot reset a
// VM, and globals and prototype changes would leak into the next program. A background
// goroutine keeps Size VMs ready. A Pool is safe for concurrent use; Close releases it.
type Pool struct {
	limits Limits
	host   *jsvm.Host          // the warm VMs, and what outlives a run
	slots  *semaphore.Weighted // one per running VM goroutine
	mu     sync.Mutex
	closed bool
	runs   sync.WaitGroup
}

// NewPool starts a pool and its background refill.
func NewPool(opts *PoolOptions) (*Pool, error) {
	if opts == nil {
		opts = &PoolOptions{}
	}
	switch {
	case opts.Size < 0:
		return nil, negativeOption("PoolOptions.Size")
	case opts.Grace < 0:
		return nil, negativeOption("PoolOptions.Grace")
	case opts.MaxRuns < 0:
		return nil, negativeOption("PoolOptions.MaxRuns")
	}
	var base Limits
	if opts.Limits != nil {
		base = *opts.Limits
	}
	limits, err := base.WithDefaults(nil)
	if err != nil {
		return nil, err
	}
	maxRuns := cmp.Or(opts.MaxRuns, 64*goruntime.GOMAXPROCS(0))
	host, err := jsvm.NewHost(cmp.Or(opts.Size, 4), cmp.Or(opts.Grace, DefaultGrace), opts.MemoryCeiling)
	if err != nil {
		return nil, err
	}
	return &Pool{limits: limits, host: host, slots: semaphore.NewWeighted(int64(maxRuns))}, nil
}

// Limits returns the pool's budgets: those of a run whose RunOptions.Limits leave them
// zero.
func (p *Pool) Limits() Limits { return p.limits }

// Run prepares code (see Prepare) and runs it. The preparation happens on the run's VM
// goroutine under the run's budgets, so a program that takes long to parse and compile
// ends as a timeout, like one that takes long to run. A program that does not parse (or is
// over opts.ProgramBytes) is a failed Result of kind exception, not an error.
func (p *Pool) Run(ctx context.Context, code string, opts *RunOptions) (*Result, error) {
	var max int
	if opts != nil {
		max = opts.ProgramBytes
	}
	if f := jsprep.CheckSize(code, max); f != nil {
		if p.isClosed() {
			return nil, ErrClosed
		}
		return &Result{Failure: &Failure{Kind: KindException, Message: f.Message}}, nil
	}
	return p.run(ctx, &jsvm.Job{Code: code}, opts)
}

// RunProgram runs a prepared program on a never-used VM, with opts' namespaces installed,
// until its main promise settles or a budget ends it. Program outcomes (exceptions,
// timeouts, cancellation, output problems) are in Result.Failure; the error is non-nil only
// for misuse: a closed pool (ErrClosed), bad options (*OptionError) or bad namespaces
// (*NamespaceError).
func (p *Pool) RunProgram(ctx context.Context, prg *Program, opts *RunOptions) (*Result, error) {
	if prg == nil {
		return nil, &OptionError{Field: "program", Reason: "must not be nil"}
	}
	return p.run(ctx, &jsvm.Job{Program: prg.prg}, opts)
}

// run completes job from opts and runs it on a warm VM.
func (p *Pool) run(ctx context.Context, job *jsvm.Job, opts *RunOptions) (*Result, error) {
	if opts == nil {
		opts = &RunOptions{}
	}
	var over Limits
	if opts.Limits != nil {
		over = *opts.Limits
	}
	limits, err := over.WithDefaults(&p.limits)
	if err != nil {
		return nil, err
	}
	if job.Namespaces, err = vmNamespaces(opts.Namespaces); err != nil {
		return nil, err
	}
	if opts.ArgBytes < 0 {
		return nil, negativeOption("RunOptions.ArgBytes")
	}
	if res, err := p.admit(ctx, opts.Nested); res != nil || err != nil {
		return res, err
	}
	defer p.runs.Done()
	release := func() { p.slots.Release(1) }
	if opts.Nested {
		release = func() {}
	}
	vm, err := p.host.Take()
	if err != nil {
		release()
		return nil, err
	}
	job.Limits, job.ProgramBytes, job.ArgBytes = jsvm.Limits(limits), opts.ProgramBytes, opts.ArgBytes
	job.OnLog, job.FileName, job.Truncate = opts.OnLog, opts.FileName, opts.TruncateOutput
	job.Draws = (*jsvm.Draws)(opts.Draws)
	job.KeepFull = opts.KeepFullValue
	job.State = (*jsvm.State)(opts.State)
	job.Globals = opts.Globals
	job.Release = release
	return result(p.host.Run(ctx, vm, job)), nil
}

// result is the Result of a VM's outcome.
func result(o *jsvm.Outcome) *Result {
	res := &Result{Logs: o.Logs, Value: o.Value, Compute: o.Compute, Draws: (*Draws)(o.Draws), FullValue: o.Full, State: o.State}
	if f := o.Failure; f != nil {
		res.Failure = &Failure{Kind: Kind(f.Kind), Message: f.Message}
	}
	return res
}

// admit registers a run with the pool and takes a run slot unless the run is nested. On
// success the caller must call p.runs.Done and release the slot when the run ends;
// otherwise it returns ErrClosed, or the abort Result of a context that ended first.
func (p *Pool) admit(ctx context.Context, nested bool) (*Result, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	p.runs.Add(1)
	p.mu.Unlock()
	if ctx.Err() == nil && (nested || p.host.Admit(ctx) == nil && p.slots.Acquire(ctx, 1) == nil) {
		return nil, nil
	}
	p.runs.Done()
	return &Result{Failure: &Failure{Kind: KindAbort, Message: context.Cause(ctx).Error()}}, nil
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// ErrRunOver is the cause of a run's host context (see StartFunc) once the run has ended:
// its program settled or failed. Host work still in flight should stop.
var ErrRunOver = jsvm.ErrRunOver

// Close aborts the runs in flight (kind abort, "runtime pool closed"), stops the refill,
// drops the warm VMs and waits for every goroutine the pool started, including VMs that
// outlived their Run. Host calls that outlived theirs are waited for up to Grace more, then
// left behind, holding what they hold, their outcomes dropped. Run after Close returns
// ErrClosed. Close is idempotent.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.host.Stop()
	p.runs.Wait()
	p.host.Close()
	return nil
}
