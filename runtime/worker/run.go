package worker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runcode-go/runcode/runtime"
)

// exec runs one program on w. healthy is false when the worker must not be reused: it died,
// was killed, broke the protocol, or its run ended in a way that may have left a VM stuck
// inside a native call (timeout, abort, memory-limit).
func (p *Pool) exec(ctx context.Context, w *proc, code string, limits runtime.Limits, opts *runtime.RunOptions) (res *runtime.Result, healthy bool) {
	nss := opts.Namespaces
	specs := make([]nsSpec, len(nss))
	for i, ns := range nss {
		o := ns.Options()
		specs[i] = nsSpec{
			Global: ns.Global(), Members: ns.Members(),
			ErrorClass: o.ErrorClass, MemberProperty: o.MemberProperty, Noun: o.Noun, SnapshotFields: o.SnapshotFields,
		}
	}
	// Host calls keep ctx's values but are cancelled here, after the worker was told why,
	// so a call ending because of the cancellation cannot overtake the cancel frame.
	hostCtx, cancelHost := context.WithCancelCause(context.WithoutCancel(ctx))
	w.runs++
	rs := &hostRun{id: w.runs, maxLog: limits.OutputBytes, maxHeld: limits.HeapBytes, ctx: hostCtx, nss: nss, done: make(chan *runtime.Result, 1), onLog: opts.OnLog, draws: opts.Draws != nil,
		deadline: time.Now().Add(limits.WallClock)}
	w.bind(rs)
	defer func() {
		w.bind(nil) // no call of this run starts after this
		w.wmu.Lock()
		rs.over = true
		w.wmu.Unlock()
		cancelHost(runtime.ErrRunOver)
		if rs.next > 0 { // bind(nil) ordered rs.next; no call, nothing to wait for
			p.await(&rs.calls)
		}
	}()

	hard := time.AfterFunc(limits.WallClock+p.grace+hardMargin, func() {
		w.kill(&runtime.Failure{Kind: runtime.KindTimeout, Message: fmt.Sprintf(msgWallClock, limits.WallClock.Milliseconds())})
	})
	defer hard.Stop()
	// The compute ceiling from outside, for a worker that no longer enforces its own. CPU
	// time counts the collector's threads too, hence the factor of two.
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

	// The worker keeps the last limits and namespaces it was sent: a run that repeats them
	// says so, which spares the worker decoding and looking them up again.
	run := &message{T: tRun, ID: rs.id, Code: code, ProgramBytes: opts.ProgramBytes, Limits: &limits, NS: specs, File: opts.FileName, Truncate: opts.TruncateOutput, Draws: opts.Draws, KeepFull: opts.KeepFullValue, State: opts.State, Globals: opts.Globals}
	if w.sent != nil && *w.sent.Limits == limits && slices.EqualFunc(w.sent.NS, specs, sameSpec) {
		run.Limits, run.NS, run.Same = nil, nil, true
	}
	var fse *frameSizeError
	err := w.sendIf(rs, run)
	if err == nil && !run.Same {
		w.sent = &message{Limits: run.Limits, NS: run.NS} // not the program
	}
	if errors.As(err, &fse) {
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
		case err := <-readErr:
			readErr = nil
			// A frame torn by the host's own kill is not a protocol violation: the kill's
			// reason stands, and the logs stay.
			if errors.Is(err, errProtocol) && !w.killed() {
				w.broke(rs, err)
			}
			// Otherwise its stdout closed: it is exiting; wait for that.
		case <-w.killedCh:
			// Killed over a budget: the reason stands, and the worker's teardown (seconds
			// for one of gigabytes) is not the run's to wait for.
			return w.ended(rs, limits, ended)
		case <-w.exited:
			return w.ended(rs, limits, ended)
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
	nss   []*runtime.Namespace
	done  chan *runtime.Result // the run's result, when the reader took its done frame
	over  bool                 // guarded by the worker's wmu: no frame of this run is sent once set
	calls sync.WaitGroup

	next uint64 // the last call id seen
	// logs are the entries the worker streamed, kept in case it dies before done, bounded
	// by the run's output budget (a forged worker cannot make the host hold more).
	logs     []string
	logBytes int
	maxLog   int
	onLog    func(string) // RunOptions.OnLog, called on the reader goroutine
	draws    bool         // RunOptions.Draws was set: calls carry the draws before them
	deadline time.Time    // the run's wall-clock ceiling, as the host counts it
	broken   bool         // the worker broke the protocol: nothing more it says counts
	// held is what the host holds for the run's calls in flight (arguments, then results
	// until written); past maxHeld the worker is killed and cut off, its logs kept.
	held    atomic.Int64
	maxHeld int64
	cutOff  atomic.Bool
}

// bind makes rs the run the reader hands the worker's frames to (nil: none). Once bind(nil)
// returns, the reader starts no more calls of the previous run. A worker that spoke
// unasked was killed: nothing it says counts for rs either.
func (w *proc) bind(rs *hostRun) {
	w.rmu.Lock()
	if rs != nil && w.spoke {
		rs.broken = true
	}
	w.run = rs
	w.sp.on.Store(rs != nil)
	w.rmu.Unlock()
}

// dispatch handles m on the reader goroutine, which saves a goroutine hand-off per sub-call
// (BENCHMARKS.md, "runtime/worker design notes"). A frame between runs was sent unasked:
// the worker is killed, so that no later run can take the frame for its own.
func (w *proc) dispatch(m *message) {
	w.rmu.Lock()
	rs := w.run
	if rs == nil && !w.spoke {
		w.spoke = true
		w.killBroken(fmt.Sprintf("a %q frame while no run was in flight", m.T))
	}
	w.rmu.Unlock()
	if rs == nil {
		return
	}
	if res := w.take(rs, m); res != nil {
		rs.done <- res // at most one: take unbinds the run with its result
	}
}

// take handles one frame of run rs and returns the run's result if m ended it. A frame that
// breaks the protocol kills the worker; nothing it sent counts from then on.
func (w *proc) take(rs *hostRun, m *message) *runtime.Result {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	if rs.broken || rs.cutOff.Load() || w.run != rs {
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
	w.killBroken(err.Error())
}

// killBroken kills a worker that broke the protocol in the way what says.
func (w *proc) killBroken(what string) {
	w.kill(&runtime.Failure{Kind: runtime.KindWorkerExit, Message: "worker broke the protocol and was killed: " + what})
}

// ended is the result of a run whose worker died or was killed: its done frame if the
// reader got it first, else the logs it streamed and why it ended.
func (w *proc) ended(rs *hostRun, limits runtime.Limits, done func(*runtime.Result) (*runtime.Result, bool)) (*runtime.Result, bool) {
	w.bind(nil)
	select {
	case res := <-rs.done:
		res, _ = done(res)
		return res, false
	default:
	}
	w.rmu.Lock()
	logs := rs.logs
	w.rmu.Unlock()
	return &runtime.Result{Logs: logs, Failure: w.exitFailure(limits)}, false
}

func sameSpec(a, b nsSpec) bool {
	return a.Global == b.Global && slices.Equal(a.Members, b.Members) && a.ErrorClass == b.ErrorClass &&
		a.MemberProperty == b.MemberProperty && a.Noun == b.Noun && maps.Equal(a.SnapshotFields, b.SnapshotFields)
}
