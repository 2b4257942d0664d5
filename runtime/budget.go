package runtime

import (
	"cmp"
	"fmt"
	"time"
)

// Where the budgets stop. goja checks its interrupt flag only between bytecode
// instructions, so a native built-in (a default sort of millions of elements, a
// catastrophically backtracking regexp, a JSON.stringify of a huge value) runs to its end
// once it has started. The run still answers a Grace after its budget; its VM goroutine
// finishes the call on its own, and Close waits for it. Go's "fatal error: out of memory"
// cannot be recovered at all. Both are why programs a model wrote run in worker processes
// (runtime/worker), where the operating system enforces what goja cannot.

// Limits are the budgets of one run (docs/run_code.md, "Budgets"). A zero field means
// the default named on it. Limits is a plain value; copies are independent.
type Limits struct {
	// Compute bounds the time the VM spends running the program's JavaScript. Time spent
	// waiting for host work or timers accrues nothing. Zero means 60s.
	Compute time.Duration
	// WallClock bounds the whole run, waiting included. Zero means 600s.
	WallClock time.Duration
	// OutputBytes bounds logs plus result as JSON: the logs array as JSON text plus the
	// completion's JSON (or the failure message as a JSON string). Zero means 1 MiB.
	OutputBytes int
	// HeapBytes bounds the live heap the run's own allocations hold (see memory.go for how
	// in-process runs are measured; a worker process also has a hard limit sized from it).
	// It also sizes the guards on allocation-heavy built-ins (a single string can hold at
	// most HeapBytes/4 characters, a single fill/join/sort at most HeapBytes/16 elements).
	// Zero means 512 MiB.
	HeapBytes int64
	// StackDepth bounds the JavaScript call stack; deeper recursion fails the run with
	// "RangeError: Maximum call stack size exceeded". Zero means 10000.
	StackDepth int
}

// Defaults of docs/run_code.md, "Budgets".
const (
	defaultCompute    = 60 * time.Second
	defaultWallClock  = 600 * time.Second
	defaultOutput     = 1 << 20
	defaultHeap       = 512 << 20
	defaultStackDepth = 10000
	sampleEvery       = 10 * time.Millisecond
)

// defaultLimits are the documented defaults as Limits.
var defaultLimits = Limits{
	Compute:     defaultCompute,
	WallClock:   defaultWallClock,
	OutputBytes: defaultOutput,
	HeapBytes:   defaultHeap,
	StackDepth:  defaultStackDepth,
}

// DefaultLimits returns the documented defaults: what each zero field of Limits means.
func DefaultLimits() Limits { return defaultLimits }

// withDefaults fills zero fields from base, then from the documented defaults, and
// validates.
func (l Limits) withDefaults(base *Limits) (Limits, error) {
	if base != nil {
		l = l.or(*base)
	}
	for _, f := range []struct {
		name     string
		negative bool
	}{
		{"Compute", l.Compute < 0},
		{"WallClock", l.WallClock < 0},
		{"OutputBytes", l.OutputBytes < 0},
		{"HeapBytes", l.HeapBytes < 0},
		{"StackDepth", l.StackDepth < 0},
	} {
		if f.negative {
			return l, negativeOption("Limits." + f.name)
		}
	}
	return l.or(defaultLimits), nil
}

// or fills l's zero fields from d.
func (l Limits) or(d Limits) Limits {
	l.Compute = cmp.Or(l.Compute, d.Compute)
	l.WallClock = cmp.Or(l.WallClock, d.WallClock)
	l.OutputBytes = cmp.Or(l.OutputBytes, d.OutputBytes)
	l.HeapBytes = cmp.Or(l.HeapBytes, d.HeapBytes)
	l.StackDepth = cmp.Or(l.StackDepth, d.StackDepth)
	return l
}

// negativeOption is the *OptionError for a field that must not be negative.
func negativeOption(field string) *OptionError {
	return &OptionError{Field: field, Reason: "must not be negative"}
}

// enter marks the start of VM work (running the program or a loop callback) and arms the
// compute watchdog for what is left of the budget. VM goroutine only.
func (r *run) enter() {
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
func (r *run) leave() {
	r.compute.Stop()
	r.mu.Lock()
	r.busy = false
	r.used += time.Since(r.busySince)
	r.mu.Unlock()
}

// computeExpired runs on the timer goroutine. A timer that fires just after leave sees
// busy == false and does nothing.
func (r *run) computeExpired() {
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
