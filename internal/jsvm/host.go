package jsvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/runcode-go/runcode/internal/jsprep"
)

// Kind classifies why a run failed: the failure kinds of docs/run_code.md that a VM
// reports (runtime.Kind names them all).
type Kind string

// The failure kinds a VM reports.
const (
	KindException     Kind = "exception"
	KindTimeout       Kind = "timeout"
	KindAbort         Kind = "abort"
	KindInvalidOutput Kind = "invalid-output"
	KindOutputLimit   Kind = "output-limit"
	KindMemoryLimit   Kind = "memory-limit"
)

// Failure says why a run failed: a kind and the message the model reads. As a call's
// error it ends the run with itself (see StartFunc). A Failure is an immutable value.
type Failure struct {
	Kind    Kind
	Message string
}

func (f *Failure) Error() string { return string(f.Kind) + ": " + f.Message }

// Exact messages of the contract that do not carry a number.
const (
	msgInvalidOutput = "program completion must be lossless JSON"
	msgNeverSettled  = "program never settled: it awaited a promise that nothing left to run can settle"
	msgUnrenderable  = "program threw an unrenderable value"
	msgStackOverflow = "RangeError: Maximum call stack size exceeded"
	msgPoolClosed    = "runtime pool closed"
)

// ErrRunOver is the cause of a run's host context once the run has ended (runtime.ErrRunOver).
var ErrRunOver = errors.New("runtime: the run is over")

// Job is one program to run on a VM and what it runs with. Run reads it and keeps no
// reference.
type Job struct {
	// Program is the prepared program; when nil, Code is prepared on the VM goroutine,
	// as compute time of the run, bounded by ProgramBytes (1 MiB when not positive).
	Program      *jsprep.Program
	Code         string
	ProgramBytes int
	Limits       Limits // every field set (see Limits.Or)
	Namespaces   []*Namespace
	// The rest are runtime.RunOptions' fields of the same meaning (Truncate is
	// TruncateOutput, KeepFull KeepFullValue); ArgBytes zero means MaxArgBytes.
	ArgBytes int
	OnLog    func(entry string)
	FileName string
	Truncate bool
	Draws    *Draws
	KeepFull bool
	State    *State
	Globals  map[string]json.RawMessage
	// Release, if set, is called once the VM's goroutine has ended: after Run returned,
	// for a VM stuck in a native built-in.
	Release func()
}

// Outcome is what a run produced: runtime.Result in the VM's types. It is owned by the
// caller once Run returns.
type Outcome struct {
	Logs    []string
	Value   []byte // nil when the program returned undefined or failed
	Failure *Failure
	Compute time.Duration
	Draws   *Draws                     // when Job.Draws asked for them
	Full    []byte                     // the whole completion Value was cut from (Job.KeepFull)
	State   map[string]json.RawMessage // the session state as left, when changed (Job.State)
}

// Host keeps warm VMs for the runs of one pool and is what those runs answer to: its
// grace, its closing, and the VM goroutines and host calls that outlive a run. A Host is
// safe for concurrent use; Stop and then Close release it.
type Host struct {
	grace  time.Duration
	ready  chan *VM
	ctx    context.Context // cancelled by Stop
	cancel context.CancelFunc
	refill sync.WaitGroup
	vms    sync.WaitGroup // VM goroutines, which may outlive Run
	calls  sync.WaitGroup // host calls whose outcome has not come back; may outlive Run
}

// NewHost builds one VM (so that a host that cannot build VMs fails here), then keeps
// size VMs ready in the background. grace is runtime.PoolOptions.Grace, ceiling its
// MemoryCeiling while this host is open.
func NewHost(size int, grace time.Duration, ceiling int64) (*Host, error) {
	h := &Host{grace: grace, ready: make(chan *VM, size)}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	gov.addHost(h, ceiling)
	if _, err := newVM(h); err != nil {
		h.Stop()
		return nil, err
	}
	h.refill.Add(1)
	go h.refillLoop()
	return h, nil
}

func (h *Host) refillLoop() {
	defer h.refill.Done()
	for {
		r, err := newVM(h)
		if err != nil {
			return // cannot happen after NewHost built one; Take builds synchronously then
		}
		select {
		case h.ready <- r:
		case <-h.ctx.Done():
			return
		}
	}
}

// Take returns a warm VM, or builds one when none is ready.
func (h *Host) Take() (*VM, error) {
	select {
	case r := <-h.ready:
		return r, nil
	default:
		return newVM(h)
	}
}

// Full reports whether every warm VM is ready (benchmarks wait for the refill).
func (h *Host) Full() bool { return len(h.ready) == cap(h.ready) }

// NewVM builds a warm VM on the caller's goroutine: what the background refill pays
// per run.
func (h *Host) NewVM() (*VM, error) { return newVM(h) }

// Admit waits while the process is over its memory ceiling and runs are in flight (they
// are what can give memory back), or until ctx ends.
func (h *Host) Admit(ctx context.Context) error { return gov.admit(ctx) }

// Stop aborts the runs in flight (kind abort, "runtime pool closed") and stops the
// refill. It is idempotent.
func (h *Host) Stop() {
	h.cancel()
	gov.removeHost(h)
	h.refill.Wait()
}

// Close stops h, waits for every VM goroutine its runs started and for host calls that
// outlived their run up to grace more, and drops the warm VMs. Runs must not start after
// Stop; a caller waits for its own runs between Stop and Close.
func (h *Host) Close() {
	h.Stop()
	defer gov.releases.Wait()
	h.vms.Wait()
	waitGroupAtMost(&h.calls, h.grace)
	for {
		select {
		case <-h.ready:
		default:
			return
		}
	}
}

// Run arms the budgets, runs the job's program on r (a VM of h that ran nothing yet) on
// a VM goroutine and waits for it, giving up grace after a failure if the VM is stuck in
// native code.
func (h *Host) Run(ctx context.Context, r *VM, job *Job) *Outcome {
	limits := job.Limits
	r.prg, r.limits, r.onLog, r.argBytes = job.Program, limits, job.OnLog, job.ArgBytes
	r.programBytes, r.fileName, r.truncate, r.keepFull = job.ProgramBytes, job.FileName, job.Truncate, job.KeepFull
	if job.Draws != nil {
		r.draws = newRecorder(job.Draws)
		r.draws.install(r.vm)
	}
	r.parent = ctx
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	r.vm.SetMaxCallStackSize(limits.StackDepth)

	r.deadline = time.Now().Add(limits.WallClock)
	wall := time.AfterFunc(limits.WallClock, func() {
		r.fail(KindTimeout, fmt.Sprintf("wall-clock ceiling reached (%dms)", limits.WallClock.Milliseconds()))
	})
	stopCtx := context.AfterFunc(ctx, func() { r.fail(KindAbort, context.Cause(ctx).Error()) })
	stopHost := context.AfterFunc(h.ctx, func() { r.fail(KindAbort, msgPoolClosed) })
	slot := gov.start(r)

	done := make(chan struct{})
	h.vms.Add(1)
	go func() {
		defer h.vms.Done()
		if job.Release != nil {
			defer job.Release() // after finish: an abandoned VM holds its slot
		}
		defer close(done)
		defer gov.stop(r)
		defer r.dropIfBudgetFailed()
		runOnSlot(slot, func() {
			growStack()
			if r.prg == nil && !r.prepare(job.Code) {
				// failed: nothing to run
			} else if err := r.installNamespaces(job.Namespaces); err != nil {
				r.fail(KindException, "internal error: installing namespaces: "+err.Error())
			} else if err := r.installStateOf(job.State); err != nil {
				r.fail(KindException, "internal error: installing state: "+err.Error())
			} else if err := r.installJobGlobals(job.Globals); err != nil {
				r.fail(KindException, "internal error: installing globals: "+err.Error())
			} else {
				r.exec()
			}
			r.finish()
			r.release()
		})
	}()

	select {
	case <-done:
	case <-r.stopped:
		waitAtMost(done, h.grace)
	}
	wall.Stop()
	stopCtx()
	stopHost()

	r.mu.Lock()
	defer r.mu.Unlock()
	out := &Outcome{Logs: append([]string(nil), r.logs...), Failure: r.failure, Compute: r.used}
	if r.busy { // a VM given up on while it still runs: count it up to now
		out.Compute += time.Since(r.busySince)
	}
	if r.cut {
		out.Logs = append([]string{truncHeader(limits.OutputBytes)}, out.Logs...)
		if r.droppedLogs > 0 {
			out.Logs = append(out.Logs, "…"+strconv.Itoa(r.droppedLogs)+" more log entries")
		}
	}
	if r.draws != nil {
		out.Draws = r.draws.snapshot()
	}
	if r.failure == nil && len(r.value) > 0 {
		out.Value = append([]byte(nil), r.value...)
		out.Full = r.full
	}
	if r.state != nil && r.state.changed && !r.busy {
		out.State = r.state.values
	}
	return out
}

// waitAtMost waits until done is closed or d has passed.
func waitAtMost(done <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// waitGroupAtMost waits for wg up to d. If wg takes longer, the goroutine that waits for
// it lives on until it is done.
func waitGroupAtMost(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	waitAtMost(done, d)
}
