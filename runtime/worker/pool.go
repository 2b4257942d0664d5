package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/runcode-go/runcode/internal/rtlink"
	"github.com/runcode-go/runcode/runtime"
)

// Options configures a Pool. New reads it once and keeps no reference.
type Options struct {
	// Command is the worker's argv: an executable whose process calls Serve on its stdin and
	// stdout (for example the runcode binary and "__worker"), and its arguments. Required.
	Command []string
	// Size bounds the number of worker processes, and so the programs that run at once; Run
	// waits for a free worker (or for its context). Zero means 2.
	Size int
	// Warm is how many workers New starts ahead of the first run, and the pool keeps started
	// after one dies. Zero means Size; it cannot exceed Size.
	Warm int
	// Limits are the default budgets of every run, as in runtime.PoolOptions. HeapBytes also
	// sizes each worker's hard memory limit (see Serve); a run with a smaller HeapBytes gets
	// a lower limit in the same worker, one with a larger HeapBytes a worker of its own.
	Limits *runtime.Limits
	// Grace is the worker's runtime.PoolOptions.Grace; how long the host, once a run is
	// over, waits for its host calls that ignore cancellation before it gives up on them
	// (Run returns without them, Close leaves them behind a Grace later); and, plus a
	// fixed margin, how long it waits beyond a worker's own deadline (the wall clock, or a
	// cancellation) before it kills the worker. Zero means runtime.DefaultGrace.
	Grace time.Duration
	// MaxFrame bounds one protocol frame in each direction. Zero means DefaultMaxFrame. A
	// tool result too large for one frame fails its call with a message that says so (in
	// process there is no such bound; the run's heap budget applies to both).
	MaxFrame int
	// StartTimeout bounds how long a new worker may take to become ready. Zero means 10s.
	StartTimeout time.Duration
}

// Pool runs programs in supervised worker processes, one program at a time per worker. It
// implements the same Run as runtime.Pool (the ptc.Runner interface): namespace calls come
// back over the channel and start through the host's real namespaces, so sub-call ids,
// events and scheduling are exactly those of an in-process run. A worker that dies, is
// killed, or breaks the protocol fails only the run it was serving and is replaced. A Pool is
// safe for concurrent use; Close releases it.
type Pool struct {
	argv         []string
	limits       runtime.Limits
	grace        time.Duration
	startTimeout time.Duration
	maxFrame     int
	size, warm   int

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
// should itself have enforced before it kills the worker. It only matters for a worker
// that no longer answers (a worker whose VM is stuck in a native call still reports its
// run's failure a Grace after the deadline), so it is generous: a loaded host can delay a
// healthy worker's report by far more than Grace, and killing it would lose its streamed
// output's tail and cost a new worker.
const hardMargin = time.Second

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
	}
	var base runtime.Limits
	if opts.Limits != nil {
		base = *opts.Limits
	}
	limits, err := rtlink.WithDefaults(base, nil)
	if err != nil {
		return nil, err
	}
	p := &Pool{
		argv: append([]string(nil), opts.Command...), limits: limits,
		grace: opts.Grace, startTimeout: opts.StartTimeout, maxFrame: opts.MaxFrame,
		size: opts.Size, warm: opts.Warm, live: map[*proc]struct{}{},
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
	limits, err := rtlink.WithDefaults(over, &p.limits)
	if err != nil {
		return nil, err
	}
	if err := rtlink.CheckNamespaces(opts.Namespaces); err != nil {
		return nil, err
	}
	if opts.ProgramBytes < 0 {
		return nil, &runtime.OptionError{Field: "RunOptions.ProgramBytes", Reason: "must not be negative"}
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, runtime.ErrClosed
	}
	p.runs.Add(1)
	p.mu.Unlock()
	defer p.runs.Done()

	abort := func(msg string) *runtime.Result {
		return &runtime.Result{Failure: &runtime.Failure{Kind: runtime.KindAbort, Message: msg}}
	}
	if ctx.Err() != nil {
		return abort(context.Cause(ctx).Error()), nil
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return abort(context.Cause(ctx).Error()), nil
	case <-p.ctx.Done():
		return abort(msgPoolClosed), nil
	}
	defer func() { <-p.slots }()
	// A worker's hard memory limit is sized for the pool's heap budget when it starts and
	// cannot be raised after, so a run with a larger budget gets a worker of its own, sized
	// for it and retired after the run (it costs a worker start, tens of milliseconds). A run
	// with a smaller budget gets a lower soft limit in any worker (memLimits.forRun).
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
// workers are alive and not retired. A retired worker stays in live until it has
// exited, which is after the refill that replaces it.
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

// exec runs one program on w. healthy is false when the worker must not be reused: it died,
// was killed, broke the protocol, or its run ended in a way that may have left a VM stuck
// inside a native call (timeout, abort, memory-limit).
func (p *Pool) exec(ctx context.Context, w *proc, code string, limits runtime.Limits, opts *runtime.RunOptions) (res *runtime.Result, healthy bool) {
	nss := make([]rtlink.Namespace, len(opts.Namespaces))
	specs := make([]nsSpec, len(nss))
	for i, ns := range opts.Namespaces {
		v := rtlink.NamespaceOf(ns)
		nss[i] = v
		specs[i] = nsSpec{
			Global: v.Global, Members: v.Members,
			ErrorClass: v.ErrorClass, MemberProperty: v.MemberProperty, Noun: v.Noun, SnapshotFields: v.SnapshotFields,
		}
	}
	// The host calls' context keeps ctx's values but is cancelled here, after the worker was
	// told why, so that a call ending because of the cancellation cannot overtake it.
	hostCtx, cancelHost := context.WithCancelCause(context.WithoutCancel(ctx))
	w.runs++
	rs := &hostRun{id: w.runs, maxLog: limits.OutputBytes, ctx: hostCtx, nss: nss, done: make(chan *runtime.Result, 1)}
	w.bind(rs)
	defer func() {
		w.bind(nil) // no call of this run starts after this
		w.wmu.Lock()
		rs.over = true
		w.wmu.Unlock()
		cancelHost(runtime.ErrRunOver)
		p.await(&rs.calls)
	}()

	hard := time.AfterFunc(limits.WallClock+p.grace+hardMargin, func() {
		w.kill(&runtime.Failure{Kind: runtime.KindTimeout, Message: fmt.Sprintf(msgWallClock, limits.WallClock.Milliseconds())})
	})
	defer hard.Stop()
	// The compute ceiling from outside: the worker's CPU time during the run, sampled from
	// /proc. The worker's own runtime stops a program at its compute budget; this catches a
	// worker that no longer does (wedged, or busy outside any run). CPU time counts the
	// garbage collector's threads too, hence the factor of two.
	cpuStart := cpuTime(w.cmd.Process.Pid)
	cpuCeiling := 2*limits.Compute + p.grace + hardMargin
	tick := time.NewTicker(cpuEvery)
	defer tick.Stop()
	var abortKill *time.Timer
	defer func() {
		if abortKill != nil {
			abortKill.Stop()
		}
	}()
	cancelled := false
	onCancel := func(cause error) {
		if cancelled {
			return
		}
		cancelled = true
		reason := cause.Error()
		abortKill = time.AfterFunc(p.grace+hardMargin, func() {
			w.kill(&runtime.Failure{Kind: runtime.KindAbort, Message: reason})
		})
		_ = w.sendIf(rs, &message{T: tCancel, Reason: reason}) // the kill above unblocks it
		cancelHost(cause)
	}

	var fse *frameSizeError
	if err := w.sendIf(rs, &message{T: tRun, ID: rs.id, Code: code, ProgramBytes: opts.ProgramBytes, Limits: &limits, NS: specs, File: opts.FileName, Truncate: opts.TruncateOutput}); errors.As(err, &fse) {
		// Nothing was written: the worker waits for a run as before.
		return &runtime.Result{Failure: &runtime.Failure{Kind: runtime.KindException,
			Message: fmt.Sprintf("the program is too large to pass to the worker process: %d bytes framed, over the %d-byte limit", fse.n, fse.max)}}, true
	} // any other error: the worker is gone, and the run sees it exit

	ctxDone, poolDone, readErr := ctx.Done(), p.ctx.Done(), w.readErr
	ended := func(res *runtime.Result) (*runtime.Result, bool) {
		f := res.Failure
		return res, f == nil || f.Kind == runtime.KindException || f.Kind == runtime.KindInvalidOutput || f.Kind == runtime.KindOutputLimit
	}
	for {
		select {
		case res := <-rs.done:
			return ended(res)
		case m := <-w.frames:
			// A frame the reader held before this run was bound (one the worker sent while
			// idle): handled as a frame of this run, which it cannot validly be.
			if res := w.take(rs, m); res != nil {
				return ended(res)
			}
			// Or one the reader read after this run's done unbound it (take drops it): the
			// worker spoke unasked, and is not reused. Without this, select's random
			// choice could drop it here, and the next run take it as its own
			// (TestUnsolicitedFrame, about 1 run in 100-300).
			select {
			case res := <-rs.done:
				return res, false
			default:
			}
		case err := <-readErr:
			readErr = nil
			if errors.Is(err, errProtocol) {
				w.broke(rs, err)
			}
			// Otherwise its stdout closed: it is exiting; wait for that.
		case <-w.exited:
			w.bind(nil)
			select {
			case res := <-rs.done: // its done frame was read before it exited
				res, _ = ended(res)
				return res, false
			default:
			}
			w.rmu.Lock()
			logs := rs.logs
			w.rmu.Unlock()
			return &runtime.Result{Logs: logs, Failure: w.exitFailure(limits)}, false
		case <-ctxDone:
			ctxDone = nil
			onCancel(context.Cause(ctx))
		case <-poolDone:
			poolDone = nil
			onCancel(errPoolClosed)
		case <-tick.C:
			if cpuStart >= 0 {
				if used := cpuTime(w.cmd.Process.Pid) - cpuStart; used > cpuCeiling {
					w.kill(&runtime.Failure{Kind: runtime.KindTimeout, Message: fmt.Sprintf(msgCompute, limits.Compute.Milliseconds())})
				}
			}
		}
	}
}

// hostRun is the host's side of one run on a worker. The fields from next on are guarded by
// the worker's rmu.
type hostRun struct {
	id    uint64 // the run's number on its worker
	ctx   context.Context
	nss   []rtlink.Namespace
	done  chan *runtime.Result // the run's result, when the reader took its done frame
	over  bool                 // guarded by the worker's wmu: no frame of this run is sent once set
	calls sync.WaitGroup

	next uint64 // the last call id seen
	// logs are the entries the worker streamed, kept for a run whose worker dies before
	// done; logBytes bounds them by the run's output budget (a forged worker cannot
	// make the host hold more).
	logs     []string
	logBytes int
	maxLog   int
	broken   bool // the worker broke the protocol: nothing more it says counts
}

// bind makes rs the run the reader hands the worker's frames to (nil: none). Once bind(nil)
// returns, the reader is not inside a frame of the previous run and starts no more of its
// calls.
func (w *proc) bind(rs *hostRun) {
	w.rmu.Lock()
	w.run = rs
	w.sp.on.Store(rs != nil)
	w.rmu.Unlock()
}

// dispatch handles m on the reader goroutine if a run is bound, and reports whether it did.
// Handling a call there (validate, start through the namespace, hand its wait to a goroutine
// that writes the result) instead of passing the frame to the run's goroutine saves one
// goroutine hand-off per sub-call: on a loaded 2-CPU VM each hand-off that wakes another
// thread costs tens of microseconds (see bench_test.go).
func (w *proc) dispatch(m *message) bool {
	w.rmu.Lock()
	rs := w.run
	w.rmu.Unlock()
	if rs == nil {
		return false
	}
	if res := w.take(rs, m); res != nil {
		rs.done <- res // at most one: take unbinds the run with its result
	}
	return true
}

// take handles one frame of run rs and returns the run's result if m ended it. A frame that
// breaks the protocol kills the worker; nothing it sent counts from then on.
func (w *proc) take(rs *hostRun, m *message) *runtime.Result {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	if rs.broken || w.run != rs {
		return nil // a frame that raced the run's end; a killed worker's frames never count
	}
	res, err := w.p.handle(rs.ctx, w, rs, rs.nss, m)
	if err != nil {
		w.brokeLocked(rs, err)
		return nil
	}
	if res != nil {
		w.run = nil // frames after done are not this run's
		w.sp.on.Store(false)
	}
	return res
}

// broke kills a worker that broke the protocol during run rs and drops what it said.
func (w *proc) broke(rs *hostRun, err error) {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	w.brokeLocked(rs, err)
}

func (w *proc) brokeLocked(rs *hostRun, err error) {
	rs.broken = true
	rs.logs = nil // nothing a worker that broke the protocol said is kept
	w.kill(&runtime.Failure{Kind: runtime.KindWorkerExit, Message: "worker broke the protocol and was killed: " + err.Error()})
}

// handle validates one frame of a run: a call is started through the real namespace (and
// a goroutine waits for it and writes its result frame), done ends the run. Anything else
// is a protocol violation.
func (p *Pool) handle(ctx context.Context, w *proc, rs *hostRun, nss []rtlink.Namespace, m *message) (*runtime.Result, error) {
	switch m.T {
	case tCall:
		if m.ID != rs.next+1 {
			return nil, protocolError("call id %d, want %d", m.ID, rs.next+1)
		}
		rs.next = m.ID
		if m.NSI < 0 || m.NSI >= len(nss) {
			return nil, protocolError("call %d names namespace %d of %d", m.ID, m.NSI, len(nss))
		}
		ns := nss[m.NSI]
		if !ns.Has(m.Member) {
			return nil, protocolError("call %d names %q, not a member of %s", m.ID, m.Member, ns.Global)
		}
		if len(m.Args) == 0 {
			return nil, protocolError("call %d has no arguments", m.ID)
		}
		rs.calls.Add(1)
		p.calls.Add(1)
		id := m.ID
		var once atomic.Bool
		start(ctx, ns, m.Member, m.Args, func(out json.RawMessage, err error) {
			if !once.CompareAndSwap(false, true) {
				return
			}
			// A goroutine for the write: done may be called on a scheduler's goroutine,
			// which must not block on a full pipe.
			go func() {
				defer p.calls.Done()
				defer rs.calls.Done()
				var fse *frameSizeError
				if err := w.sendIf(rs, reply(id, out, err)); errors.As(err, &fse) {
					// Too large to send: the call fails with that rather than never ending
					// (the worker would wait for it until the run's wall clock).
					w.sendIf(rs, reply(id, nil, fmt.Errorf("the tool's result is too large to pass to the worker process: %d bytes framed, over the %d-byte limit", fse.n, fse.max)))
				}
			}()
		})
		return nil, nil
	case tLog:
		if m.ID != rs.id {
			return nil, protocolError("a log frame for run %d during run %d", m.ID, rs.id)
		}
		for _, e := range m.Logs {
			if rs.logBytes += len(e); rs.logBytes > rs.maxLog {
				return nil, protocolError("log entries of %d bytes, over the run's %d-byte output budget", rs.logBytes, rs.maxLog)
			}
		}
		rs.logs = append(rs.logs, m.Logs...)
		return nil, nil
	case tDone:
		if m.ID != rs.id {
			return nil, protocolError("a done frame for run %d during run %d", m.ID, rs.id)
		}
		res := &runtime.Result{Logs: m.Logs}
		if m.Failure != nil {
			if !validKind(m.Failure.Kind) {
				return nil, protocolError("a failure of kind %q", m.Failure.Kind)
			}
			if len(m.Value) > 0 {
				return nil, protocolError("a failed run with a value")
			}
			res.Failure = &runtime.Failure{Kind: m.Failure.Kind, Message: m.Failure.Message}
		} else if len(m.Value) > 0 {
			res.Value = m.Value
		}
		return res, nil
	}
	return nil, protocolError("an unexpected %q frame during a run", m.T)
}

// start calls the namespace's StartFunc, turning a panic into its outcome.
func start(ctx context.Context, ns rtlink.Namespace, member string, args json.RawMessage, done func(json.RawMessage, error)) {
	defer func() {
		if x := recover(); x != nil {
			done(nil, rtlink.PanicError(x))
		}
	}()
	ns.Start(ctx, member, args, done)
}

// reply encodes a call's outcome as a result frame.
func reply(id uint64, out json.RawMessage, err error) *message {
	m := &message{T: tResult, ID: id}
	switch {
	case err != nil:
		var ce *runtime.CallError
		if v, ok := rtlink.PanicValue(err); ok {
			if m.Panic = fmt.Sprint(v); m.Panic == "" {
				m.Panic = "panic"
			}
		} else if errors.As(err, &ce) {
			m.Error = &callError{Message: ce.Message, Fields: ce.Fields}
		} else {
			m.Error = &callError{Message: err.Error()}
		}
	default:
		// As it came, JSON or not (see the protocol): the worker's runtime decodes it as it
		// would in process. Checking it here was a scan of the whole output on the critical
		// path, and the worker scanned it again (bench S4, 1 MB of rows: about 3 ms each).
		m.Value = out
	}
	return m
}

// await waits for wg up to Grace. What is left over (calls that ignore cancellation) is
// waited for by Close, up to Grace more.
func (p *Pool) await(wg *sync.WaitGroup) {
	done := make(chan struct{})
	p.calls.Add(1)
	go func() {
		defer p.calls.Done()
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(p.grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// Close aborts the runs in flight (kind abort, "runtime pool closed"), kills every worker and
// waits for them and for every goroutine the pool started. Host calls that outlived their
// run (they ignored cancellation) are waited for up to Grace, then left behind: whatever
// they hold stays held until they return, and their outcomes are dropped. Run after Close
// returns runtime.ErrClosed. Close is idempotent.
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
	calls := make(chan struct{})
	go func() {
		p.calls.Wait()
		close(calls)
	}()
	t := time.NewTimer(p.grace)
	select {
	case <-calls:
	case <-t.C:
	}
	t.Stop()
	for {
		select {
		case <-p.idle:
		default:
			return nil
		}
	}
}

// proc is one worker process.
type proc struct {
	p       *Pool
	cmd     *exec.Cmd
	in, out *os.File   // the host's ends of stdin and stdout
	wmu     sync.Mutex // held while writing a frame: one frame is one write
	fw      frameWriter
	rmu     sync.Mutex    // held while a frame of the bound run is handled
	run     *hostRun      // the run the reader hands frames to; guarded by rmu
	frames  chan *message // frames read while no run was bound (ready, or unsolicited)
	readErr chan error    // the reader's last error
	exited  chan struct{}
	stderr  *headBuffer
	sp      spin          // on while a run is bound; see spinReader
	gone    chan struct{} // closed when the host is done with the worker
	retired sync.Once
	runs    uint64 // runs sent so far; only the run holding the worker touches it

	mu  sync.Mutex
	why *runtime.Failure // why the host killed it, if it did
}

// spawn starts a worker: an empty environment, "/" as its directory, a process group of its
// own, and no descriptors but stdin and stdout (the channel) and stderr (kept, bounded, for
// diagnostics). Its hard memory limit is sized for runs with a heap budget up to heap. It
// returns once the worker said ready.
func (p *Pool) spawn(heap int64) (*proc, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, runtime.ErrClosed
	}
	p.spawns.Add(1)
	p.mu.Unlock()
	defer p.spawns.Done()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	w := &proc{
		p: p, in: inW, out: outR, fw: frameWriter{w: rawOrFile(inW), max: p.maxFrame}, frames: make(chan *message), readErr: make(chan error, 1),
		exited: make(chan struct{}), gone: make(chan struct{}), stderr: &headBuffer{max: 8 << 10},
	}
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Env = []string{}
	cmd.Dir = "/"
	// stderr is a pipe of our own rather than a Writer, so that waiting for the worker never
	// waits for its stderr to end: a process the worker left behind (the race runtime's
	// symbolizer, say) could hold it open forever.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	newGroup(cmd)
	w.cmd = cmd
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p.spawned.Add(1)
	p.mu.Lock()
	p.live[w] = struct{}{}
	p.bg.Add(3)
	p.mu.Unlock()
	errDone := make(chan struct{})
	go func() {
		defer p.bg.Done()
		defer close(errDone)
		_, _ = io.Copy(w.stderr, errR)
	}()
	go func() {
		defer p.bg.Done()
		pid := cmd.Process.Pid
		// Wait for the exit without reaping, so that the process group cannot have been
		// reused yet, and kill whatever the worker left in its group; then reap it.
		waitExit(pid)
		killGroup(pid)
		_ = cmd.Wait()
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-errDone:
		case <-t.C:
			errR.Close() // unblocks the copy
			<-errDone
		}
		t.Stop()
		errR.Close()
		close(w.exited)
	}()
	go func() {
		defer p.bg.Done()
		w.read(newFrameReader(newSpinReader(w.out, rawOrFile(w.out), &w.sp), p.maxFrame))
	}()

	fail := func(err error) (*proc, error) {
		p.retire(w)
		return nil, err
	}
	init := p.limits
	init.HeapBytes = heap
	if err := w.send(&message{T: tInit, Limits: &init, Grace: int64(p.grace), MaxFrame: p.maxFrame}); err != nil {
		<-w.exited
		return fail(errors.New(w.exitFailure(p.limits).Message))
	}
	t := time.NewTimer(p.startTimeout)
	defer t.Stop()
	select {
	case m := <-w.frames:
		if m.T != tReady {
			return fail(fmt.Errorf("worker broke the protocol: a %q frame instead of ready", m.T))
		}
		return w, nil
	case err := <-w.readErr:
		if errors.Is(err, errProtocol) {
			return fail(err)
		}
		<-w.exited
		return fail(errors.New(w.exitFailure(p.limits).Message))
	case <-w.exited:
		return fail(errors.New(w.exitFailure(p.limits).Message))
	case <-t.C:
		return fail(fmt.Errorf("worker not ready after %v", p.startTimeout))
	}
}

// read handles the worker's frames until its stdout ends or a frame is bad: those of the
// bound run itself (dispatch), any other on the frames channel.
//
// A call's result is written by a goroutine of its own (see handle), since a call may take
// as long as it likes. (Writing it from the reading goroutine and handing the reading on to
// a new one instead, which takes the next, usually empty, read off the critical path, made
// no difference measurable on the 2-CPU VM.)
func (w *proc) read(fr *frameReader) {
	for {
		m, err := fr.read()
		if err != nil {
			w.readErr <- err
			return
		}
		if w.dispatch(m) {
			continue
		}
		select {
		case w.frames <- m:
		case <-w.gone:
			return
		}
	}
}

func (w *proc) send(m *message) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	defer w.sp.wrote()
	return w.fw.write(m)
}

// sendIf sends a frame of run rs unless rs is over. A failed write means the worker is
// gone; the run sees it exit.
func (w *proc) sendIf(rs *hostRun, m *message) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if rs.over {
		return nil
	}
	defer w.sp.wrote()
	return w.fw.write(m)
}

// healthy reports whether an idle worker is still alive and has sent nothing unasked.
func (w *proc) healthy() bool {
	select {
	case <-w.exited:
		return false
	case <-w.readErr:
		return false
	default:
	}
	select {
	case <-w.frames:
		return false
	default:
		return true
	}
}

// kill kills the worker with SIGKILL, remembering the first reason given.
func (w *proc) kill(why *runtime.Failure) {
	w.mu.Lock()
	if w.why == nil {
		w.why = why
	}
	w.mu.Unlock()
	_ = w.cmd.Process.Kill()
}

// retire kills the worker and releases it once it has exited.
func (p *Pool) retire(w *proc) {
	w.retired.Do(func() {
		w.kill(nil)
		close(w.gone)
		p.bg.Add(1)
		go func() {
			defer p.bg.Done()
			<-w.exited
			w.in.Close()
			w.out.Close()
			p.mu.Lock()
			delete(p.live, w)
			p.mu.Unlock()
		}()
	})
}

// exitFailure says why an exited worker ended: the reason the host killed it, the hard
// memory limit (the Go runtime's "out of memory" death), or its exit status. limits are the
// run's: its HeapBytes sized the limit the worker died at (see Pool.Run).
func (w *proc) exitFailure(limits runtime.Limits) *runtime.Failure {
	w.mu.Lock()
	why := w.why
	w.mu.Unlock()
	if why != nil {
		return why
	}
	st := w.cmd.ProcessState
	if st == nil {
		return &runtime.Failure{Kind: runtime.KindWorkerExit, Message: "worker exited before completing"}
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &runtime.Failure{Kind: runtime.KindWorkerExit, Message: "worker killed by signal " + signalName(ws.Signal())}
	}
	code := st.ExitCode()
	if code != 0 && w.stderr.outOfMemory() {
		return &runtime.Failure{Kind: runtime.KindMemoryLimit, Message: fmt.Sprintf("heap limit of %d MiB exceeded", limits.HeapBytes>>20)}
	}
	return &runtime.Failure{Kind: runtime.KindWorkerExit, Message: fmt.Sprintf("worker exited with code %d before completing", code)}
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	}
	if name := osSignalName(s); name != "" {
		return name
	}
	return fmt.Sprintf("%d (%v)", int(s), s)
}

// headBuffer keeps the first max bytes written to it (a crash's first lines say why) and
// discards the rest.
type headBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (b *headBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (b *headBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// outOfMemory reports whether the worker died of the Go runtime's out-of-memory error, which
// is how the hard address-space limit shows.
func (b *headBuffer) outOfMemory() bool {
	s := b.String()
	for _, sig := range []string{
		"out of memory",                      // fatal error: out of memory; runtime: out of memory: cannot allocate
		"cannot allocate memory",             // a failed mmap (ENOMEM)
		"too many address space collisions",  // the same failure in a -race build
		"ThreadSanitizer failed to allocate", // the race runtime's own mmap failing (exit 66)
	} {
		if strings.Contains(s, sig) {
			return true
		}
	}
	return false
}
