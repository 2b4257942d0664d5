package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runcode-go/runcode/runtime"
)

// Options configures a Pool. New reads it once and keeps no reference.
type Options struct {
	// Command is the worker's argv: an executable whose process calls Serve on its stdin and
	// stdout (for example the runcode binary and "__worker"), and its arguments. Required.
	Command []string
	// Size bounds the number of worker processes, and so the programs that run at once; Run
	// waits for a free worker (or for its context). A nested run (RunOptions.Nested) does
	// not wait: it takes a worker beyond Size. Zero means 2.
	Size int
	// Warm is how many workers New starts ahead of the first run, and the pool keeps started
	// after one dies. Zero means Size; it cannot exceed Size.
	Warm int
	// Limits are the default budgets of every run, as in runtime.PoolOptions. HeapBytes also
	// sizes each worker's hard memory limit (see Serve); a run with a smaller HeapBytes gets
	// a lower limit in the same worker, one with a larger HeapBytes a worker of its own.
	Limits *runtime.Limits
	// Grace is the worker's runtime.PoolOptions.Grace; how long the host waits, once a run
	// is over, for its host calls that ignore cancellation (Run returns without them, Close
	// leaves them a Grace later); and, plus a fixed margin, how long it waits beyond a
	// worker's own deadline before it kills the worker. Zero means runtime.DefaultGrace.
	Grace time.Duration
	// MaxFrame bounds one protocol frame in each direction. Zero means DefaultMaxFrame. A
	// tool result too large for one frame fails its call with a message that says so (in
	// process there is no such bound; the run's heap budget applies to both).
	MaxFrame int
	// StartTimeout bounds how long a new worker may take to become ready. Zero means 10s.
	StartTimeout time.Duration
	// GCPercent is each worker's GOGC once a run has lasted 2 ms (before that, and between
	// runs, the lower of it and 100). The collector also has a memory limit of the heap
	// budget over the warm worker's size, and runs are charged what they hold live, never
	// their garbage, so a higher percent trades memory within that limit for less collector
	// CPU and cannot fail a correct run. Zero means DefaultGCPercent; negative is an error.
	GCPercent int
}

// DefaultGCPercent is a worker's GOGC when Options.GCPercent is zero: goja copies a string
// on every append, so programs make garbage fast (BENCHMARKS.md, "GC settings").
const DefaultGCPercent = 400

// Pool runs programs in supervised worker processes, one at a time per worker, with the
// same Run as runtime.Pool: namespace calls start through the host's real namespaces, so
// sub-call ids, events and scheduling are those of an in-process run. A worker that dies,
// is killed or breaks the protocol fails only its run and is replaced. A Pool is safe for
// concurrent use; Close releases it.
type Pool struct {
	argv         []string
	limits       runtime.Limits
	grace        time.Duration
	startTimeout time.Duration
	maxFrame     int
	size, warm   int
	gcPercent    int

	slots chan struct{} // one per run in progress
	idle  chan *proc

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	mu     sync.Mutex
	closed bool
	live   map[*proc]struct{}
	runs   sync.WaitGroup
	spawns sync.WaitGroup // spawns in progress
	bg     sync.WaitGroup // every goroutine the pool starts, but those of calls
	calls  sync.WaitGroup // host calls (and waits for them), which may never end

	spawned atomic.Int64
}

// hardMargin is how much longer than Grace the host waits beyond a deadline the worker
// should have enforced before it kills the worker (one stuck in a native call still
// answers a Grace after). It is part of the promise that a run answers within a second
// of its deadline.
const hardMargin = 300 * time.Millisecond

var errPoolClosed = errors.New(msgPoolClosed)

// Messages of the host's own failures.
const (
	msgPoolClosed = "runtime pool closed"
	msgWallClock  = "wall-clock ceiling reached (%dms)"
	msgCompute    = "compute budget exhausted (%dms busy)"
)

// cpuEvery is how often the host samples a running worker's CPU time.
const cpuEvery = 100 * time.Millisecond

// New starts a pool and its first worker, so that a bad Command fails here.
func New(opts *Options) (*Pool, error) {
	if opts == nil || len(opts.Command) == 0 || opts.Command[0] == "" {
		return nil, &runtime.OptionError{Field: "Options.Command", Reason: "must name the worker executable"}
	}
	switch {
	case opts.Size < 0:
		return nil, &runtime.OptionError{Field: "Options.Size", Reason: "must not be negative"}
	case opts.Warm < 0 || opts.Warm > max(opts.Size, 2):
		return nil, &runtime.OptionError{Field: "Options.Warm", Reason: "must be between 0 and Size"}
	case opts.Grace < 0 || opts.StartTimeout < 0 || opts.MaxFrame < 0:
		return nil, &runtime.OptionError{Field: "Options", Reason: "durations and sizes must not be negative"}
	case opts.GCPercent < 0:
		return nil, &runtime.OptionError{Field: "Options.GCPercent", Reason: fmt.Sprintf("must not be negative (a worker's collector cannot be turned off; zero means %d), got %d", DefaultGCPercent, opts.GCPercent)}
	}
	var base runtime.Limits
	if opts.Limits != nil {
		base = *opts.Limits
	}
	limits, err := base.WithDefaults(nil)
	if err != nil {
		return nil, err
	}
	p := &Pool{
		argv: append([]string(nil), opts.Command...), limits: limits,
		grace: opts.Grace, startTimeout: opts.StartTimeout, maxFrame: opts.MaxFrame,
		size: opts.Size, warm: opts.Warm, gcPercent: opts.GCPercent, live: map[*proc]struct{}{},
	}
	if p.grace == 0 {
		p.grace = runtime.DefaultGrace
	}
	if p.startTimeout == 0 {
		p.startTimeout = 10 * time.Second
	}
	if p.maxFrame == 0 {
		p.maxFrame = DefaultMaxFrame
	}
	if p.size == 0 {
		p.size = 2
	}
	if p.gcPercent == 0 {
		p.gcPercent = DefaultGCPercent
	}
	if p.warm == 0 {
		p.warm = p.size
	}
	p.slots = make(chan struct{}, p.size)
	p.idle = make(chan *proc, p.size)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	w, err := p.spawn(p.limits.HeapBytes)
	if err != nil {
		p.cancel()
		return nil, fmt.Errorf("worker: starting a worker: %w", err)
	}
	p.idle <- w
	for i := 1; i < p.warm; i++ {
		p.refill()
	}
	return p, nil
}

// Limits returns the pool's budgets: those of a run whose RunOptions.Limits leave them
// zero.
func (p *Pool) Limits() runtime.Limits { return p.limits }

// Run prepares and runs code in a worker, with the semantics of runtime.Pool.Run: program
// outcomes are in Result.Failure (plus kind worker-exit when the worker died); the error is
// non-nil only for misuse: a closed pool (runtime.ErrClosed), bad options or namespaces.
func (p *Pool) Run(ctx context.Context, code string, opts *runtime.RunOptions) (*runtime.Result, error) {
	if opts == nil {
		opts = &runtime.RunOptions{}
	}
	var over runtime.Limits
	if opts.Limits != nil {
		over = *opts.Limits
	}
	limits, err := over.WithDefaults(&p.limits)
	if err != nil {
		return nil, err
	}
	if err := runtime.CheckNamespaces(opts.Namespaces); err != nil {
		return nil, err
	}
	if opts.ProgramBytes < 0 {
		return nil, &runtime.OptionError{Field: "RunOptions.ProgramBytes", Reason: "must not be negative"}
	}
	if err := p.enter(&p.runs); err != nil {
		return nil, err
	}
	defer p.runs.Done()

	abort := func(msg string) *runtime.Result {
		return &runtime.Result{Failure: &runtime.Failure{Kind: runtime.KindAbort, Message: msg}}
	}
	if ctx.Err() != nil {
		return abort(context.Cause(ctx).Error()), nil
	}
	// A nested run (RunOptions.Nested) takes a worker beyond Size: its caller holds a
	// slot and waits for it, so on a full pool it would wait forever.
	if !opts.Nested {
		select {
		case p.slots <- struct{}{}:
		case <-ctx.Done():
			return abort(context.Cause(ctx).Error()), nil
		case <-p.ctx.Done():
			return abort(msgPoolClosed), nil
		}
		defer func() { <-p.slots }()
	}
	// A worker's hard memory limit cannot be raised after it starts, so a run with a larger
	// budget gets a worker of its own, retired after the run (memLimits.forRun lowers it).
	dedicated := limits.HeapBytes > p.limits.HeapBytes
	var w *proc
	if dedicated {
		w, err = p.spawn(limits.HeapBytes)
	} else {
		w, err = p.get()
	}
	if err != nil {
		return &runtime.Result{Failure: &runtime.Failure{Kind: runtime.KindWorkerExit, Message: "worker failed to start: " + err.Error()}}, nil
	}
	res, healthy := p.exec(ctx, w, code, limits, opts)
	if dedicated {
		p.retire(w)
	} else if healthy {
		select {
		case p.idle <- w:
		default: // the pool already keeps Size workers idle
			p.retire(w)
		}
	} else {
		p.retire(w)
		p.refill()
	}
	return res, nil
}

// get takes an idle worker that is still alive and quiet, or starts one.
func (p *Pool) get() (*proc, error) {
	for {
		select {
		case w := <-p.idle:
			if w.healthy() {
				return w, nil
			}
			p.retire(w)
		default:
			return p.spawn(p.limits.HeapBytes)
		}
	}
}

// refill starts a worker in the background and parks it idle, while fewer than Warm
// workers are alive and not retired (a retired one stays in live until it has exited).
func (p *Pool) refill() {
	p.mu.Lock()
	if p.closed || p.servingLocked() >= p.warm {
		p.mu.Unlock()
		return
	}
	p.bg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.bg.Done()
		w, err := p.spawn(p.limits.HeapBytes)
		if err != nil {
			return
		}
		select {
		case p.idle <- w:
		default:
			p.retire(w)
		}
	}()
}

// enter adds one to wg, which Close waits for, unless the pool is closed (runtime.ErrClosed).
func (p *Pool) enter(wg *sync.WaitGroup) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return runtime.ErrClosed
	}
	wg.Add(1)
	return nil
}

// servingLocked counts the live workers that are not retired.
func (p *Pool) servingLocked() int {
	n := 0
	for w := range p.live {
		select {
		case <-w.gone:
		default:
			n++
		}
	}
	return n
}

// await waits for wg up to Grace; Close waits for what is left up to Grace more.
func (p *Pool) await(wg *sync.WaitGroup) {
	p.calls.Add(1)
	waitUpTo(p.grace, func() {
		defer p.calls.Done()
		wg.Wait()
	})
}

// waitUpTo runs wait on a goroutine of its own and waits for it up to d.
func waitUpTo(d time.Duration, wait func()) {
	done := make(chan struct{})
	go func() {
		wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// Close aborts the runs in flight (kind abort, "runtime pool closed"), kills every worker and
// waits for them and for every goroutine the pool started. Host calls that outlived their
// run are waited for up to Grace, then left behind with their outcomes dropped. Run after
// Close returns runtime.ErrClosed. Close is idempotent.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	p.runs.Wait()
	p.spawns.Wait() // no worker starts after this
	p.mu.Lock()
	live := make([]*proc, 0, len(p.live))
	for w := range p.live {
		live = append(live, w)
	}
	p.mu.Unlock()
	for _, w := range live {
		p.retire(w)
	}
	p.bg.Wait()
	waitUpTo(p.grace, p.calls.Wait)
	for {
		select {
		case <-p.idle:
		default:
			return nil
		}
	}
}
