package runtime

import (
	"cmp"
	"fmt"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// MatchTimeout bounds one backtracking regexp match (regexp2, which goja uses for
// lookarounds and backreferences).
const MatchTimeout = 100 * time.Millisecond

var setMatchTimeout = sync.OnceFunc(func() { regexp2.DefaultMatchTimeout = MatchTimeout })

// What the in-process guards cannot do. goja checks its interrupt flag only between
// bytecode instructions, so a single native call runs to its end:
//   - Allocation-heavy built-ins (repeat, padStart/padEnd, fill, join, Array.from of an
//     array-like, default sort, bind name growth) are guarded below; JSON.stringify and
//     JSON.parse are replaced (json.go). Array(n) itself is cheap in goja (a sparse
//     array), but other native paths over a huge one are not guarded: spreading it
//     ([...Array(1e9)]), iterating it (map, indexOf), typed-array constructors. The
//     compute budget and Grace bound how long Run waits for them; the abandoned VM
//     goroutine finishes the call on its own.
//   - Catastrophic regexp backtracking: goja falls back to regexp2 for lookarounds and
//     backreferences. regexp2's match timeout is a package variable
//     (regexp2.DefaultMatchTimeout) read when a pattern is compiled; NewPool sets it once
//     to MatchTimeout (a backtracking case that takes 24.6 s unbounded ends in about
//     200 ms). goja reports a timed-out match as "no match" rather than throwing, so such
//     a regexp quietly fails to match instead of raising a RangeError; no hook in goja
//     lets us do better. Setting the variable affects every regexp2 user in the process;
//     embedders that rely on another value can set it after NewPool.
//   - Go's "fatal error: out of memory" is not recoverable; a hard memory limit needs the
//     worker-process isolation of package runtime/worker (kinds memory-limit and
//     worker-exit).

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
