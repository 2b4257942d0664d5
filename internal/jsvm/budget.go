package jsvm

import (
	"cmp"
	"context"
	"fmt"
	"time"
)

// Where the budgets stop: goja checks its interrupt flag only between bytecode
// instructions, so a native built-in (a huge sort, a backtracking regexp) runs to its end;
// the run still answers a Grace after its budget, and Close waits for the VM goroutine.
// Go's "fatal error: out of memory" cannot be recovered. Hence worker processes
// (runtime/worker) for programs a model wrote.

// Limits are the budgets of one run, runtime.Limits with every field set: the
// documented defaults fill the zero fields before a run starts. Limits is a plain value.
type Limits struct {
	Compute, WallClock time.Duration
	OutputBytes        int
	HeapBytes          int64
	StackDepth         int
}

// DefaultLimits are the defaults of docs/run_code.md, "Budgets".
var DefaultLimits = Limits{
	Compute:     60 * time.Second,
	WallClock:   600 * time.Second,
	OutputBytes: 1 << 20,
	HeapBytes:   512 << 20,
	StackDepth:  10000,
}

// sampleEvery is how often the governor samples the heap while runs are in flight.
const sampleEvery = 10 * time.Millisecond

// Or returns l with its zero fields filled from d.
func (l Limits) Or(d Limits) Limits {
	l.Compute = cmp.Or(l.Compute, d.Compute)
	l.WallClock = cmp.Or(l.WallClock, d.WallClock)
	l.OutputBytes = cmp.Or(l.OutputBytes, d.OutputBytes)
	l.HeapBytes = cmp.Or(l.HeapBytes, d.HeapBytes)
	l.StackDepth = cmp.Or(l.StackDepth, d.StackDepth)
	return l
}

// budget is a run's clock: its limits, the compute watchdog and the wall clock's
// deadline. busy, busySince and used are shared with the watchdog, under the VM's mu.
type budget struct {
	limits    Limits
	compute   *time.Timer
	deadline  time.Time
	busy      bool
	busySince time.Time
	used      time.Duration
}

// enter starts a stretch of VM work and arms the compute watchdog for what is left of
// the budget. VM goroutine only.
func (r *VM) enter() {
	r.mu.Lock()
	r.busy = true
	r.busySince = time.Now()
	left := r.limits.Compute - r.used
	r.mu.Unlock()
	if r.compute == nil {
		r.compute = time.AfterFunc(max(left, 0), r.computeExpired)
	} else {
		r.compute.Reset(max(left, 0))
	}
}

// leave ends a stretch of VM work and books it against the compute budget.
func (r *VM) leave() {
	r.compute.Stop()
	r.mu.Lock()
	r.busy = false
	r.used += time.Since(r.busySince)
	r.mu.Unlock()
}

// computeExpired runs on the timer goroutine. A timer that fires just after leave sees
// busy == false and does nothing.
func (r *VM) computeExpired() {
	r.mu.Lock()
	busy, used := r.busy, r.used+time.Since(r.busySince)
	r.mu.Unlock()
	if !busy {
		return
	}
	if used < r.limits.Compute {
		r.compute.Reset(r.limits.Compute - used)
		return
	}
	r.fail(KindTimeout, fmt.Sprintf("compute budget exhausted (%dms busy)", r.limits.Compute.Milliseconds()))
}

// Left is what a run had left of its compute and wall-clock budgets when it made a
// namespace call (runtime.Left).
type Left struct {
	Compute, WallClock time.Duration
}

type leftKey struct{}

// WithLeft returns ctx carrying l for CallLeft.
func WithLeft(ctx context.Context, l Left) context.Context {
	return context.WithValue(ctx, leftKey{}, l)
}

// CallLeft returns the budgets left that ctx carries: in a StartFunc's context, those
// the run had when it made the call.
func CallLeft(ctx context.Context) (Left, bool) {
	l, ok := ctx.Value(leftKey{}).(Left)
	return l, ok
}

// left is what the run has left now. VM goroutine, inside a call of the program's.
func (r *VM) left() Left {
	now := time.Now()
	r.mu.Lock()
	used := r.used
	if r.busy {
		used += now.Sub(r.busySince)
	}
	r.mu.Unlock()
	return Left{Compute: r.limits.Compute - used, WallClock: r.deadline.Sub(now)}
}
